package org.cdlib.mrt.ingestqueue.queue.outcome;

import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.cdlib.mrt.ingestqueue.queue.errors.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.errors.LeaseLapsedException;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.errors.StaleLockException;
import org.cdlib.mrt.ingestqueue.queue.jobs.JobClaims;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.lease.QueueHolds;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.HeldBy;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.space.SpaceReservation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job's cycle: claimed with its nodes read behind the lock; {@link JobOutcome.Next} moves it to
 * the state a step chose or its state's successor (keeping its lock for this process's worker of
 * that state when the consumer reserved one: {@link #commit(HeldJob, JobOutcome, String)}),
 * {@link JobOutcome.Fail} or an exception moves it to failed with the message,
 * {@link JobOutcome.Stay} lets go of it to be tried again after the consumer's retry delay. The
 * queue's own trouble leaves it where it is; a lock lost with its session abandons the work to
 * whoever holds the job now; a fenced call past its lease's deadline leaves it too, released only
 * if it is still this lease's.
 */
public final class JobOutcomes extends OutcomeStrategy<HeldJob, JobOutcome> {
    // the lines keep the logger name operators knew them by, from when the consumer applied them
    private static final Logger LOG = LoggerFactory.getLogger("org.cdlib.mrt.ingestqueue.camel.JobConsumer");

    private final JobClaims claims;
    private final QueueHolds holds;
    private final JobState state;
    private final BooleanSupplier handingBack;

    JobOutcomes(JobClaims claims, Moves moves, QueueHolds holds, JobState state, BooleanSupplier handingBack) {
        super(moves);
        this.claims = claims;
        this.holds = holds;
        this.state = state;
        this.handingBack = handingBack;
    }

    /** Locks the jobs behind the references and reads them, all in one round trip; each kept if still in this state. */
    @Override
    public List<Supplier<Optional<HeldJob>>> begin(List<String> refNames, String worker) {
        return claims.claimAll(state, refNames, worker);
    }

    /**
     * Where the job would go if {@code outcome} moved it on, and as what reference it would be
     * listed there: what a hand-off reserves a place for before the commit. Null when the outcome
     * does not move it on. Decides nothing and writes nothing.
     */
    public HandOff handOff(HeldJob lock, JobOutcome outcome) {
        if (!(outcome instanceof JobOutcome.Next n)) {
            return null;
        }
        if (stopAt(lock, n) != null) {
            return null; // it stops in held: no worker of the next state takes it
        }
        Integer priority = n.change().priority() != null ? n.change().priority() : lock.job().priority();
        return new HandOff(target(n), QueuePaths.refName(priority, lock.jid()));
    }

    /**
     * A job taken (claimed, or handed over) whose batch or collection is held stops in held before its step starts,
     * to resume in this state (issue 45). The applied answer when it stopped (or could not be moved); null when no
     * hold applies and its step runs.
     */
    public Applied stopIfHeld(HeldJob lock) {
        if (!state.isWorking()) {
            return null;
        }
        Optional<HeldBy> hold;
        try {
            hold = holds.stopping(lock.job());
        } catch (QueueException e) {
            // the holds cannot be read now (a lost session, a broken connection): let go, looked at again at once
            LOG.debug("job {}: holds not read ({}); let go unchanged", lock.jid(), e.getMessage());
            abort(lock);
            return Applied.LOOK_AGAIN_SOON;
        }
        try {
            // the move's one log line says which hold stopped it and where it resumes
            return hold.isPresent() && moves.stop(lock, Change.stoppedBy(hold.get(), state)) ? Applied.MOVED_OUT : null;
        } catch (RuntimeException e) {
            return queueTrouble(lock, e);
        }
    }

    /**
     * The stop's change when a hold applies to a job that finished its step and would move on by {@code n}: held,
     * to resume where it would have gone, with what the step decided (priority, space needed). A job admitted to
     * downloading resumes at provisioning, which decides the admission again when it is released (the disk may
     * have filled meanwhile). Null when no hold applies, or the job leaves the pipeline (completed).
     */
    private Change stopAt(HeldJob lock, JobOutcome.Next n) {
        JobState to = target(n);
        if (!to.isWorking()) {
            return null;
        }
        Optional<HeldBy> hold;
        try {
            hold = holds.stopping(lock.job());
        } catch (QueueException e) {
            // not read now (a lost session, a broken connection): the move goes as it would; if a hold was set, the
            // job stops when a worker next takes it
            return null;
        }
        if (hold.isEmpty()) {
            return null;
        }
        Change c = n.change();
        Change stop = Change.stoppedBy(hold.get(), c.admission() != null ? state : to);
        stop = c.priority() != null ? stop.withPriority(c.priority()) : stop;
        return c.spaceNeeded() != null ? stop.withSpaceNeeded(c.spaceNeeded()) : stop;
    }

    /** A state a job moving on enters, and its reference there. */
    public record HandOff(JobState to, String ref) {
    }

    /** What a commit did: the consumer's next step, and the lock it kept for the next state's worker (or null). */
    public record Committed(Applied applied, HeldJob kept) {
    }

    @Override
    public Applied commit(HeldJob lock, JobOutcome outcome) {
        return commit(lock, outcome, null).applied();
    }

    /**
     * As {@link #commit(HeldJob, JobOutcome)}; a job moving on keeps its lock for {@code keepFor}
     * (null: none), the worker of the next state the consumer reserved a place at before: the same
     * transaction renames the lock instead of deleting it, so the next state's work starts
     * without a claim (one ZooKeeper request per transition instead of three: lock create, read,
     * commit). What it kept is returned; the consumer hands it to that place once this is done.
     */
    public Committed commit(HeldJob lock, JobOutcome outcome, String keepFor) {
        try {
            if (outcome instanceof JobOutcome.Fail f) {
                return done(handingBack.getAsBoolean() ? handBack(lock, f.message()) : fail(lock, f.message()));
            }
            if (outcome instanceof JobOutcome.Stay s) {
                moves.unlock(lock);
                LOG.info("job {} batch {}: stays in {}: {}", lock.jid(), lock.job().batchId(), state, s.reason());
                return done(Applied.RETRY);
            }
            if (outcome instanceof JobOutcome.Next n) {
                JobState to = target(n);
                Change stop = stopAt(lock, n);
                if (stop != null && moves.stop(lock, stop)) {
                    return done(Applied.MOVED_OUT); // its step done, it waits held where it would have gone
                }
                if (keepFor != null) {
                    return new Committed(Applied.MOVED_OUT, moves.transitionAndKeep(lock, to, n.change(), keepFor));
                }
                moves.transition(lock, to, n.change());
                return done(Applied.MOVED_OUT);
            }
            throw new IllegalStateException("job " + lock.jid() + " in " + state + ": a job route cannot end with "
                    + outcome);
        } catch (RuntimeException e) {
            return done(queueTrouble(lock, e));
        }
    }

    private JobState target(JobOutcome.Next n) {
        return n.to() != null ? n.to() : state.successor();
    }

    private static Committed done(Applied applied) {
        return new Committed(applied, null);
    }

    /** The route ended with an exception: the job fails, unless it was the queue's trouble or the stop's. */
    @Override
    public Applied rollback(HeldJob lock, Throwable failure, String message) {
        try {
            if (handingBack.getAsBoolean()) {
                return handBack(lock, message);
            }
            Throwable cause = unwrap(failure);
            if (cause instanceof StaleLockException) {
                return abandoned(lock, cause);
            }
            if (cause instanceof LeaseLapsedException) {
                LOG.warn("job {} batch {}: stays in {}: {}", lock.jid(), lock.job().batchId(), state,
                        cause.getMessage());
                abort(lock);
                return Applied.RETRY;
            }
            if (cause instanceof QueueException && !(cause instanceof CorruptNodeException)) {
                // ZooKeeper's trouble, not the job's: it stays where it is and is tried again
                LOG.warn("job {} batch {}: stays in {}, the queue could not be reached: {}", lock.jid(),
                        lock.job().batchId(), state, cause.getMessage());
                abort(lock);
                return Applied.RETRY;
            }
            return fail(lock, message);
        } catch (RuntimeException e) {
            return queueTrouble(lock, e);
        }
    }

    private Applied queueTrouble(HeldJob lock, RuntimeException e) {
        if (e instanceof SpaceReservation.Conflict) {
            // admitted on a disk figure another admission changed meanwhile: nothing was written, decide again now
            LOG.debug("{}", e.getMessage());
            abort(lock);
            return Applied.LOOK_AGAIN_SOON;
        }
        if (e instanceof StaleLockException) {
            return abandoned(lock, e);
        }
        if (e instanceof QueueException) {
            LOG.error("job {} batch {}: cannot move out of {}: {}", lock.jid(), lock.job().batchId(), state,
                    e.getMessage());
            abort(lock);
            return Applied.RETRY;
        }
        throw e;
    }

    private Applied abandoned(HeldJob lock, Throwable e) {
        LOG.warn("job {} batch {}: work in {} abandoned, another worker will redo it: {}",
                lock.jid(), lock.job().batchId(), state, e.getMessage());
        // out of the ledger, its node deleted only if still ours, its object lock let go if the job stopped writing
        abort(lock);
        return Applied.NOTHING;
    }

    private Applied fail(HeldJob lock, String message) {
        moves.transition(lock, JobState.FAILED, Change.failure(state.wire() + ": " + message));
        return Applied.MOVED_OUT;
    }

    private Applied handBack(HeldJob lock, String interruption) {
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
    public void abort(HeldJob lock) {
        try {
            moves.unlock(lock);
        } catch (RuntimeException e) {
            LOG.warn("job {}: cannot release its lock (it goes with the session): {}", lock.jid(), e.getMessage());
        }
    }
}
