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

    public ThisHost(ZooKeeperCalls zk) {
        this.zk = zk;
    }

    public Hosts hosts() {
        Hosts h = hosts;
        if (h == null) {
            synchronized (this) {
                if (hosts == null) {
                    hosts = new Hosts(zk, null);
                }
                h = hosts;
            }
        }
        return h;
    }

    /** Registers this instance under {@code /hosts} (an ephemeral node), named {@code id} or host-pid. */
    public synchronized void register(String id) {
        if (hosts == null) {
            hosts = new Hosts(zk, id);
        }
        hosts.register();
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
