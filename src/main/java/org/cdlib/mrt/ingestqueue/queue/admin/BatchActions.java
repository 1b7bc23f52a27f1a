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
    private final BatchHoldRelease releases;

    public BatchActions(QueueStore store, Clock clock) {
        this(store, clock, new JobActions(store));
    }

    public BatchActions(QueueStore store, Clock clock, JobActions jobs) {
        this.store = store;
        this.clock = clock;
        this.removal = new BatchRemoval(store);
        this.releases = new BatchHoldRelease(store, jobs);
    }

    /**
     * Holds a batch. A pending one moves to held, as mrt-zk's states allow, and stops making jobs; a batch whose
     * jobs run (processing, or pending with jobs made) gets the hold's node too ({@code /locks/batches/BID}, issue
     * 45): its jobs stop as a worker would take them, each active one at the end of its step, while its status
     * stays as it is (mrt-zk has no Processing → Held). Refused, nothing changed, for a batch held already or one
     * whose jobs have all ended.
     */
    public Batch holdBatch(String bid, String by) {
        HeldBatch lock = lockBatch(bid);
        Batch batch = lock.batch();
        try {
            if (batch.state() == BatchState.PROCESSING || batch.state() == BatchState.PENDING) {
                boolean running = batch.state() == BatchState.PROCESSING || batch.status().jobsCreated() > 0;
                if (running && !store.holds().holdBatch(bid, by) && batch.state() == BatchState.PROCESSING) {
                    throw new IllegalTransitionException("batch " + bid + " is held already (its jobs stop before "
                            + "their next step); nothing changed", List.of());
                }
                if (batch.state() == BatchState.PROCESSING) {
                    store.moves().unlock(lock);
                    return batch;
                }
            } else if (batch.state() != BatchState.HELD) {
                throw new IllegalTransitionException("batch " + bid + " is " + batch.state().wire()
                        + ": its jobs have all ended, nothing is left to hold", List.of());
            }
        } catch (RuntimeException e) {
            unlockQuietly(lock);
            throw e;
        }
        return move(lock, BatchState.HELD, "held by " + by);
    }

    /**
     * Releases a held batch: a held one goes back to pending, and the hold on its running jobs is lifted (the jobs
     * it stopped are released in the background, {@link BatchHoldRelease}; one held by hand stays held).
     */
    public Batch releaseBatch(String bid, String by) {
        HeldBatch lock = lockBatch(bid);
        BatchState state = lock.batch().state();
        boolean running;
        try {
            running = store.holds().releaseBatch(bid, by);
        } catch (RuntimeException e) {
            unlockQuietly(lock);
            throw e;
        }
        if (running) {
            releases.soon();
        }
        if (state != BatchState.HELD) {
            store.moves().unlock(lock);
            if (running) {
                return lock.batch();
            }
            throw new IllegalTransitionException("batch " + bid + " is " + state.wire() + " and not held; nothing "
                    + "changed", Transitions.allowedFrom(Transitions.BATCH, state));
        }
        return move(lock, BatchState.PENDING, "released by " + by);
    }

    /** The pass that releases the jobs of released batches' holds (the timer's, and each release's at once). */
    public BatchHoldRelease releases() {
        return releases;
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
