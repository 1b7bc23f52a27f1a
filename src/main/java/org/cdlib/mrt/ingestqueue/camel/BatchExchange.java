package org.cdlib.mrt.ingestqueue.camel;

import org.apache.camel.Exchange;
import org.cdlib.mrt.ingestqueue.queue.Batch;
import org.cdlib.mrt.ingestqueue.queue.BatchLock;
import org.cdlib.mrt.ingestqueue.queue.BatchState;
import org.cdlib.mrt.ingestqueue.queue.StatusReport;

/**
 * What a {@code zkqueue:batch/<state>} consumer puts on an exchange. The body is the
 * {@link Batch}, the {@link BatchLock} a property. A batch step says where the batch goes
 * with {@link #next} (and may add the report written by the same transaction); an exception
 * leaves the batch where it is, unlocked, for a later attempt, and is logged.
 */
public final class BatchExchange {
    public static final String LOCK = "ingestqueue.batchLock";
    public static final String NEXT = "ingestqueue.batchNext";
    public static final String REASON = "ingestqueue.batchReason";
    public static final String REPORT = "ingestqueue.batchReport";
    public static final String ERROR = "ingestqueue.batchError";
    public static final String STAY = "ingestqueue.batchStay";
    public static final String STAY_DELAY = "ingestqueue.batchStayDelay";
    /** Set when this run created the batch's first jobs: the depositor's "queued" mail goes out. */
    public static final String QUEUED = "ingestqueue.batchQueued";

    private BatchExchange() {
    }

    public static BatchLock lock(Exchange exchange) {
        BatchLock lock = exchange.getProperty(LOCK, BatchLock.class);
        if (lock == null) {
            throw new IllegalStateException("no batch on this exchange: the route must start from a zkqueue:batch consumer");
        }
        return lock;
    }

    public static Batch batch(Exchange exchange) {
        return lock(exchange).batch();
    }

    public static void next(Exchange exchange, BatchState state, String reason) {
        exchange.setProperty(NEXT, state);
        exchange.setProperty(REASON, reason);
    }

    /** The batch stays where it is, unlocked, and is taken again after {@code delayMs} (not an error). */
    public static void stay(Exchange exchange, String reason, long delayMs) {
        exchange.setProperty(STAY, reason);
        exchange.setProperty(STAY_DELAY, delayMs);
    }

    public static void report(Exchange exchange, StatusReport report) {
        exchange.setProperty(REPORT, report);
    }

    public static void error(Exchange exchange, String message) {
        exchange.setProperty(ERROR, message);
    }
}
