package org.cdlib.mrt.ingestqueue.queue.outcome;

import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;

/**
 * What a job route decided for the job it was given, applied by the jobs' {@link OutcomeStrategy}
 * once the route is done. A route decides once: a second decision is a programming error. What
 * only a batch may decide ({@link BatchOutcome.Report}) is not a job's outcome: it does not compile.
 */
public sealed interface JobOutcome {

    /** Moves on to {@code to} (null: the state's successor), writing {@code change} in the same transaction. */
    record Next(JobState to, Change change) implements JobOutcome {
    }

    /**
     * Stays where it is, unlocked, and is taken again after the consumer's retry delay. Not an
     * error: {@code reason} is for the log.
     */
    record Stay(String reason) implements JobOutcome {
    }

    /** Moves to failed with {@code message}, an expected failure already told in one line. */
    record Fail(String message) implements JobOutcome {
    }
}
