package org.cdlib.mrt.ingestqueue.services;

import java.io.IOException;

/** An outside service refused or could not be reached; the message names the service, URL and cause. */
public class ServiceException extends IOException {
    public ServiceException(String message) {
        super(message);
    }

    public ServiceException(String message, Throwable cause) {
        super(message, cause);
    }
}
