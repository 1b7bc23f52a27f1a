package org.cdlib.mrt.ingestqueue.queue.jobs;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.IntConsumer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooDefs;
import org.cdlib.mrt.ingestqueue.queue.errors.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.errors.StaleLockException;
import org.cdlib.mrt.ingestqueue.queue.lease.EphemeralLocks;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.lease.JobChain;
import org.cdlib.mrt.ingestqueue.queue.lease.JobLock;
import org.cdlib.mrt.ingestqueue.queue.lease.ObjectLocks;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionLog;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.HeldBy;
import org.cdlib.mrt.ingestqueue.queue.model.JobHistory;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.JobStatus;
import org.cdlib.mrt.ingestqueue.queue.model.LockOwner;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.model.QueueTime;
import org.cdlib.mrt.ingestqueue.queue.model.Transition;
import org.cdlib.mrt.ingestqueue.queue.model.Transitions;
import org.cdlib.mrt.ingestqueue.queue.space.LockedCommitFailures;
import org.cdlib.mrt.ingestqueue.queue.space.SpaceCounters;
import org.cdlib.mrt.ingestqueue.queue.space.SpaceReservation;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * Jobs in ZooKeeper: their moves ({@link Jobs} reads them). A move is one transaction in the design's order:
 * the status (version-checked), priority / space_needed if they changed, the old state reference
 * deleted, the new one created, the batch reference moved (bumping batch-processing's version),
 * the lock deleted; a job that completes is compacted by the same transaction ({@link JobCompaction}).
 */
public final class JobTransactions {
    private final ZooKeeperCalls zk;
    private final TransitionLog log;
    private final ObjectLocks objects;
    private final SpaceCounters spaceCounters;
    private final JobCompaction compaction;

    private final EphemeralLocks locks;

    public JobTransactions(ZooKeeperCalls zk, TransitionLog log, ObjectLocks objects, EphemeralLocks locks) {
        this.locks = locks;
        this.zk = zk;
        this.spaceCounters = new SpaceCounters(zk);
        this.compaction = new JobCompaction(zk);
        this.log = log;
        this.objects = objects;
    }

    /** Whether a completed job keeps every node mrt-zk's tools read ({@link JobCompaction}); true unless set. */
    void merrittNeighbours(boolean on) {
        compaction.merrittNeighbours(on);
    }

    /** This process's writer of the disk reservation counters: every change of them goes through it. */
    public SpaceCounters spaceCounters() {
        return spaceCounters;
    }

    /** The disk reservation as this process's own moves leave it, or null ({@link SpaceCounters#guess}). */
    SpaceReservation spaceGuess() {
        return spaceCounters.guess();
    }

    /**
     * Moves a locked job; the lock is released by the same transaction, or rewritten for
     * {@code keepFor}. Returns what the lease chain knows after the move: the moved job, and for a
     * lock kept, all the next holder takes on ({@link JobChain#handedOn}). {@code openLeft} hears how
     * many jobs its batch still has open when the move took one out of batch-processing (the
     * {@code Stat} the transaction's own bump of that node returned), or -1 when unknown.
     */
    public JobChain move(HeldJob lock, JobState to, Change change, Transition.By by, LockOwner keepFor,
             IntConsumer openLeft) {
        boolean objectKnown = lock.chain().object() != null;
        boolean childrenKnown = to == JobState.COMPLETED && lock.chain().children() != null;
        try {
            return moveOnce(lock, to, change, by, keepFor, openLeft);
        } catch (CorruptNodeException e) {
            String bid = lock.job().batchId();
            if (e.path().startsWith(QueuePaths.batchStates(bid) + "/") && addBatchRefFolders(bid)) {
                // a batch Merritt's batch consumer took has only the folders mrt-zk's createJob made (issue 42)
                return moveOnce(lock, to, change, by, keepFor, openLeft);
            }
            if (childrenKnown && e.path().startsWith(QueuePaths.job(lock.jid()) + "/")) {
                // the job's children not as this lease chain knew them (changed by hand): listed
                lock.chain(c -> c.withChildren(null));
                return moveOnce(lock, to, change, by, keepFor, openLeft);
            }
            // the object lock not as this lease knew it (changed by hand): read it this time
            if (!objectKnown || !e.path().startsWith(QueuePaths.OBJECT_LOCKS)) {
                throw e;
            }
            return moveOnce(lock, to, change, by, keepFor, openLeft);
        }
    }

    private JobChain moveOnce(HeldJob lock, JobState to, Change change, Transition.By by, LockOwner keepFor,
             IntConsumer openLeft) {
        Job job = lock.job();
        String jid = job.id();
        JobState from = job.state();
        Transitions.requireJob(jid, from, to, by);
        if (to == JobState.DELETED) {
            throw new IllegalArgumentException("deleting goes through AdminActions.deleteJob");
        }
        JobStatus old = job.status();
        JobState lastSuccessful = old.lastSuccessful();
        if (to == from.successor()) { // mrt-zk's meaning: the state a step succeeded in and left
            lastSuccessful = from;
        }
        HeldBy heldBy = null;
        if (to == JobState.HELD && change.heldBy() != null) {
            // stopped by a hold (issue 45): its release resumes at the state after the last success, so that is the
            // state before where it resumes; the status names the hold and the version this move leaves
            lastSuccessful = change.resumeAt().predecessor();
            heldBy = change.heldBy().at(job.statusVersion() + 1);
        }
        int retries = old.retryCount() + (from == JobState.FAILED ? 1 : 0);
        String error = to == JobState.FAILED
                ? Objects.requireNonNullElse(change.errorMessage(), change.reason()) : null;
        // the history rides in the status node, so it is written by this same transaction
        String holder = lock.owner().holder();
        JobStatus status = new JobStatus(to.zk(), lastSuccessful == null ? null : lastSuccessful.zk(),
                QueueTime.now(), retries, error, JobHistory.append(old.history(),
                        JobHistory.entry(from, to, holder, change.reason())), null, heldBy);
        int priority = change.priority() != null ? change.priority() : job.priority();
        long space = change.spaceNeeded() != null ? change.spaceNeeded() : job.spaceNeeded();
        List<Op> compacted = new ArrayList<>();
        if (to == JobState.COMPLETED) {
            status = compaction.compact(lock, status, priority, space, compacted);
        }

        List<Op> ops = new ArrayList<>();
        ops.add(ZooKeeperCalls.setData(QueuePaths.jobStatus(jid), QueueJson.write(status), job.statusVersion()));
        ops.addAll(compacted);
        if (heldBy != null) {
            ops.add(Op.check(heldBy.path(), -1)); // a hold lifted meanwhile stops nothing: this move fails on it
        }
        boolean summarised = to == JobState.COMPLETED && compaction.summarises(); // the job's nodes go into its status
        Op records = summarised ? null : EffectsNode.unwritten(lock); // summarised: in the summary
        if (records != null) {
            ops.add(records);
        }
        if (priority != job.priority() && !summarised) {
            ops.add(Op.setData(QueuePaths.jobNode(jid, "priority"), QueueJson.text(priority), -1));
        }
        if (space != job.spaceNeeded() && !summarised) {
            ops.add(Op.setData(QueuePaths.jobNode(jid, "space_needed"), QueueJson.text(space), -1));
        }
        ops.add(Op.delete(QueuePaths.jobRef(from, job.priority(), jid), -1));
        ops.add(ZooKeeperCalls.create(QueuePaths.jobRef(to, priority, jid), ZooKeeperCalls.EMPTY));
        addBatchRefMove(ops, job.batchId(), jid, from.batchRef(), to.batchRef());
        objects.addRelease(ops, lock, from, to);
        if (keepFor == null) {
            ops.add(Op.delete(QueuePaths.jobLock(jid), -1));
        } else {
            // handed to this process's worker of the next state: the same session keeps the lock, renamed
            ops.add(ZooKeeperCalls.setData(QueuePaths.jobLock(jid), QueueJson.write(keepFor), -1));
        }
        long sent = System.nanoTime();
        byte[] handedTo = keepFor == null ? null : QueueJson.write(keepFor);
        if (handedTo != null) {
            locks.held().hold(QueuePaths.jobLock(jid), handedTo); // in the ledger before the rewrite lands
        }
        JobLock lease = lock.lease();
        List<OpResult> results;
        try {
            results = SpaceReservation.needsUpdate(from, to, job.spaceNeeded(), space, change.admission())
                    ? spaceCounters.commitLocked(lease, ops, QueuePaths.jobStatus(jid), job.statusVersion(),
                            (now, all) -> SpaceReservation.addUpdate(now, all, jid, from, to, job.spaceNeeded(), space,
                                    change.admission()))
                    : zk.commitLocked(lease.zk, lease.sessionId, "job " + jid, ops, QueuePaths.jobStatus(jid),
                            job.statusVersion(), LockedCommitFailures.QUEUE);
        } catch (StaleLockException e) {
            if (handedTo != null) {
                locks.held().letGo(QueuePaths.jobLock(jid), handedTo);
            }
            // refused as stale (the status moved under us: another writer, or a break): the lock, if it is
            // still ours, is let go now, not left to the orphan check a minute or more later
            locks.release(lock);
            throw e;
        } catch (RuntimeException e) {
            if (handedTo != null) {
                locks.held().letGo(QueuePaths.jobLock(jid), handedTo);
            }
            throw e;
        }
        locks.removed(lock.lease()); // deleted, or rewritten as the next holder's (entered above)
        openLeft.accept(openLeft(ops, results, job.batchId())); // ops are the results' first
        EffectsNode.written(lock, !results.isEmpty());
        // the status at its version and the lock renamed: the next state's first fence reads nothing
        boolean confirms = !results.isEmpty() && keepFor != null;
        Job moved = new Job(jid, job.batchId(), job.configuration(), status, priority, space, job.identifiers(),
                job.statusVersion() + 1, keepFor);
        JobChain after = lock.chain(c -> {
            JobChain wrote = c.wrote(jid, ops).withJob(moved);
            return confirms ? wrote.confirmed(sent) : wrote;
        });
        log.job(jid, job.batchId(), from, to, change.reason());
        if (keepFor == null) {
            return after;
        }
        lock.chain(JobChain::handedOff); // the lock is the next holder's: this lease's transactions confirm nothing
        return after.handedOn(to);
    }

    /**
     * Creates the batch's reference folders that are missing, as mrt-zk's {@code Job.setBatchStatePath}
     * does (empty structural nodes, no state of their own): Merritt's {@code Batch.acquirePendingBatch}
     * creates only {@code states}, and its {@code createJob} only {@code batch-processing}. Never a
     * batch root or {@code states} that is gone. True when they are all there now (created here, or
     * by a move of another job of the batch a moment before: the move is then made again once).
     */
    private boolean addBatchRefFolders(String bid) {
        for (BatchRef r : List.of(BatchRef.PROCESSING, BatchRef.COMPLETED, BatchRef.FAILED)) {
            try {
                zk.counted(1);
                zk.client().create().forPath(QueuePaths.batchRefs(bid, r), ZooKeeperCalls.EMPTY);
            } catch (KeeperException.NodeExistsException e) {
                // there already
            } catch (KeeperException.NoNodeException e) {
                return false; // the batch's states node is gone: the move stays refused
            } catch (Exception e) {
                throw ZooKeeperCalls.wrap("create " + QueuePaths.batchRefs(bid, r), e);
            }
        }
        return true;
    }

    /**
     * The children batch-processing has after a commit that bumped it, from the commit's own answer; -1 when
     * unknown.
     */
    private static int openLeft(List<Op> ops, List<OpResult> results, String bid) {
        String processing = QueuePaths.batchRefs(bid, BatchRef.PROCESSING);
        for (int i = 0; i < ops.size() && i < results.size(); i++) {
            if (ops.get(i).getPath().equals(processing) && results.get(i) instanceof OpResult.SetDataResult r) {
                return r.getStat().getNumChildren();
            }
        }
        return -1; // not bumped, or the outcome was read back after a lost connection
    }

    /** Moves the job's batch reference between categories and bumps batch-processing's version. */
    static void addBatchRefMove(List<Op> ops, String bid, String jid, BatchRef from, BatchRef to) {
        if (from == to) {
            return;
        }
        if (from != null) {
            ops.add(Op.delete(QueuePaths.batchRef(bid, from, jid), -1));
        }
        if (to != null) {
            ops.add(Op.create(QueuePaths.batchRef(bid, to, jid), ZooKeeperCalls.EMPTY, ZooDefs.Ids.OPEN_ACL_UNSAFE,
                    CreateMode.PERSISTENT));
        }
        ops.add(Op.setData(QueuePaths.batchRefs(bid, BatchRef.PROCESSING), ZooKeeperCalls.EMPTY, -1));
    }
}
