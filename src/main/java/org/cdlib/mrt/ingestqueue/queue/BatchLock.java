package org.cdlib.mrt.ingestqueue.queue;

import org.apache.zookeeper.ZooKeeper;

/** A held {@code /batches/BID/lock}; see {@link JobLock} for the guarantees. */
public final class BatchLock {
    private final String bid;
    private final LockOwner owner;
    final ZooKeeper zk;
    final long sessionId;
    private volatile Batch batch;

    BatchLock(String bid, LockOwner owner, ZooKeeper zk) {
        this.bid = bid;
        this.owner = owner;
        this.zk = zk;
        this.sessionId = zk.getSessionId();
    }

    public String bid() {
        return bid;
    }

    public LockOwner owner() {
        return owner;
    }

    public Batch batch() {
        return batch;
    }

    void batch(Batch batch) {
        this.batch = batch;
    }

    public boolean isAlive() {
        return zk.getState().isAlive() && zk.getSessionId() == sessionId;
    }

    @Override
    public String toString() {
        return "lock on " + bid + " by " + owner;
    }
}
