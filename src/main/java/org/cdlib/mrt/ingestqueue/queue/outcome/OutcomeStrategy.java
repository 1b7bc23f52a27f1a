package org.cdlib.mrt.ingestqueue.queue.outcome;

import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.cdlib.mrt.ingestqueue.queue.batches.Batches;
import org.cdlib.mrt.ingestqueue.queue.jobs.JobClaims;
import org.cdlib.mrt.ingestqueue.queue.lease.QueueHolds;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;

/**
 * A claimed item's whole cycle, in one place for every consumer, as Camel's file component takes
 * a file through its process strategy (begin, then commit, rollback or abort) and Curator's queue
 * applies the one code its consumer returns: {@link #begin} claims the item, {@link #commit}
 * applies what a route that ended normally decided, {@link #rollback} what a route's exception
 * means, {@link #abort} lets go of it unchanged. This is the only place a cycle's end is decided.
 * The answer tells the consumer when to look at the item again; the consumer only polls, runs, and
 * (for jobs) hands a job moved on with its lock to the next state's worker once the commit is done:
 * nothing here calls back into the consumer while a transaction is in flight.
 *
 * @param <L> the lock the item is held by
 * @param <O> what its route may decide ({@link JobOutcome} or {@link BatchOutcome})
 */
public abstract sealed class OutcomeStrategy<L, O> permits JobOutcomes, BatchOutcomes {
    protected final Moves moves;

    OutcomeStrategy(Moves moves) {
        this.moves = moves;
    }

    /**
     * For a consumer of {@code state}'s jobs: once {@code handingBack} (a stop ran out of time), a
     * failing step was interrupted by the stop, and its job is handed back unchanged.
     */
    public static JobOutcomes jobs(JobClaims claims, Moves moves, QueueHolds holds, JobState state,
            BooleanSupplier handingBack) {
        return new JobOutcomes(claims, moves, holds, state, handingBack);
    }

    public static BatchOutcomes batches(Batches batches, Moves moves, BatchState state) {
        return new BatchOutcomes(batches, moves, state);
    }

    /**
     * Claims several candidates of the state (job references or batch ids) for {@code worker}; each
     * element finishes one claim when called: the item locked and still in the state, empty when
     * someone else has it or it moved on (throws for its own candidate only).
     */
    public abstract List<Supplier<Optional<L>>> begin(List<String> candidates, String worker);

    /** The route ended normally having decided {@code outcome} (null: it decided nothing). */
    public abstract Applied commit(L lock, O outcome);

    /** The route ended with {@code failure}; {@code message} is the step's own message for it. */
    public abstract Applied rollback(L lock, Throwable failure, String message);

    /**
     * Lets go of an item unchanged (its outcome could not be applied, or it never ran), so it is taken
     * again; never throws.
     */
    public abstract void abort(L lock);

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
}
