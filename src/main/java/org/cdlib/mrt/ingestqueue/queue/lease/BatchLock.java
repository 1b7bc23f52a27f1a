package org.cdlib.mrt.ingestqueue.queue.lease;

import org.apache.zookeeper.ZooKeeper;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.LockOwner;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;

/** A held {@code /batches/BID/lock}; see {@link Lease} for the guarantees. */
public final class BatchLock extends Lease {
    private final String bid;
    private volatile Batch batch;

    public BatchLock(String bid, LockOwner owner, ZooKeeper zk) {
        super(QueuePaths.batchLock(bid), owner, zk);
        this.bid = bid;
    }

    public String bid() {
        return bid;
    }

    public Batch batch() {
        return batch;
    }

    public void batch(Batch batch) {
        this.batch = batch;
    }

    @Override
    String what() {
        return "batch " + bid;
    }
}
