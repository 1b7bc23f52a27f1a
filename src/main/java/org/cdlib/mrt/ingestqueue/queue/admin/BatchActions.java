package org.cdlib.mrt.ingestqueue.queue.admin;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.errors.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.errors.LockedException;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.IllegalTransitionException;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.Transition;
import org.cdlib.mrt.ingestqueue.queue.model.Transitions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an operator may do to a batch, with the design's rules: hold, release, update reporting,
 * delete (and finish a deletion Merritt's tools marked), and clean up after the retentions
 * ({@link BatchRemoval}). Every action checks the state machine before writing; a refusal writes
 * nothing and says why and what is allowed. A batch a worker holds is refused naming the worker.
 */
public final class BatchActions {
    private static final Logger LOG = LoggerFactory.getLogger(BatchActions.class);
    private final QueueStore store;
    private final Clock clock;
    private final BatchRemoval removal;

    public BatchActions(QueueStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
        this.removal = new BatchRemoval(store);
    }

    public Batch holdBatch(String bid, String by) {
        return moveBatch(bid, BatchState.HELD, "held by " + by);
    }

    public Batch releaseBatch(String bid, String by) {
        HeldBatch lock = lockBatch(bid);
        if (lock.batch().state() != BatchState.HELD) {
            store.moves().unlock(lock);
            throw Refusals.notIn("batch " + bid, lock.batch().state(), BatchState.HELD,
                    Transitions.allowedFrom(Transitions.BATCH, lock.batch().state()));
        }
        return move(lock, BatchState.PENDING, "released by " + by);
    }

    public Batch updateReporting(String bid, String by) {
        HeldBatch lock = lockBatch(bid);
        int open = lock.batch().count(BatchRef.PROCESSING);
        if (lock.batch().state() == BatchState.FAILED && open > 0) {
            List<String> some = store.batches().jobs(bid, BatchRef.PROCESSING);
            store.moves().unlock(lock);
            throw new IllegalTransitionException("batch " + bid + " still has " + open + " job(s) in progress ("
                    + String.join(", ", some.subList(0, Math.min(10, some.size()))) + (open > 10 ? ", ..." : "")
                    + "); update the report when they have ended", List.of());
        }
        return move(lock, BatchState.UPDATE_REPORTING, "update report asked by " + by);
    }

    /** A failed or held batch and every job of it. Resumable: cleanup finishes an interrupted deletion. */
    public void deleteBatch(String bid, String by) {
        HeldBatch lock;
        try {
            lock = lockBatch(bid);
        } catch (CorruptNodeException damaged) {
            removal.deleteDamagedBatch(bid, by, damaged);
            return;
        }
        Batch batch = lock.batch();
        try {
            Transitions.requireBatch(bid, batch.state(), BatchState.DELETED, Transition.By.ADMIN);
            List<String> open = store.batches().jobs(bid, BatchRef.PROCESSING);
            for (Job j : store.jobs().load(open)) {
                if (j.state() != JobState.HELD) {
                    throw new IllegalTransitionException("batch " + bid + " still has job " + j.id() + " in "
                            + j.state() + "; hold or let it end first",
                            Transitions.allowedFrom(Transitions.BATCH, batch.state()));
                }
            }
            store.batches().move(lock, BatchState.DELETED, "deleted by " + by, null, null, Transition.By.ADMIN, false);
        } catch (RuntimeException e) {
            unlockQuietly(lock);
            throw e;
        }
        removal.finishDeletion(bid, "deleted by " + by);
    }

    /**
     * A batch Merritt's tools set Deleted (the Admin Tool's "delete batch"): removed now with its
     * jobs, as Merritt's own cleanup (its batch consumer runs it on every poll) would; a job still
     * locked leaves the rest to our next cleanup, which finishes any Deleted batch.
     */
    public void finishDeletedBatch(String bid, String by) {
        try {
            if (store.batches().load(bid).state() != BatchState.DELETED) {
                return;
            }
            removal.finishDeletion(bid, "deleted by " + by);
        } catch (QueueException e) {
            LOG.warn("batch {}: deleted by {}; its removal is left to the next cleanup: {}", bid, by, e.getMessage());
        }
    }

    private Batch moveBatch(String bid, BatchState to, String reason) {
        return move(lockBatch(bid), to, reason);
    }

    private Batch move(HeldBatch lock, BatchState to, String reason) {
        try {
            return store.batches().move(lock, to, reason, null, null, Transition.By.ADMIN, true);
        } catch (RuntimeException e) {
            unlockQuietly(lock);
            throw e;
        }
    }

    private HeldBatch lockBatch(String bid) {
        Optional<HeldBatch> lock = store.batches().tryLock(bid, "admin");
        if (lock.isPresent()) {
            return lock.get();
        }
        Batch batch = store.batches().load(bid); // NotFoundException when there is none
        throw new LockedException("batch " + bid + " (" + batch.state() + ") is being worked on by "
                + (batch.lockOwner() == null ? "another worker" : batch.lockOwner()) + "; try again when it has moved");
    }

    // ------------------------------------------------------------------ cleanup

    public CleanupResult cleanup(Duration retention) {
        return cleanup(retention, retention);
    }

    /** Completed and failed batches older than their retentions, and interrupted deletions: {@link BatchRemoval}. */
    public CleanupResult cleanup(Duration retention, Duration failedRetention) {
        return removal.cleanup(clock.instant(), retention, failedRetention);
    }

    /** As above; {@code goOn} is asked between stretches of batch numbers (the cleanup leader's lead). */
    public CleanupResult cleanup(Duration retention, Duration failedRetention, BooleanSupplier goOn) {
        return removal.cleanup(clock.instant(), retention, failedRetention, goOn);
    }

    /** As above, and ZooKeeper's finished jobs kept to {@code keepJobs} (completed batches go first, oldest first). */
    public CleanupResult cleanup(Duration retention, Duration failedRetention, long keepJobs, BooleanSupplier goOn) {
        return removal.cleanup(clock.instant(), retention, failedRetention, keepJobs, goOn);
    }

    private void unlockQuietly(HeldBatch lock) {
        try {
            store.moves().unlock(lock);
        } catch (RuntimeException ignored) {
            // the lock goes with the session
        }
    }
}
