package org.cdlib.mrt.ingestqueue.queue.lease;

import org.apache.zookeeper.ZooKeeper;
import org.cdlib.mrt.ingestqueue.queue.model.LockOwner;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;

/**
 * A held {@code /jobs/JID/lock}; see {@link Lease} for the guarantees. Its identity only: what its
 * holder knows of the job travels beside it, in {@link HeldJob}.
 */
public final class JobLock extends Lease {
    private final String jid;

    public JobLock(String jid, LockOwner owner, ZooKeeper zk) {
        super(QueuePaths.jobLock(jid), owner, zk);
        this.jid = jid;
    }

    public String jid() {
        return jid;
    }

    @Override
    String what() {
        return "job " + jid;
    }
}
