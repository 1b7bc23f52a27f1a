package org.cdlib.mrt.ingestqueue.fetch;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.time.Duration;

/**
 * The moment by which an exchange (or every attempt of a small read together) must be done,
 * and the key that sets it, named in the failure. A {@code retryable} deadline (the wait for a
 * download's response head) ends the attempt as a timeout, tried again like one; the probe's
 * deadline bounds all attempts, so passing it ends the read.
 */
record Deadline(long atNanos, String limit, boolean retryable) {

    static Deadline in(Duration d, String key, boolean retryable) {
        return new Deadline(System.nanoTime() + d.toNanos(), key + " (" + d + ")", retryable);
    }

    long remainingNanos() {
        return atNanos - System.nanoTime();
    }

    boolean passed() {
        return remainingNanos() <= 0;
    }

    /** The failure of an exchange with {@code at} that this deadline cut short. */
    IOException exceeded(URI at) {
        if (retryable) {
            return new SocketTimeoutException("no response head within " + limit);
        }
        return new FetchException(at + ": no complete answer within " + limit);
    }
}
