package org.cdlib.mrt.ingestqueue.queue.hosts;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * This process as the other hosts see it: its registration and drain node ({@link Hosts}, made on
 * first use) and the jobs its consumers work on, counted, so fsck can tell a forgotten lock and
 * the hosts page lists the work.
 */
public final class ThisHost implements AutoCloseable {
    private final ZooKeeperCalls zk;
    /** A job handed to the next state's worker is briefly in two hands. */
    private final Map<String, Integer> workInHand = new ConcurrentHashMap<>();
    private volatile Hosts hosts;
    /** The one name of this host wherever an operator reads it: hosts page, lock data, job timeline. */
    private volatile String id;

    public ThisHost(ZooKeeperCalls zk) {
        this.zk = zk;
    }

    public Hosts hosts() {
        Hosts h = hosts;
        if (h == null) {
            synchronized (this) {
                if (hosts == null) {
                    hosts = new Hosts(zk, id());
                }
                h = hosts;
            }
        }
        return h;
    }

    /** This host's id: {@code ingest.host.id} once registered with it, else host-pid; fixed on first use. */
    public String id() {
        String i = id;
        if (i == null) {
            synchronized (this) {
                if (id == null) {
                    id = Hosts.defaultId();
                }
                i = id;
            }
        }
        return i;
    }

    /** Registers this instance under {@code /hosts} (an ephemeral node), named {@code configuredId} or host-pid. */
    public synchronized void register(String configuredId) {
        if (id == null && configuredId != null && !configuredId.isBlank()) {
            id = Hosts.safe(configuredId);
        }
        hosts().register();
    }

    public void workStarted(String jid) {
        workInHand.merge(jid, 1, Integer::sum);
        hosts().started(jid);
    }

    public void workEnded(String jid) {
        if (workInHand.computeIfPresent(jid, (k, n) -> n > 1 ? n - 1 : null) == null) {
            hosts().ended(jid); // not while the job's next state's worker, handed it, still has it
        }
    }

    public boolean inHand(String jid) {
        return workInHand.containsKey(jid);
    }

    @Override
    public void close() {
        if (hosts != null) {
            hosts.close();
        }
    }
}
