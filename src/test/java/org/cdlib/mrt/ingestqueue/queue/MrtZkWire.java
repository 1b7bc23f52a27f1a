package org.cdlib.mrt.ingestqueue.queue;

import org.apache.zookeeper.ZooKeeper;

/**
 * {@link MrtZk}'s calls for tests outside this package (the soak's neighbour): mrt-zk's own lock
 * (an exists check, then a 0-byte ephemeral), its unlock (deletes whatever lock is there), a job's
 * status as mrt-zk reads it, and the Admin Tool's {@code set_status} (single calls, no multi).
 */
public final class MrtZkWire {
    private final MrtZk mrtZk;

    public MrtZkWire(ZooKeeper zk) {
        this.mrtZk = new MrtZk(zk);
    }

    public boolean lock(String jid) throws Exception {
        return mrtZk.lock("/jobs/" + jid);
    }

    public void unlock(String jid) throws Exception {
        mrtZk.unlock("/jobs/" + jid);
    }

    /** The job's status as mrt-zk's {@code Job.load} reads it ("Pending", "Held" …); fails as mrt-zk fails. */
    public String status(String jid) throws Exception {
        return mrtZk.loadJob(jid).status();
    }

    public void setJobStatus(String jid, String to, String message) throws Exception {
        mrtZk.setJobStatus(jid, to, message, false);
    }
}
