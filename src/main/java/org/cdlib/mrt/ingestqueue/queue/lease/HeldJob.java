package org.cdlib.mrt.ingestqueue.queue.lease;

import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.LockOwner;

/**
 * A job as one run holds it: the lease ({@link JobLock}, the lock's identity) and what the lease
 * chain knows of the job ({@link JobChain}, one value, replaced whole by each write under the
 * lease, never edited). The claim makes it; the exchange carries it through the steps; a move that
 * keeps the lock returns the chain it leaves, and the next holder is made of the new lease and
 * that value, nothing copied by hand.
 */
public final class HeldJob {
    private final JobLock lock;
    private final AtomicReference<JobChain> chain;

    public HeldJob(JobLock lock, JobChain chain) {
        this.lock = lock;
        this.chain = new AtomicReference<>(chain);
    }

    /** The lease: the lock's identity. */
    public JobLock lease() {
        return lock;
    }

    public String jid() {
        return lock.jid();
    }

    public LockOwner owner() {
        return lock.owner();
    }

    /** What the chain knows now. */
    public JobChain chain() {
        return chain.get();
    }

    /** Replaces what the chain knows by what {@code next} makes of it (a write under the lease); returns it. */
    public JobChain chain(UnaryOperator<JobChain> next) {
        return chain.updateAndGet(next);
    }

    /** The job as read right after locking (or after the last write made under this lock): the chain's. */
    public Job job() {
        return chain().job();
    }

    /** {@link Lease#verifyHeld}, standing on the chain's last confirmed transaction when it may. */
    public void verifyHeld() {
        verifyHeldUntil();
    }

    /** {@link Lease#verifyHeldUntil}, standing on the chain's last confirmed transaction when it may. */
    public long verifyHeldUntil() {
        return lock.verifyHeldUntil(chain().confirmed());
    }

    public boolean isAlive() {
        return lock.isAlive();
    }

    @Override
    public String toString() {
        return lock.toString();
    }
}
