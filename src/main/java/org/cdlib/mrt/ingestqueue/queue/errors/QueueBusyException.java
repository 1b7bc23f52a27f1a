package org.cdlib.mrt.ingestqueue.queue.errors;


/**
 * A write that lost its race at a shared counter too many times in a row (many submitters at
 * once): nothing was written; the client should send the same again in a moment.
 */
public final class QueueBusyException extends QueueException {
    /** Seconds a client is asked to wait before it sends again (an HTTP answer's Retry-After). */
    public static final int RETRY_AFTER_SECONDS = 2;

    public QueueBusyException(String message) {
        super(message);
    }
}
