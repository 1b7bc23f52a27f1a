package org.cdlib.mrt.ingestqueue.history;

/** The history database could not be reached (down, full, refusing): the work stays in ZooKeeper. */
public final class HistoryUnavailableException extends RuntimeException {
    public HistoryUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
