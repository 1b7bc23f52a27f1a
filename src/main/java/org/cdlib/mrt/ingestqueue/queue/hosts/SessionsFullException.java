package org.cdlib.mrt.ingestqueue.queue.hosts;

import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;

/** Every session is in use: a login waits for one to end (or uses Basic authentication). */
public final class SessionsFullException extends QueueException {
    SessionsFullException(int max) {
        super("all " + max + " dashboard sessions are in use; log in again later (or use Basic authentication)");
    }
}
