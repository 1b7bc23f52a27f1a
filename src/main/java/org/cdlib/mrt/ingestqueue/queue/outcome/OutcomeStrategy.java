package org.cdlib.mrt.ingestqueue.queue.outcome;

import org.cdlib.mrt.ingestqueue.queue.lease.BatchLock;
import org.cdlib.mrt.ingestqueue.queue.lease.JobLock;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.Outcome;

/**
 * Applies a route's {@link Outcome} to the job or batch it was given, in one place for every
 * consumer, as Camel's file component commits or rolls back a file through its process strategy
 * and Curator's queue applies the one code its consumer returns: the claim was the begin,
 * {@link #commit} applies what a route that ended normally decided, {@link #rollback} what a
 * route's exception means. The answer tells the consumer when to look at the item again; the
 * consumer only polls and runs.
 *
 * @param <L> the lock the item is held by
 * @param <S> its state type
 */
public abstract sealed class OutcomeStrategy<L, S extends Enum<S>> permits JobOutcomes, BatchOutcomes {
    protected final Moves moves;

    OutcomeStrategy(Moves moves) {
        this.moves = moves;
    }

    /**
     * For a consumer of {@code state}'s jobs: a job moving on goes to {@code handOffs} when this
     * process works on the state it enters; once {@code handingBack} (a stop ran out of time), a
     * failing step was interrupted by the stop, and its job is handed back unchanged.
     */
    public static OutcomeStrategy<JobLock, JobState> jobs(Moves moves, JobState state, HandOffs handOffs,
                                                          java.util.function.BooleanSupplier handingBack) {
        return new JobOutcomes(moves, state, handOffs, handingBack);
    }

    public static OutcomeStrategy<BatchLock, BatchState> batches(Moves moves, BatchState state) {
        return new BatchOutcomes(moves, state);
    }

    /** The route ended normally having decided {@code outcome} (null: it decided nothing). */
    public abstract Applied commit(L lock, Outcome<S> outcome);

    /** The route ended with {@code failure}; {@code message} is the step's own message for it. */
    public abstract Applied rollback(L lock, Throwable failure, String message);

    /** Lets go of an item unchanged (its outcome could not be applied), so it is taken again; never throws. */
    public abstract void release(L lock);

    /** What the consumer does with the item next. */
    public enum Then {
        /** It left the state by this commit: left alone while the view may still list it. */
        MOVED_OUT,
        /** It stayed: taken again after {@link Applied#delayMs} (null: the consumer's retry delay). */
        RETRY,
        /** Let go unchanged by a race that is over now: listed afresh at once. */
        LOOK_AGAIN_SOON,
        /** Nothing: it moved, or is another worker's now. */
        NOTHING
    }

    /** What applying an outcome left the consumer to do. */
    public record Applied(Then then, Long delayMs) {
        static final Applied MOVED_OUT = new Applied(Then.MOVED_OUT, null);
        static final Applied RETRY = new Applied(Then.RETRY, null);
        static final Applied LOOK_AGAIN_SOON = new Applied(Then.LOOK_AGAIN_SOON, null);
        static final Applied NOTHING = new Applied(Then.NOTHING, null);

        static Applied retryIn(long ms) {
            return new Applied(Then.RETRY, ms);
        }
    }

    /**
     * Where a job moving on may go with its lock kept: this process's worker of the state it
     * enters (see {@link JobOutcomes}). Implemented by the consumers' side; no Camel here.
     */
    public interface HandOffs {
        HandOffs NONE = (to, ref) -> null;

        /**
         * A place for the job {@code ref} (its reference in {@code to}) at this process's consumer
         * of {@code to}, reserved; null when there is none, or none free, or it may take no work.
         * May wait a moment for a place (the next state's {@code handOffWait}).
         */
        Place reserve(JobState to, String ref);
    }

    /** A reserved place at the next state's consumer. */
    public interface Place {
        /** The worker the job's lock is renamed for. */
        String worker();

        /** The move failed: the place is given back. */
        void cancel();

        /** The move committed keeping the lock: the job runs there (or waits for its next free worker). */
        void take(JobLock lock);
    }
}
