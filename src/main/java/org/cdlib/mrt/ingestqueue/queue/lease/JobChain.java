package org.cdlib.mrt.ingestqueue.queue.lease;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;

/**
 * What a chain of leases on one job knows of it, from the claim's read through the hand-offs that
 * keep the lock for the next state's worker: the claim makes it, each write under the lease makes
 * the next one (never edited in place), and a move that keeps the lock returns it for the next
 * holder ({@link #handedOn}). The lease itself ({@link JobLock}) is the lock's identity; a run
 * holds the two side by side ({@link HeldJob}).
 *
 * @param job        the job as read right after locking, or as the last write under the chain left it;
 *                   null before the claim's read (a lock taken to repair a damaged job)
 * @param effects    the job's effects node as the chain last read or wrote it; null: to be read
 * @param object     the object lock the chain took and holds (from processing through recording); null: to be read
 * @param children   which children the job's node has: read behind the lock (every child a job may have, their
 *                   number checked against the node's) and kept up by the chain's own writes ({@link #wrote});
 *                   null: not known, to be listed
 * @param childCount how many children the job's node had when claimed (its Stat, read behind the lock); -1:
 *                   unknown. Only the lock's holder adds a job's children: it stays a bound, plus the holder's few
 * @param confirmed  the last transaction under the chain that checked its lock and status and was answered: the
 *                   fence shortcut ({@link Confirmed#stands}); null: none
 */
public record JobChain(Job job, KnownEffects effects, ObjectLocks.Held object, Set<String> children, int childCount,
                       Confirmed confirmed) {
    /** Nothing known yet: a lock just created, its job not read. */
    public static final JobChain NONE = new JobChain(null, null, null, null, -1, null);

    public JobChain {
        children = children == null ? null : Set.copyOf(children);
    }

    /** What the claim's read behind the lock found. */
    public static JobChain claimed(Job job, KnownEffects effects, Set<String> children, int childCount) {
        return new JobChain(job, effects, null, children, childCount, null);
    }

    public JobChain withJob(Job changed) {
        return new JobChain(changed, effects, object, children, childCount, confirmed);
    }

    public JobChain withEffects(KnownEffects known) {
        return new JobChain(job, known, object, children, childCount, confirmed);
    }

    public JobChain withObject(ObjectLocks.Held held) {
        return new JobChain(job, effects, held, children, childCount, confirmed);
    }

    public JobChain withChildren(Set<String> names) {
        return new JobChain(job, effects, object, names, childCount, confirmed);
    }

    public JobChain withChildCount(int count) {
        return new JobChain(job, effects, object, children, count, confirmed);
    }

    /**
     * A transaction sent under the chain's lease at {@code sentNanos} that checked the lock node and
     * the status version (which a break moves), through the lease's session, was answered: it
     * confirms the hold as a fence's read would, from when it was sent. A fence right after it (the
     * effect record written just before a mint or a storage add) needs no read.
     */
    public JobChain confirmed(long sentNanos) {
        return new JobChain(job, effects, object, children, childCount, new Confirmed(sentNanos, System.nanoTime()));
    }

    /** A transaction under the chain was applied: the job's children it created or deleted are known. */
    public JobChain wrote(String jid, List<Op> ops) {
        if (children == null) {
            return this;
        }
        Set<String> now = new HashSet<>(children);
        String prefix = QueuePaths.job(jid) + "/";
        for (Op op : ops) {
            String path = op.getPath();
            if (!path.startsWith(prefix) || path.indexOf('/', prefix.length()) >= 0) {
                continue;
            }
            String name = path.substring(prefix.length());
            switch (op.getType()) {
                case ZooDefs.OpCode.create, ZooDefs.OpCode.create2 -> now.add(name);
                case ZooDefs.OpCode.delete -> now.remove(name);
                default -> { }
            }
        }
        return withChildren(now);
    }

    /**
     * The chain as the next holder takes it from a move into {@code to} that wrote the lock as its
     * own: the move does not touch the effects, but completing moves them into the status
     * ({@code JobCompaction}). The object lock goes on as the move left it (none once it let it go).
     */
    public JobChain handedOn(JobState to) {
        return to == JobState.COMPLETED ? withEffects(null) : this;
    }

    /** The lock is the next holder's now: the transaction that handed it on confirms nothing of this lease. */
    public JobChain handedOff() {
        return new JobChain(job, effects, object, children, childCount, null);
    }

    /** When a transaction under the chain was sent and answered ({@link System#nanoTime} values). */
    public record Confirmed(long sent, long answered) {
        /**
         * How long a transaction under the lease that checked its lock stands for a fence read: no
         * more than the steps between a record and its send take (a bean or two), so the window in
         * which an operator's break goes unseen stays what a read's answer and the send leave anyway.
         */
        private static final long RECENT_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

        /**
         * Whether it stands for a fence begun at {@code began}, the hold then lasting until
         * {@code sent + half}: answered just now, and, since a transaction that took long to be
         * answered (a lost connection, retried) leaves little of its margin, with half of it left.
         */
        boolean stands(long began, long half) {
            return began - answered < RECENT_NANOS && sent + half - began > half / 2;
        }
    }
}
