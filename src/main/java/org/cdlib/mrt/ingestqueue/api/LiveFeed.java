package org.cdlib.mrt.ingestqueue.api;

import io.vertx.core.http.HttpServerResponse;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.watch.PersistentWatcher;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.hosts.Hosts;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dashboard's live updates ({@code GET /api/events}, server-sent events). Persistent
 * recursive watches on the job state folders, the batches, the holds and the hosts deliver every
 * host's transitions as single-node events (a reference created or deleted), so nothing is ever
 * re-listed. Events are coalesced: at most {@link #TICK_MS} apart, one message goes to every
 * client with the counts per state (read by {@code Stat}, one read transaction) and the ids that
 * changed (at most {@link #MAX_IDS} each). The page re-reads only what it shows and what changed,
 * so the work per update never grows with the queue. Clients are capped at {@link #MAX_CLIENTS}.
 */
final class LiveFeed implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LiveFeed.class);
    static final long TICK_MS = 300;
    static final int MAX_IDS = 100;
    static final int MAX_CLIENTS = 50;
    private static final long KEEPALIVE_MS = 15_000;

    private final QueueStore store;
    private final Activity activity;
    private final List<PersistentWatcher> watchers = new CopyOnWriteArrayList<>();
    private final List<HttpServerResponse> clients = new CopyOnWriteArrayList<>();
    /** Whether each client's login still holds (a session ends at logout or when idle): its stream ends with it. */
    private final Map<HttpServerResponse, java.util.function.BooleanSupplier> logins = new java.util.concurrent.ConcurrentHashMap<>();
    /** A depositor's stream: the user whose batches' and jobs' ids alone it carries (operators' streams are not here). */
    private final Map<HttpServerResponse, String> depositors = new java.util.concurrent.ConcurrentHashMap<>();
    private final BatchOwners owners;
    private final Set<String> jobs = new LinkedHashSet<>();
    private final Set<String> batches = new LinkedHashSet<>();
    private boolean holds;
    private boolean hosts;
    private boolean dirty;
    private boolean overflow;
    private long lastSent = System.currentTimeMillis();
    private final ScheduledExecutorService tick = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "dashboard-live-feed");
        t.setDaemon(true);
        return t;
    });

    LiveFeed(QueueStore store, Activity activity) {
        this.store = store;
        this.activity = activity;
        this.owners = new BatchOwners(store);
    }

    LiveFeed start() {
        for (String path : List.of(QueuePaths.JOB_STATES, QueuePaths.BATCHES, QueuePaths.BATCH_STATES, QueuePaths.QUEUE_HOLD.substring(0,
                QueuePaths.QUEUE_HOLD.lastIndexOf('/')), QueuePaths.COLLECTION_HOLDS, QueuePaths.HOSTS, Hosts.DRAINS)) {
            PersistentWatcher w = new PersistentWatcher(store.client(), path, true);
            w.getListenable().addListener(this::event);
            w.getResetListenable().addListener(this::reset);
            w.start();
            watchers.add(w);
        }
        tick.scheduleWithFixedDelay(this::send, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
        return this;
    }

    /** Runs on ZooKeeper's event thread: notes what changed and returns at once. */
    private void event(WatchedEvent e) {
        String p = e.getPath();
        if (p == null) {
            return;
        }
        String[] parts = p.split("/");
        boolean created = e.getType() == Watcher.Event.EventType.NodeCreated;
        synchronized (this) {
            dirty = true;
            if (p.startsWith(QueuePaths.JOB_STATES + "/") && parts.length == 5) {
                // /jobs/states/<state>/PP-JID
                note(jobs, QueuePaths.jidOfRef(parts[4]));
                if (created) {
                    activity.arrived(parts[3]);
                }
            } else if (p.startsWith(QueuePaths.BATCHES + "/bid") && parts.length >= 3) {
                // /batches/BID/..., a job's batch reference moving included: its batch row changes
                note(batches, parts[2]);
                if (parts.length == 6 && parts[3].equals("states")) {
                    note(jobs, parts[5]);
                    if (created && (parts[4].equals(BatchRef.COMPLETED.node()) || parts[4].equals(BatchRef.FAILED.node()))) {
                        activity.batchJobEnded(parts[2]);
                    }
                }
            } else if (p.startsWith(QueuePaths.BATCH_STATES + "/") && parts.length == 4) {
                // /batch-states/<state>/BID
                note(batches, parts[3]);
            } else if (p.startsWith(QueuePaths.HOSTS) || p.startsWith(Hosts.DRAINS)) {
                hosts = true;
            } else if (p.startsWith("/locks/")) {
                holds = true;
            }
        }
    }

    private void note(Set<String> ids, String id) {
        if (ids.size() < MAX_IDS) {
            ids.add(id);
        } else if (!ids.contains(id)) {
            overflow = true; // the page reloads what it shows instead of following ids
        }
    }

    /** A reconnection may have lost events: every client reloads what it shows. */
    private void reset() {
        synchronized (this) {
            dirty = true;
            overflow = true;
            holds = true;
            hosts = true;
        }
    }

    private void send() {
        Map<String, Object> msg = new LinkedHashMap<>();
        synchronized (this) {
            long now = System.currentTimeMillis();
            if (!dirty || clients.isEmpty()) {
                if (!clients.isEmpty() && now - lastSent > KEEPALIVE_MS) {
                    lastSent = now;
                    clients.forEach(c -> write(c, ": keep-alive\n\n"));
                }
                if (clients.isEmpty()) {
                    clear();
                }
                return;
            }
            lastSent = now;
            msg.put("jobs_changed", List.copyOf(jobs));
            msg.put("batches_changed", List.copyOf(batches));
            msg.put("reload", overflow);
            msg.put("holds_changed", holds);
            msg.put("hosts_changed", hosts);
            clear();
        }
        try {
            msg.put("counts", QueueViews.counts(store));
        } catch (RuntimeException e) {
            msg.put("counts_error", e.getMessage()); // the page keeps its last counts and says so
        }
        String data = event(msg);
        if (data == null) {
            return;
        }
        Map<String, String> own = new java.util.HashMap<>(); // one message per depositor, however many pages they have open
        for (HttpServerResponse c : clients) {
            String user = depositors.get(c);
            String d = user == null ? data : own.computeIfAbsent(user, u -> event(scoped(msg, u)));
            if (d != null) {
                write(c, d);
            }
        }
    }

    /** The message as a depositor may see it: only their own batches' and jobs' ids. */
    @SuppressWarnings("unchecked")
    private Map<String, Object> scoped(Map<String, Object> msg, String user) {
        Map<String, Object> m = new LinkedHashMap<>(msg);
        m.put("batches_changed", ((List<String>) msg.get("batches_changed")).stream().filter(b -> owners.owns(user, b)).toList());
        m.put("jobs_changed", ((List<String>) msg.get("jobs_changed")).stream().filter(j -> owners.ownsJob(user, j)).toList());
        return m;
    }

    private static String event(Map<String, Object> msg) {
        try {
            return "event: change\ndata: " + HttpApi.JSON.writeValueAsString(msg) + "\n\n";
        } catch (Exception e) {
            return null;
        }
    }

    private void clear() {
        jobs.clear();
        batches.clear();
        holds = false;
        hosts = false;
        dirty = false;
        overflow = false;
    }

    private void write(HttpServerResponse c, String data) {
        try {
            if (c.closed() || c.ended()) {
                drop(c);
            } else if (!logins.getOrDefault(c, () -> true).getAsBoolean()) {
                drop(c);
                c.end("event: logged-out\ndata: {}\n\n");
            } else if (!c.writeQueueFull()) {
                c.write(data); // a client that does not read is skipped, not buffered without end
            }
        } catch (RuntimeException e) {
            drop(c);
        }
    }

    private void drop(HttpServerResponse c) {
        clients.remove(c);
        logins.remove(c);
        depositors.remove(c);
    }

    /**
     * Starts a client's stream; false (and a 503) when there are {@link #MAX_CLIENTS} already.
     * {@code depositor}: the user whose own ids alone the stream carries; null for an operator's.
     */
    boolean subscribe(HttpServerResponse r, java.util.function.BooleanSupplier loggedIn, String depositor) {
        synchronized (this) {
            if (clients.size() >= MAX_CLIENTS) {
                return false;
            }
            clients.add(r);
            logins.put(r, loggedIn);
            if (depositor != null) {
                depositors.put(r, depositor);
            }
        }
        r.setChunked(true).putHeader("Content-Type", "text/event-stream; charset=UTF-8").putHeader("X-Accel-Buffering", "no");
        r.closeHandler(v -> drop(r));
        r.exceptionHandler(t -> drop(r));
        // the first message tells the page it is live and to load what it shows
        r.write("retry: 2000\nevent: hello\ndata: {}\n\n");
        return true;
    }

    int clientCount() {
        return clients.size();
    }

    @Override
    public void close() {
        tick.shutdownNow();
        watchers.forEach(w -> {
            try {
                w.close();
            } catch (RuntimeException e) {
                LOG.debug("closing a watch: {}", e.getMessage());
            }
        });
        clients.forEach(c -> {
            try {
                c.end();
            } catch (RuntimeException e) {
                // already gone
            }
        });
    }
}
