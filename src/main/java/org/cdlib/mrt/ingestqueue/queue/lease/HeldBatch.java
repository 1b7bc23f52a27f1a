package org.cdlib.mrt.ingestqueue.queue.lease;

import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.LockOwner;

/**
 * A batch as one run holds it: the lease ({@link BatchLock}, the lock's identity) and the
 * {@link Batch} as last read or written under it (one value, replaced whole by each write, never
 * edited). The claim makes it; the exchange carries it through the steps; each move and each
 * chunk of jobs created under the lease replaces the batch.
 */
public final class HeldBatch {
    private final BatchLock lock;
    private volatile Batch batch;

    public HeldBatch(BatchLock lock, Batch batch) {
        this.lock = lock;
        this.batch = batch;
    }

    /** The lease: the lock's identity. */
    public BatchLock lease() {
        return lock;
    }

    public String bid() {
        return lock.bid();
    }

    public LockOwner owner() {
        return lock.owner();
    }

    /** The batch as read right after locking, or as the last write under this lock left it. */
    public Batch batch() {
        return batch;
    }

    /** What a write under the lease left: replaces the batch whole. */
    public void batch(Batch written) {
        this.batch = written;
    }

    @Override
    public String toString() {
        return lock.toString();
    }
}
