package org.cdlib.mrt.ingestqueue.fetch;

/**
 * A request to a payload server not sent because the service is stopping: it waited for a
 * connection, or for a retry, or had not begun. Not the job's failure: its step leaves the job
 * where it is, to be fetched after the start.
 */
public final class StoppingException extends FetchException {
    StoppingException(String what) {
        super(what + ": not sent: the service is stopping");
    }
}
