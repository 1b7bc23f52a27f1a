package org.cdlib.mrt.ingestqueue.config;

/** The service cannot start (no usable profile, ZooKeeper unreachable, a bad setting); the message says why. */
public final class StartupException extends IllegalStateException {
    public StartupException(String message) {
        super(message);
    }

    public StartupException(String message, Throwable cause) {
        super(message, cause);
    }
}
