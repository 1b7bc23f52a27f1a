package org.cdlib.mrt.ingestqueue.queue.hosts;

import static org.cdlib.mrt.ingestqueue.queue.model.QueuePaths.HOSTS;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.zookeeper.CreateMode;
import org.cdlib.mrt.ingestqueue.queue.errors.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.model.LockOwner;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service instances that are alive and what each works on. Each registers an ephemeral
 * {@code /hosts/<id>} (re-created by Curator after a session loss) whose data names the host and
 * the jobs its workers hold now, rewritten every {@link #BEAT_MS} when that changed. Its size does
 * not grow with the queue: a host has a bounded number of workers, and the list is cut at
 * {@link #MAX_LISTED_WORK} anyway. A drained host has a persistent {@code /drains/<id>}: its
 * consumers see it through {@link QueueStore#watchQueueHold} exactly as they see a queue hold, so
 * they finish what they hold and take nothing new; the node outlives a restart on purpose (a host
 * drained for maintenance stays drained until an operator says otherwise).
 */
public final class Hosts implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Hosts.class);
    public static final String DRAINS = "/drains";
    static final long BEAT_MS = 2000;
    public static final int MAX_LISTED_WORK = 200;
    /** More registered hosts than this are not read for one answer (a cluster has a handful). */
    static final int MAX_HOSTS = 200;
    private static final AtomicInteger IN_THIS_JVM = new AtomicInteger();

    /** One job in hand: which, and since when. */
    public record Work(String jobId, String since) {
    }

    /**
     * What a host publishes about itself; {@code leads}: the routes
     * of one host at a time it runs (null from older builds).
     */
    public record Host(
            String id, String host, long pid, String started, String updated, List<Work> work, List<String> leads) {}

    private final ZooKeeperCalls zk;
    private final String id;
    private final String started = Instant.now().toString();
    private final Map<String, String> work = new ConcurrentHashMap<>();
    private final Set<String> leads = new ConcurrentSkipListSet<>();
    private PersistentNode node;
    private ScheduledExecutorService beat;
    private volatile byte[] written;

    /** {@code id}: {@link ThisHost#id}, the name this host has everywhere. */
    Hosts(ZooKeeperCalls zk, String id) {
        this.zk = zk;
        this.id = id;
    }

    /** host-pid; two services in one JVM (tests) must not share an id: the second one gets a suffix. */
    static String defaultId() {
        int n = IN_THIS_JVM.incrementAndGet();
        String base = LockOwner.hostName() + "-" + ProcessHandle.current().pid();
        return safe(n == 1 ? base : base + "-" + n);
    }

    static String safe(String s) {
        return s.replaceAll("[^A-Za-z0-9_.-]", "_");
    }

    public String id() {
        return id;
    }

    public static String drainPath(String id) {
        return DRAINS + "/" + id;
    }

    public String drainPath() {
        return drainPath(id);
    }

    public void started(String jid) {
        work.put(jid, Instant.now().toString());
    }

    public void ended(String jid) {
        work.remove(jid);
    }

    /** Whether this host runs {@code route}, one of the routes of one host at a time (published with the next beat). */
    public void leads(String route, boolean running) {
        if (running) {
            leads.add(route);
        } else {
            leads.remove(route);
        }
    }

    /** Registers this instance and starts publishing its work. */
    public synchronized void register() {
        if (node != null) {
            return;
        }
        zk.createPersistent(HOSTS, ZooKeeperCalls.EMPTY);
        zk.createPersistent(DRAINS, ZooKeeperCalls.EMPTY);
        written = data();
        node = new PersistentNode(zk.client(), CreateMode.EPHEMERAL, false, HOSTS + "/" + id, written);
        node.start();
        beat = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "zkqueue-host-beat");
            t.setDaemon(true);
            return t;
        });
        beat.scheduleWithFixedDelay(this::publish, BEAT_MS, BEAT_MS, TimeUnit.MILLISECONDS);
        LOG.info("registered as host {} ({}/{})", id, HOSTS, id);
    }

    private void publish() {
        try {
            byte[] now = data();
            if (!Arrays.equals(now, written)) {
                node.setData(now);
                written = now;
            }
        } catch (Exception e) {
            LOG.debug("host {}: work not published now: {}", id, e.getMessage());
        }
    }

    private byte[] data() {
        List<Work> w = work.entrySet().stream().sorted(Map.Entry.comparingByKey()).limit(MAX_LISTED_WORK)
                .map(e -> new Work(e.getKey(), e.getValue())).toList();
        // "updated" changes only with the work: an idle host writes nothing
        return QueueJson.write(new Host(id, LockOwner.hostName(), ProcessHandle.current().pid(), started,
                w.isEmpty() ? started : w.stream().map(Work::since).max(String::compareTo).orElse(started), w,
                List.copyOf(leads)));
    }

    /** The registered hosts (alive: their ephemeral node exists) and the drained ones, by id. */
    public List<Map<String, Object>> list() {
        List<String> ids = new ArrayList<>(zk.children(HOSTS));
        List<String> drained = zk.children(DRAINS);
        ids.sort(null);
        Map<String, Map<String, Object>> out = new LinkedHashMap<>();
        for (String h : ids.subList(0, Math.min(ids.size(), MAX_HOSTS))) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", h);
            m.put("alive", true);
            try {
                byte[] d = zk.readOrNull(HOSTS + "/" + h);
                if (d == null) {
                    continue; // gone meanwhile
                }
                Host host = QueueJson.read(HOSTS + "/" + h, d, Host.class);
                m.put("host", host.host());
                m.put("pid", host.pid());
                m.put("started", host.started());
                m.put("work", host.work());
                m.put("leads", host.leads() == null ? List.of() : host.leads());
            } catch (CorruptNodeException e) {
                m.put("damaged", e.getMessage());
            }
            m.put("this_host", h.equals(id));
            out.put(h, m);
        }
        for (String h : drained) {
            out.computeIfAbsent(h, k -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("id", k);
                m.put("alive", false);
                m.put("work", List.of());
                m.put("leads", List.of());
                return m;
            });
        }
        for (Map<String, Object> m : out.values()) {
            String h = (String) m.get("id");
            m.put("drained", drained.contains(h));
            if (drained.contains(h)) {
                byte[] d = zk.readOrNull(drainPath(h));
                m.put("drain", d == null ? null : QueueJson.MAPPER.convertValue(readJson(d), Map.class));
            }
        }
        return new ArrayList<>(out.values());
    }

    private static Object readJson(byte[] d) {
        try {
            return QueueJson.MAPPER.readTree(d);
        } catch (Exception e) {
            return Map.of("damaged", "not JSON");
        }
    }

    public void drain(String host, String by) {
        zk.createPersistent(
                drainPath(safe(host)),
                QueueJson.write(Map.of("by", by, "since", Instant.now().toString())));
        LOG.info("host {} drained by {}: it finishes the work it holds and takes no more", host, by);
    }

    public boolean undrain(String host, String by) {
        boolean was = zk.deleteIfExists(drainPath(safe(host)));
        LOG.info("host {} {} by {}", host, was ? "takes work again, undrained" : "was not drained; undrain asked", by);
        return was;
    }

    /** Whether this instance is drained (its consumers ask through {@link QueueStore#watchQueueHold}). */
    public boolean isDrained() {
        return zk.exists(drainPath());
    }

    @Override
    public synchronized void close() {
        if (beat != null) {
            beat.shutdownNow();
        }
        if (node != null) {
            try {
                node.close();
            } catch (Exception e) {
                LOG.debug("host {}: {}", id, e.getMessage());
            }
            node = null;
        }
    }
}
