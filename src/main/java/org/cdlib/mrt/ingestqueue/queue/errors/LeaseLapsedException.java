package org.cdlib.mrt.ingestqueue.queue.errors;


/**
 * A fenced call was not sent: the worker's hold on its job was confirmed too long before the
 * send (the host was paused, or stalled). The lease may still be this worker's, so the job is let
 * go where it is (a release that deletes only this lease's own node) and tried again from its fence.
 */
public class LeaseLapsedException extends QueueException {
    public LeaseLapsedException(String message) {
        super(message);
    }
}
