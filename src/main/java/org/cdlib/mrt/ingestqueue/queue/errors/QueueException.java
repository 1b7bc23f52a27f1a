package org.cdlib.mrt.ingestqueue.queue.errors;

/** Base of the queue's own errors; each message says what was refused and why. */
public class QueueException extends RuntimeException {
    public QueueException(String message) {
        super(message);
    }

    public QueueException(String message, Throwable cause) {
        super(message, cause);
    }
}
