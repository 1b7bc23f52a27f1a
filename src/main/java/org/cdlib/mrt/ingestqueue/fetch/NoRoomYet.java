package org.cdlib.mrt.ingestqueue.fetch;

/**
 * A file does not fit on the working filesystem now (others filled it since its job was admitted): told before
 * its first byte is written, so the job waits and is tried again; not the depositor's failure, and what an earlier
 * attempt recorded for a resume is kept.
 */
public final class NoRoomYet extends FetchException {
    public NoRoomYet(String message) {
        super(message);
    }
}
