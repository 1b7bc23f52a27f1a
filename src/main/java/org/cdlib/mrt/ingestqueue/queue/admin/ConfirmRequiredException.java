package org.cdlib.mrt.ingestqueue.queue.admin;

import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;

/** An action that needs an explicit confirmation (deleting a job of a batch still worked on, breaking a lock). */
public final class ConfirmRequiredException extends QueueException {
    public ConfirmRequiredException(String message) {
        super(message);
    }
}
