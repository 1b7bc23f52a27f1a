package org.cdlib.mrt.ingestqueue.fetch;

import java.io.IOException;

/**
 * A file of an object could not be fetched, checked or unpacked. The message names the file or
 * URL and the cause, since it becomes the job's {@code error_message}. Never retried.
 */
public class FetchException extends IOException {
    public FetchException(String message) {
        super(message);
    }

    public FetchException(String message, Throwable cause) {
        super(message, cause);
    }
}
