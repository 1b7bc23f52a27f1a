package org.cdlib.mrt.ingestqueue.queue;

import org.apache.zookeeper.ZooKeeper;

/** A held {@code /batches/BID/lock}; see {@link Lease} for the guarantees. */
public final class BatchLock extends Lease {
    private final String bid;
    private volatile Batch batch;

    BatchLock(String bid, LockOwner owner, ZooKeeper zk) {
        super(QueuePaths.batchLock(bid), owner, zk);
        this.bid = bid;
    }

    public String bid() {
        return bid;
    }

    public Batch batch() {
        return batch;
    }

    void batch(Batch batch) {
        this.batch = batch;
    }

    @Override
    String what() {
        return "batch " + bid;
    }
}
