package org.cdlib.mrt.ingestqueue.queue.lease;

import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.apache.zookeeper.ZooKeeper;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.LockOwner;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;

/**
 * A held {@code /jobs/JID/lock}; see {@link Lease} for the guarantees. What its holder knows of
 * the job is the chain it carries ({@link JobChain}), a value replaced by each write under the
 * lease, never edited; a move that keeps the lock hands it on to the next holder's lease.
 */
public final class JobLock extends Lease {
    private final String jid;
    private final AtomicReference<JobChain> chain;

    /** A lock just taken: nothing known of its job yet. */
    public JobLock(String jid, LockOwner owner, ZooKeeper zk) {
        this(jid, owner, zk, JobChain.NONE);
    }

    /** A lock taken with what the chain knows (a claim's read, or a move that handed the lock on). */
    public JobLock(String jid, LockOwner owner, ZooKeeper zk, JobChain chain) {
        super(QueuePaths.jobLock(jid), owner, zk);
        this.jid = jid;
        this.chain = new AtomicReference<>(chain);
    }

    public String jid() {
        return jid;
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

    @Override
    JobChain.Confirmed confirmation() {
        return chain().confirmed();
    }

    @Override
    String what() {
        return "job " + jid;
    }
}
