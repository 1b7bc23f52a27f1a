package org.cdlib.mrt.ingestqueue.queue.outcome;

import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.cdlib.mrt.ingestqueue.queue.batches.BatchTransactions;
import org.cdlib.mrt.ingestqueue.queue.errors.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.jobs.EffectsNode;
import org.cdlib.mrt.ingestqueue.queue.jobs.JobDeletion;
import org.cdlib.mrt.ingestqueue.queue.jobs.JobTransactions;
import org.cdlib.mrt.ingestqueue.queue.lease.EphemeralLocks;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.lease.JobChain;
import org.cdlib.mrt.ingestqueue.queue.lease.JobLock;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionEvent;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionLog;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.LockOwner;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.model.StatusReport;
import org.cdlib.mrt.ingestqueue.queue.model.Transition;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where jobs and batches are moved under their locks, each move one transaction, and where a
 * batch's completion is decided when its last job ends (the reporting sweep is the safety net).
 */
public final class Moves {
    private static final Logger LOG = LoggerFactory.getLogger(Moves.class);

    private final ZooKeeperCalls zk;
    private final EphemeralLocks locks;
    private final JobTransactions jobTransactions;
    private final BatchTransactions batchTransactions;
    private final JobDeletion deletion;
    private final TransitionLog log;
    private final EffectsNode effects;

    public Moves(
            ZooKeeperCalls zk,
            EphemeralLocks locks,
            JobTransactions jobTransactions,
            BatchTransactions batchTransactions,
            JobDeletion deletion,
            EffectsNode effects,
            TransitionLog log) {
        this.zk = zk;
        this.effects = effects;
        this.locks = locks;
        this.jobTransactions = jobTransactions;
        this.batchTransactions = batchTransactions;
        this.deletion = deletion;
        this.log = log;
    }

    /**
     * Moves a locked batch as a worker does; with a report, the status report is written in the
     * same transaction. A batch entering processing may find its jobs all ended while it was
     * pending: whether it is done is decided here, as for the move of its last job.
     */
    public Batch transition(HeldBatch lock, BatchState to, String reason, StatusReport report, String errorMessage) {
        Batch moved = batchTransactions.move(lock, to, reason, report, errorMessage, Transition.By.WORKER, true);
        if (to == BatchState.PROCESSING) {
            reportIfDone(lock.bid());
        }
        return moved;
    }

    public void unlock(HeldBatch lock) {
        locks.release(lock.lease());
    }

    /** Releases a job lock without moving the job (e.g. it stays in provisioning), its records written first. */
    public void unlock(HeldJob lock) {
        try {
            effects.flush(lock);
        } catch (RuntimeException e) {
            // a lock already lost writes nothing; the records stay as the next holder finds them
            LOG.warn("job {}: records not written before its lock was let go: {}", lock.jid(), e.getMessage());
        }
        locks.release(lock);
    }

    /** Moves a locked job as a worker does; the lock is released by the same transaction. */
    public Job transition(HeldJob lock, JobState to, Change change) {
        return move(lock, to, change, Transition.By.WORKER);
    }

    /**
     * Moves a locked job on as a worker does and keeps its lock for {@code nextWorker}, this
     * process's worker of the state it enters: the same transaction renames the lock instead of
     * deleting it, so the next state's work starts without a claim (no lock create, no read: the
     * moved job is known). The lock stays fenced as before: same session, same handle.
     */
    public HeldJob transitionAndKeep(HeldJob lock, JobState to, Change change, String nextWorker) {
        LockOwner owner = locks.owner(nextWorker);
        JobChain handed = move(lock, to, change, Transition.By.WORKER, owner);
        return new HeldJob(new JobLock(lock.jid(), owner, lock.lease().zk), handed);
    }

    /**
     * A worker stops a locked job in held for the hold {@code stop} names (issue 45; {@link Change#stoppedBy}). One
     * transaction, which checks the hold's node: false, nothing written and the lock still held, when the hold was
     * lifted meanwhile.
     */
    public boolean stop(HeldJob lock, Change stop) {
        try {
            move(lock, JobState.HELD, stop, Transition.By.WORKER);
            return true;
        } catch (CorruptNodeException e) {
            if (stop.heldBy().path().equals(e.path())) {
                return false;
            }
            throw e;
        }
    }

    public Job move(HeldJob lock, JobState to, Change change, Transition.By by) {
        return move(lock, to, change, by, null).job();
    }

    private JobChain move(HeldJob lock, JobState to, Change change, Transition.By by, LockOwner keepFor) {
        JobState from = lock.job().state();
        int[] openLeft = {-1};
        JobChain moved = jobTransactions.move(lock, to, change, by, keepFor, n -> openLeft[0] = n);
        // the commit's answer says whether jobs are still open: only the last one's move reads the batch
        if (from.batchRef() == BatchRef.PROCESSING && to.batchRef() != BatchRef.PROCESSING && openLeft[0] <= 0) {
            reportIfDone(moved.job().batchId());
        }
        return moved;
    }

    /** Deletes every node of a locked job (a damaged one too) in one transaction. */
    public void deleteJobNodes(HeldJob lock, String bid, String reason) {
        if (deletion.deleteNodes(lock, bid, reason) && bid != null) {
            reportIfDone(bid);
        }
    }

    /** The committed transition stands whatever happens here; the reporting sweep retries. */
    private void reportIfDone(String bid) {
        try {
            batchTransactions.startReportingIfDone(bid);
        } catch (RuntimeException e) {
            LOG.warn("batch {}: not checked for completion now ({}); the reporting sweep will", bid, e.getMessage());
        }
    }

    /** Commits under a job lock that holds no readable job (a repair), checking only the lock. */
    public void commitUnderLock(HeldJob lock, String what, List<Op> ops) {
        List<Op> all = new ArrayList<>(ops);
        all.add(0, Op.check(QueuePaths.jobLock(lock.jid()), -1));
        lock.chain(c -> c.withChildren(null)); // a repair may change anything: completing lists the children again
        try {
            zk.commit(lock.lease().zk, all, () -> false);
        } catch (KeeperException e) {
            throw new QueueException(what + ": " + e.code() + "; nothing was written", e);
        }
    }

    /** Tells this process's consumers that a damaged job was repaired, so they take it again at once. */
    public void repaired(String jid, String bid, JobState state) {
        log.fire(TransitionEvent.JOB, jid, bid, "damaged", state.wire(), "repaired by the consistency check");
    }
}
