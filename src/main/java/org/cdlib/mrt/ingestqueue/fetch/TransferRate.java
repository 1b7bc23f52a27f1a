package org.cdlib.mrt.ingestqueue.fetch;

import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * The slowest a download may be ({@code ingest.download.min-rate} bytes a second, judged over each
 * {@code ingest.download.rate-window}): the read timeout alone lets a server that sends a byte
 * just before each timeout hold a download slot for ever. A body slower than this ends the
 * attempt as a timeout (retried like one).
 */
final class TransferRate {
    private final long minBytesPerSecond;
    private final long windowNanos;
    private final LongSupplier nanoTime;
    private long windowStart;
    private long inWindow;

    TransferRate(long minBytesPerSecond, Duration window, LongSupplier nanoTime) {
        this.minBytesPerSecond = minBytesPerSecond;
        this.windowNanos = window.toNanos();
        this.nanoTime = nanoTime;
        this.windowStart = nanoTime.getAsLong();
    }

    /** Counts {@code bytes} just read; refuses a window that has ended below the rate. */
    void add(long bytes) throws SocketTimeoutException {
        if (minBytesPerSecond <= 0) {
            return;
        }
        inWindow += bytes;
        long now = nanoTime.getAsLong();
        long elapsed = now - windowStart;
        if (elapsed < windowNanos) {
            return;
        }
        double seconds = elapsed / 1e9;
        if (inWindow < minBytesPerSecond * seconds) {
            throw new SocketTimeoutException(String.format(Locale.ROOT,
                    "the body came at %.0f bytes/s over %.0f s, below ingest.download.min-rate (%d bytes/s)",
                    inWindow / seconds, seconds, minBytesPerSecond));
        }
        windowStart = now;
        inWindow = 0;
    }
}
