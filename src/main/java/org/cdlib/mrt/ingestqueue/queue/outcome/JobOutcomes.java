package org.cdlib.mrt.ingestqueue.queue.outcome;

import java.util.function.BooleanSupplier;
import org.cdlib.mrt.ingestqueue.queue.lease.JobLock;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.LeaseLapsedException;
import org.cdlib.mrt.ingestqueue.queue.model.Outcome;
import org.cdlib.mrt.ingestqueue.queue.model.QueueException;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.model.StaleLockException;
import org.cdlib.mrt.ingestqueue.queue.space.SpaceReservation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job's outcome: {@link Outcome.Next} moves it to the state a step chose or its state's
 * successor (handed to this process's worker of that state when it has one), {@link Outcome.Fail}
 * or an exception moves it to failed with the message, {@link Outcome.Stay} lets go of it to be
 * tried again after the consumer's retry delay. The queue's own trouble leaves it where it is; a
 * lock lost with its session abandons the work to whoever holds the job now; a fenced call past
 * its lease's deadline leaves it too, released only if it is still this lease's.
 */
final class JobOutcomes extends OutcomeStrategy<JobLock, JobState> {
    // the lines keep the logger name operators knew them by, from when the consumer applied them
    private static final Logger LOG = LoggerFactory.getLogger("org.cdlib.mrt.ingestqueue.camel.JobConsumer");

    private final JobState state;
    private final HandOffs handOffs;
    private final BooleanSupplier handingBack;

    JobOutcomes(Moves moves, JobState state, HandOffs handOffs, BooleanSupplier handingBack) {
        super(moves);
        this.state = state;
        this.handOffs = handOffs;
        this.handingBack = handingBack;
    }

    @Override
    public Applied commit(JobLock lock, Outcome<JobState> outcome) {
        try {
            if (outcome instanceof Outcome.Fail<JobState> f) {
                return handingBack.getAsBoolean() ? handBack(lock, f.message()) : fail(lock, f.message());
            }
            if (outcome instanceof Outcome.Stay<JobState> s) {
                moves.unlock(lock);
                LOG.info("job {} batch {}: stays in {}: {}", lock.jid(), lock.job().batchId(), state, s.reason());
                return Applied.RETRY;
            }
            if (outcome instanceof Outcome.Next<JobState> n) {
                JobState to = n.to() != null ? n.to() : state.successor();
                if (!handOff(lock, to, n.change())) {
                    moves.transition(lock, to, n.change());
                }
                return Applied.MOVED_OUT;
            }
            throw new IllegalStateException("job " + lock.jid() + " in " + state + ": a job route cannot end with " + outcome);
        } catch (RuntimeException e) {
            return queueTrouble(lock, e);
        }
    }

    /** The route ended with an exception: the job fails, unless it was the queue's trouble or the stop's. */
    @Override
    public Applied rollback(JobLock lock, Throwable failure, String message) {
        try {
            if (handingBack.getAsBoolean()) {
                return handBack(lock, message);
            }
            Throwable cause = unwrap(failure);
            if (cause instanceof StaleLockException) {
                return abandoned(lock, cause);
            }
            if (cause instanceof LeaseLapsedException) {
                LOG.warn("job {} batch {}: stays in {}: {}", lock.jid(), lock.job().batchId(), state, cause.getMessage());
                release(lock);
                return Applied.RETRY;
            }
            if (cause instanceof QueueException && !(cause instanceof CorruptNodeException)) {
                // ZooKeeper's trouble, not the job's: it stays where it is and is tried again
                LOG.warn("job {} batch {}: stays in {}, the queue could not be reached: {}", lock.jid(), lock.job().batchId(),
                        state, cause.getMessage());
                release(lock);
                return Applied.RETRY;
            }
            return fail(lock, message);
        } catch (RuntimeException e) {
            return queueTrouble(lock, e);
        }
    }

    private Applied queueTrouble(JobLock lock, RuntimeException e) {
        if (e instanceof SpaceReservation.Conflict) {
            // admitted on a disk figure another admission changed meanwhile: nothing was written, decide again now
            LOG.debug("{}", e.getMessage());
            release(lock);
            return Applied.LOOK_AGAIN_SOON;
        }
        if (e instanceof StaleLockException) {
            return abandoned(lock, e);
        }
        if (e instanceof QueueException) {
            LOG.error("job {} batch {}: cannot move out of {}: {}", lock.jid(), lock.job().batchId(), state, e.getMessage());
            release(lock);
            return Applied.RETRY;
        }
        throw e;
    }

    private Applied abandoned(JobLock lock, Throwable e) {
        LOG.warn("job {} batch {}: work in {} abandoned, another worker will redo it: {}",
                lock.jid(), lock.job().batchId(), state, e.getMessage());
        release(lock); // out of the ledger, its node deleted only if still ours, its object lock let go if the job stopped writing
        return Applied.NOTHING;
    }

    private Applied fail(JobLock lock, String message) {
        moves.transition(lock, JobState.FAILED, Change.failure(state.wire() + ": " + message));
        return Applied.MOVED_OUT;
    }

    /**
     * When this process has a consumer of the next state, the move keeps the lock for it and the
     * job goes straight to one of its workers, or waits for the next free one in its short queue:
     * one ZooKeeper request per transition instead of three (lock create, read, commit). A job
     * handed over may start before an older one of that state only by the length of that queue.
     * When that queue is full too, this worker waits for a place (the next state's
     * {@code handOffWait}): the states before a saturated one slow down to its pace instead of
     * leaving jobs in its folder to be claimed again.
     */
    private boolean handOff(JobLock lock, JobState to, Change change) {
        String ref = QueuePaths.refName(change.priority() != null ? change.priority() : lock.job().priority(), lock.jid());
        Place place = handOffs.reserve(to, ref);
        if (place == null) {
            return false;
        }
        JobLock handed;
        try {
            handed = moves.transitionAndKeep(lock, to, change, place.worker());
        } catch (RuntimeException e) {
            place.cancel();
            throw e;
        }
        place.take(handed);
        return true;
    }

    private Applied handBack(JobLock lock, String interruption) {
        moves.unlock(lock);
        LOG.info("job {} batch {}: handed back in {} at shutdown (step interrupted: {}); another worker takes it",
                lock.jid(), lock.job().batchId(), state, interruption);
        return Applied.NOTHING;
    }

    private static Throwable unwrap(Throwable e) {
        Throwable t = e;
        while (t != null && !(t instanceof QueueException) && t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }

    @Override
    public void release(JobLock lock) {
        try {
            moves.unlock(lock);
        } catch (RuntimeException e) {
            LOG.warn("job {}: cannot release its lock (it goes with the session): {}", lock.jid(), e.getMessage());
        }
    }
}
