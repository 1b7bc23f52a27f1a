package org.cdlib.mrt.ingestqueue.camel;

import org.apache.camel.Exchange;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.StatusReport;
import org.cdlib.mrt.ingestqueue.queue.outcome.BatchOutcome;

/**
 * What a {@code zkqueue:batch/<state>} consumer puts on an exchange. The body is the
 * {@link Batch}, the {@link HeldBatch} on the exchange's one property. A batch step says where
 * the batch goes with {@link #next} (or {@link #report}, the report written by the same
 * transaction), or that it stays a while with {@link #stay}, once; an exception, or a route that
 * decided nothing, leaves the batch where it is, unlocked, for a later attempt, and is logged.
 */
public final class BatchExchange {

    private BatchExchange() {
    }

    /** Puts a locked batch on the exchange (the consumer does; a test calling a step directly too). */
    public static void put(Exchange exchange, HeldBatch lock) {
        exchange.setProperty(Taken.PROPERTY, new Taken<HeldBatch, BatchOutcome>("batch " + lock.bid(), lock));
    }

    public static HeldBatch lock(Exchange exchange) {
        return taken(exchange).lock();
    }

    public static Batch batch(Exchange exchange) {
        return lock(exchange).batch();
    }

    public static void next(Exchange exchange, BatchState state, String reason) {
        taken(exchange).decide(new BatchOutcome.Next(state, Change.because(reason)));
    }

    /** The batch moves to {@code state} reporting {@code error} to its depositor (a refused submission). */
    public static void next(Exchange exchange, BatchState state, String reason, String error) {
        taken(exchange).decide(new BatchOutcome.Next(state, new Change(reason, null, null, error)));
    }

    /** The batch stays where it is, unlocked, and is taken again after {@code delayMs} (not an error). */
    public static void stay(Exchange exchange, String reason, long delayMs) {
        taken(exchange).decide(new BatchOutcome.Stay(reason, delayMs));
    }

    /** The batch moves to {@code state} with its status report, written by the same transaction. */
    public static void report(Exchange exchange, BatchState state, String reason, StatusReport report) {
        taken(exchange).decide(new BatchOutcome.Report(state, reason, report));
    }

    /** What the route decided, or null. */
    public static BatchOutcome outcome(Exchange exchange) {
        return taken(exchange).outcome();
    }

    /** The state the route chose for the batch, or null. */
    public static BatchState next(Exchange exchange) {
        BatchOutcome o = outcome(exchange);
        return o instanceof BatchOutcome.Next n ? n.to() : o instanceof BatchOutcome.Report r ? r.to() : null;
    }

    /** The error the batch's move reports to its depositor (a refused submission), or null. */
    public static String error(Exchange exchange) {
        return outcome(exchange) instanceof BatchOutcome.Next n ? n.change().errorMessage() : null;
    }

    /** This run created the batch's first jobs: the depositor's "queued" mail goes out. */
    public static void jobsQueued(Exchange exchange) {
        taken(exchange).jobsQueued(true);
    }

    public static boolean firstJobsQueued(Exchange exchange) {
        return taken(exchange).jobsQueued();
    }

    private static Taken<HeldBatch, BatchOutcome> taken(Exchange exchange) {
        return Taken.of(exchange, HeldBatch.class, "batch");
    }
}
