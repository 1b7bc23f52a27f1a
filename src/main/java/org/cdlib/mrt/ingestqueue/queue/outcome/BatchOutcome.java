package org.cdlib.mrt.ingestqueue.queue.outcome;

import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.StatusReport;

/**
 * What a batch route decided for the batch it was given, applied by the batches'
 * {@link OutcomeStrategy} once the route is done; decided once. A batch does not fail (its
 * depositor hears of trouble through a move to reporting): a job's {@link JobOutcome.Fail} is not
 * a batch's outcome.
 */
public sealed interface BatchOutcome {

    /** Moves to {@code to}, with the change's reason and the error it reports to the depositor (or none). */
    record Next(BatchState to, Change change) implements BatchOutcome {
    }

    /**
     * Stays where it is, unlocked, and is taken again after {@code delayMs}. Not an error:
     * {@code reason} is for the log.
     */
    record Stay(String reason, long delayMs) implements BatchOutcome {
    }

    /** Moves to {@code to} with its status report, written by the same transaction. */
    record Report(BatchState to, String reason, StatusReport report) implements BatchOutcome {
    }
}
