package org.cdlib.mrt.ingestqueue.queue.model;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

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

    /**
     * A consumer's workers, for {@code /metrics}: how many are busy now, how many it has, and the
     * time they have spent busy in all (its rate over the capacity is the state's utilisation).
     */
    public record Workers(IntSupplier busy, int capacity, LongSupplier busyNanos) {
    }

    private final Map<String, Workers> workers = new ConcurrentHashMap<>();

    public void workersStarted(String consumer, Workers w) {
        workers.put(consumer, w);
    }

    public void workersStopped(String consumer) {
        workers.remove(consumer);
    }

    /** The running consumers' workers, by name. */
    public Map<String, Workers> workers() {
        return new TreeMap<>(workers);
    }

    /** The consumers whose last scan failed, by name. */
    public Map<String, Problem> problems() {
        return new TreeMap<>(failing);
    }
}
