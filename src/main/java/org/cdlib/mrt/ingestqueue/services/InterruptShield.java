package org.cdlib.mrt.ingestqueue.services;

import java.util.concurrent.CancellationException;
import java.util.function.Predicate;

/**
 * Keeps a cancel's interrupt out of a call that one interrupt would harm beyond its own run: H2
 * reads and writes a database through one {@code FileChannel}, and a thread interrupted inside
 * it closes the channel, and the database with it, for every connection (seen in the chaos test:
 * a host paused past its session had its runs cancelled, and every later recording failed).
 * <p>
 * A worker whose run may be cancelled keeps its thread's shield; while the thread is inside one,
 * a cancel holds its interrupt and the thread interrupts itself when it leaves. A call on a
 * thread already interrupted is refused before it starts.
 */
public final class InterruptShield {
    private static final ThreadLocal<InterruptShield> OF_THREAD = ThreadLocal.withInitial(InterruptShield::new);

    private int depth;
    private boolean held;

    private InterruptShield() {
    }

    /** The calling thread's shield, for whoever may interrupt the thread later. */
    public static InterruptShield ofThisThread() {
        return OF_THREAD.get();
    }

    /**
     * Enters the calling thread's shield; the answer closes it.
     *
     * @throws CancellationException the thread is interrupted already (its run was cancelled); the
     *                               interrupt stays set
     */
    public static Entered enter() {
        InterruptShield s = OF_THREAD.get();
        synchronized (s) {
            if (Thread.currentThread().isInterrupted()) {
                throw new CancellationException("interrupted: the run was cancelled before the inventory was called");
            }
            s.depth++;
        }
        return s::leave;
    }

    private void leave() {
        boolean interrupt;
        synchronized (this) {
            interrupt = --depth == 0 && held;
            if (interrupt) {
                held = false;
            }
        }
        if (interrupt) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Cancels the shield's thread's run by {@code cancel}, given whether it may interrupt the
     * thread now: not while the thread is inside, whose interrupt is then held for when it leaves
     * (when {@code cancel} answers that it cancelled a run still under way). Under the shield's
     * monitor, so the thread never enters between the look and the interrupt.
     */
    public synchronized boolean cancel(Predicate<Boolean> cancel) {
        boolean inside = depth > 0;
        boolean cancelled = cancel.test(!inside);
        held |= cancelled && inside;
        return cancelled;
    }

    /** An entered shield, left by {@link #close()}. */
    @FunctionalInterface
    public interface Entered extends AutoCloseable {
        @Override
        void close();
    }
}
