package org.cdlib.mrt.ingestqueue.api.http;

import java.util.List;

/** An answer other than success: the status and a message a person can act on. */
public final class ApiError extends RuntimeException {
    private final int status;
    private final List<String> allowed;

    public ApiError(int status, String message) {
        this(status, message, List.of());
    }

    public ApiError(int status, String message, List<String> allowed) {
        super(message);
        this.status = status;
        this.allowed = allowed;
    }

    public int status() {
        return status;
    }

    public List<String> allowed() {
        return allowed;
    }
}
