package org.cdlib.mrt.ingestqueue.queue.errors;


/** Someone else holds the lock; the message names the owner. */
public class LockedException extends QueueException {
    public LockedException(String message) {
        super(message);
    }
}
