package org.cdlib.mrt.ingestqueue.api.dashboard;

import io.vertx.core.http.HttpServerResponse;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.recipes.watch.PersistentWatcher;
import org.apache.zookeeper.WatchedEvent;
import org.cdlib.mrt.ingestqueue.api.http.Answers;
import org.cdlib.mrt.ingestqueue.api.reads.BatchOwners;
import org.cdlib.mrt.ingestqueue.api.reads.QueueViews;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.hosts.Hosts;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dashboard's live updates ({@code GET /api/events}, server-sent events). Persistent
 * recursive watches on the job state folders, the batches, the holds and the hosts deliver every
 * host's transitions as single-node events (a reference created or deleted), so nothing is ever
 * re-listed. The watches are kept only while a page is connected (and {@link #IDLE_MS} after the
 * last one left): they bring about twenty events a job, which a host serving no dashboard has no
 * use for. Events are coalesced: at most {@link #TICK_MS} apart, one message goes to every
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
    static final long IDLE_MS = 60_000;

    private final QueueStore store;
    private final long idleMs;
    private final List<PersistentWatcher> watchers = new CopyOnWriteArrayList<>();
    /** The watches that were in place at least once since they were started. */
    private final Set<PersistentWatcher> established = ConcurrentHashMap.newKeySet();
    private final FeedPages pages;
    private final Set<String> jobs = new LinkedHashSet<>();
    private final Set<String> batches = new LinkedHashSet<>();
    private boolean holds;
    private boolean hosts;
    private boolean dirty;
    private boolean overflow;
    /** A page was greeted while ZooKeeper was away: the watches' arrival tells every page to reload. */
    private boolean greetedEarly;
    private long lastSent = System.currentTimeMillis();
    /** When a page was last connected: the watches go {@link #IDLE_MS} after. */
    private long lastClient = System.currentTimeMillis();
    private final ScheduledExecutorService tick = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "dashboard-live-feed");
        t.setDaemon(true);
        return t;
    });

    LiveFeed(QueueStore store) {
        this(store, IDLE_MS);
    }

    /** {@code idleMs}: how long the watches stay after the last page left. */
    LiveFeed(QueueStore store, long idleMs) {
        this.store = store;
        this.pages = new FeedPages(MAX_CLIENTS, new BatchOwners(store));
        this.idleMs = idleMs;
    }

    LiveFeed start() {
        tick.scheduleWithFixedDelay(this::send, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
        return this;
    }

    /** Whether the watches are on (a page is connected, or was within {@link #IDLE_MS}). */
    boolean watching() {
        return !watchers.isEmpty();
    }

    /** Whether every watch is in place. */
    boolean live() {
        return !watchers.isEmpty() && established.containsAll(watchers);
    }

    /** Under this's lock: a page connects. */
    private void watch() {
        if (!watchers.isEmpty()) {
            return;
        }
        for (String path : List.of(QueuePaths.JOB_STATES, QueuePaths.BATCHES, QueuePaths.BATCH_STATES,
                QueuePaths.QUEUE_HOLD.substring(0,
                QueuePaths.QUEUE_HOLD.lastIndexOf('/')), QueuePaths.COLLECTION_HOLDS, QueuePaths.HOSTS, Hosts.DRAINS)) {
            PersistentWatcher w = new PersistentWatcher(store.client(), path, true);
            w.getListenable().addListener(this::event);
            w.getResetListenable().addListener(() -> established(w));
            w.start();
            watchers.add(w);
        }
    }

    /** Under this's lock: no page for {@link #IDLE_MS}. */
    private void unwatch() {
        watchers.forEach(w -> {
            try {
                w.close();
            } catch (RuntimeException e) {
                LOG.debug("closing a watch: {}", e.getMessage());
            }
        });
        watchers.clear();
        established.clear();
    }

    /** Runs on ZooKeeper's event thread: notes what changed and returns at once. */
    private void event(WatchedEvent e) {
        String p = e.getPath();
        if (p == null) {
            return;
        }
        String[] parts = p.split("/");
        synchronized (this) {
            dirty = true;
            if (p.startsWith(QueuePaths.JOB_STATES + "/") && parts.length == 5) {
                // /jobs/states/<state>/PP-JID
                note(jobs, QueuePaths.jidOfRef(parts[4]));
            } else if (p.startsWith(QueuePaths.BATCHES + "/bid") && parts.length >= 3) {
                // /batches/BID/..., a job's batch reference moving included: its batch row changes
                note(batches, parts[2]);
                if (parts.length == 6 && parts[3].equals("states")) {
                    note(jobs, parts[5]);
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

    /**
     * A watch is (again) in place. The first time, the pages waiting for it are greeted (they load
     * what they show after that, so they miss nothing); after a reconnection, events may have been
     * lost, and every page reloads what it shows.
     */
    private void established(PersistentWatcher w) {
        synchronized (this) {
            if (!established.add(w) || greetedEarly) {
                reset(); // a page greeted before the watches were in place may have missed changes since
            }
            greetedEarly &= !established.containsAll(watchers);
        }
    }

    /** Under this's lock: greets the pages waiting, noting a greeting made before the watches were in place. */
    private void greet(long now) {
        boolean live = live();
        greetedEarly |= pages.greet(live, now) && !live;
    }

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
            greet(now);
            if (!pages.isEmpty()) {
                lastClient = now;
            } else if (!watchers.isEmpty() && now - lastClient > idleMs) {
                unwatch();
            }
            if (!dirty || pages.isEmpty()) {
                if (!pages.isEmpty() && now - lastSent > KEEPALIVE_MS) {
                    lastSent = now;
                    pages.send(user -> ": keep-alive\n\n");
                }
                if (pages.isEmpty()) {
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
        pages.send(user -> event(user == null ? msg : pages.scoped(msg, user)));
    }

    private static String event(Map<String, Object> msg) {
        try {
            return "event: change\ndata: " + Answers.JSON.writeValueAsString(msg) + "\n\n";
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

    /**
     * Starts a client's stream; false (and a 503) when there are {@link #MAX_CLIENTS} already.
     * {@code depositor}: the user whose own ids alone the stream carries; null for an operator's.
     */
    boolean subscribe(HttpServerResponse r, BooleanSupplier loggedIn, String depositor) {
        synchronized (this) {
            if (!pages.add(r, loggedIn, depositor)) {
                return false;
            }
            lastClient = System.currentTimeMillis();
            watch();
            greet(lastClient);
        }
        return true;
    }

    int clientCount() {
        return pages.count();
    }

    @Override
    public void close() {
        tick.shutdownNow();
        synchronized (this) {
            unwatch();
        }
        pages.endAll();
    }
}
