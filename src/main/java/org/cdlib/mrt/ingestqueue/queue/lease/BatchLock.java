package org.cdlib.mrt.ingestqueue.queue.lease;

import org.apache.zookeeper.ZooKeeper;
import org.cdlib.mrt.ingestqueue.queue.model.LockOwner;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;

/**
 * A held {@code /batches/BID/lock}; see {@link Lease} for the guarantees. Its identity only: the
 * batch its holder read or wrote travels beside it, in {@link HeldBatch}.
 */
public final class BatchLock extends Lease {
    private final String bid;

    public BatchLock(String bid, LockOwner owner, ZooKeeper zk) {
        super(QueuePaths.batchLock(bid), owner, zk);
        this.bid = bid;
    }

    public String bid() {
        return bid;
    }

    @Override
    String what() {
        return "batch " + bid;
    }
}
