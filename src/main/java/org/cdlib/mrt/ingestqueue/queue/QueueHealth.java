package org.cdlib.mrt.ingestqueue.queue;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Whether the consumers can read the queue: each consumer reports its scans here, and
 * {@code /api/health} answers DOWN, naming the consumer and the error, while any scan fails.
 */
public final class QueueHealth {
    public record Problem(String message, Instant since) {
    }

    private final Map<String, Problem> failing = new ConcurrentHashMap<>();

    public void scanFailed(String consumer, String message) {
        failing.compute(consumer, (k, old) -> new Problem(message, old == null ? Instant.now() : old.since()));
    }

    public void scanSucceeded(String consumer) {
        failing.remove(consumer);
    }

    /** The consumers whose last scan failed, by name. */
    public Map<String, Problem> problems() {
        return new TreeMap<>(failing);
    }
}
