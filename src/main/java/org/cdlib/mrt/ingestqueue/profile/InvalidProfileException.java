package org.cdlib.mrt.ingestqueue.profile;

/** A profile that cannot be used; the message names the file, line and problem. */
public class InvalidProfileException extends RuntimeException {
    public InvalidProfileException(String message) {
        super(message);
    }
}
