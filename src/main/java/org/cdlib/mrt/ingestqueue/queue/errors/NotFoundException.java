package org.cdlib.mrt.ingestqueue.queue.errors;


/** A job or batch id that the queue does not have. */
public class NotFoundException extends QueueException {
    public NotFoundException(String message) {
        super(message);
    }
}
