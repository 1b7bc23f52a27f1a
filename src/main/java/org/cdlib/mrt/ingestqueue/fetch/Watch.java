package org.cdlib.mrt.ingestqueue.fetch;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hc.core5.concurrent.Cancellable;

/**
 * Cancels an exchange when its time is up. HttpClient's classic API bounds each silence (the
 * socket timeout) but not an exchange's total time, so a server that sends a byte before each
 * timeout could hold a worker for days; cancelling the request closes its connection, which
 * ends the blocked read at once. One daemon thread serves every watch of the process.
 */
public final class Watch implements AutoCloseable {
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "answer-deadline");
        t.setDaemon(true);
        return t;
    });

    private final AtomicBoolean fired = new AtomicBoolean();
    private final ScheduledFuture<?> task;

    private Watch(Cancellable exchange, long delayNanos) {
        this.task = TIMER.schedule(() -> {
            fired.set(true);
            exchange.cancel();
        }, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    }

    /** Cancels {@code exchange} in {@code delayNanos} unless closed first. */
    public static Watch cancelling(Cancellable exchange, long delayNanos) {
        return new Watch(exchange, delayNanos);
    }

    /** Whether the time ran out (and the exchange was cancelled). */
    public boolean fired() {
        return fired.get();
    }

    @Override
    public void close() {
        task.cancel(false);
    }
}
