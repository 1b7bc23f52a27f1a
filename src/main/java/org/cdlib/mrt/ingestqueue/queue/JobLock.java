package org.cdlib.mrt.ingestqueue.queue;

import org.apache.zookeeper.ZooKeeper;

/**
 * A held {@code /jobs/JID/lock}: ephemeral, so it vanishes with the owner's session. Every
 * write made under it goes through the ZooKeeper handle that created it, so a writer whose
 * session expired cannot write through a newer session by mistake.
 */
public final class JobLock {
    private final String jid;
    private final LockOwner owner;
    final ZooKeeper zk;
    final long sessionId;
    private volatile Job job;

    JobLock(String jid, LockOwner owner, ZooKeeper zk) {
        this.jid = jid;
        this.owner = owner;
        this.zk = zk;
        this.sessionId = zk.getSessionId();
    }

    public String jid() {
        return jid;
    }

    public LockOwner owner() {
        return owner;
    }

    /** The job as read right after locking (or after the last write made under this lock). */
    public Job job() {
        return job;
    }

    void job(Job job) {
        this.job = job;
    }

    /** False once the session that holds the lock is gone. */
    public boolean isAlive() {
        return zk.getState().isAlive() && zk.getSessionId() == sessionId;
    }

    @Override
    public String toString() {
        return "lock on " + jid + " by " + owner;
    }
}
