package org.cdlib.mrt.ingestqueue.queue.errors;


/** A submission that would pass the cap of open batches: the client should submit again later. */
public final class QueueFullException extends QueueException {
    public QueueFullException(String message) {
        super(message);
    }
}
