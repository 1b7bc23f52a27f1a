package org.cdlib.mrt.ingestqueue.camel;

import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dispatcher thread of a consumer: waits for a signal (a ZooKeeper watch firing, a local
 * transition, a worker finishing), the end of a wait in the backlog or the safety-net re-scan,
 * then makes a pass. A pass that throws is made again by a timer with a growing delay, not by the
 * next ZooKeeper event: no work waits for an unrelated change. Runs while the consumer may run.
 */
final class DispatchLoop implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(DispatchLoop.class);

    /** Told of a failed pass: its exception, how many failed in a row, and when the next comes (ms). */
    interface ScanFailed {
        void failed(RuntimeException e, int failures, long delayMs);
    }

    private final String name;
    private final BooleanSupplier running;
    private final DispatchPass<?> pass;
    private final Backlog backlog;
    private final long rescanMs;
    private final ScanFailed scanFailed;
    private final Object signal = new Object();
    private boolean dirty = true;
    private int failures;
    private volatile long retryAt;

    DispatchLoop(String name, BooleanSupplier running, DispatchPass<?> pass, Backlog backlog, long rescanMs,
                 ScanFailed scanFailed) {
        this.name = name;
        this.running = running;
        this.pass = pass;
        this.backlog = backlog;
        this.rescanMs = rescanMs;
        this.scanFailed = scanFailed;
    }

    void wake() {
        synchronized (signal) {
            dirty = true;
            signal.notifyAll();
        }
    }

    @Override
    public void run() {
        while (running.getAsBoolean()) {
            if (!awaitSignal()) {
                continue;
            }
            try {
                if (pass.make()) {
                    if (failures > 0) {
                        LOG.info("zkqueue {}: scanning again after {} failed scan(s)", name, failures);
                    }
                    failures = 0;
                }
            } catch (RuntimeException e) {
                failures++;
                long delay = Math.min(30_000, 250L << Math.min(7, failures));
                retryAt = System.currentTimeMillis() + delay;
                scanFailed.failed(e, failures, delay);
            }
        }
    }

    /** Waits for a signal, the next retry time or the re-scan period; false if stopping. */
    private boolean awaitSignal() {
        synchronized (signal) {
            long until = backlog.dueBy(System.currentTimeMillis() + rescanMs);
            if (retryAt > 0) {
                until = Math.min(until, retryAt);
            }
            while (!dirty && running.getAsBoolean() && System.currentTimeMillis() < until) {
                try {
                    signal.wait(Math.max(1, until - System.currentTimeMillis()));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            if (!dirty) {
                backlog.stale(); // the safety-net re-scan, or the retry after a failed scan
            }
            if (retryAt > 0 && System.currentTimeMillis() >= retryAt) {
                retryAt = 0;
            }
            dirty = false;
            return running.getAsBoolean();
        }
    }
}
