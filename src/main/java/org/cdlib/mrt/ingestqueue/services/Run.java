package org.cdlib.mrt.ingestqueue.services;

import java.io.InterruptedIOException;
import java.util.concurrent.CancellationException;
import org.cdlib.mrt.ingestqueue.fetch.RunCancelled;
import org.cdlib.mrt.ingestqueue.queue.errors.LeaseLapsedException;

/**
 * One item's run on a worker, and all its cancellation: the cancel flag, the interrupt behind
 * it, and the deadline of its next fenced call. The worker begins it on its thread when the run
 * starts and ends it when the run's thread returns, however the run ends: the one place the run
 * is cleared, so nothing it held (a deadline armed and never used, a cancel's interrupt) reaches
 * the next item on that thread. Steps and services find it as the thread's run ({@link #current}):
 * HttpClient and the inventory are called without the exchange.
 * <p>
 * A cancel (the session lost, a stop out of time) interrupts the run's thread, so a blocking
 * call (a download, a wait, a ZooKeeper call) ends; the run is the only one that sets and
 * clears that interrupt. A cancel that comes while the run is inside a {@link #shielded}
 * call is held until the call returns: H2 reads and writes a database through one
 * {@code FileChannel}, and a thread interrupted inside it closes the channel, and the database
 * with it, for every connection (seen in the chaos test: a host paused past its session had its
 * runs cancelled, and every later recording failed).
 */
public final class Run {
    private static final ThreadLocal<Run> OF_THREAD = new ThreadLocal<>();

    static {
        RunCancelled.answeredBy(Run::cancelledHere); // fetch refuses to send for a cancelled run
    }

    private final Thread thread = Thread.currentThread();
    /** The run's thread only: the next fenced call goes out before this {@link System#nanoTime} or not at all. */
    private Long sendBy;
    // the rest under this run's monitor: a cancel from another thread never interrupts between a look and an act
    private boolean cancelled;
    private boolean ended;
    private int shieldDepth;
    private boolean interruptHeld;

    private Run() {
    }

    /** Begins a run on the calling thread (the worker does, as its item's run starts). */
    public static Run begin() {
        Run run = new Run();
        OF_THREAD.set(run);
        return run;
    }

    /**
     * The calling thread's run.
     *
     * @throws IllegalStateException no run was begun on this thread: a fenced call is made only in a worker's run
     */
    public static Run current() {
        Run run = OF_THREAD.get();
        if (run == null) {
            throw new IllegalStateException("no run on this thread: a job's steps run on a worker (Run.begin)");
        }
        return run;
    }

    /**
     * The run ends (its thread returns): it is no longer the thread's, its deadline is forgotten,
     * and the interrupt its cancel set is cleared. Nothing is cancelled after this.
     */
    public void end() {
        synchronized (this) {
            ended = true;
            interruptHeld = false;
            if (cancelled && thread == Thread.currentThread()) {
                Thread.interrupted();
            }
        }
        sendBy = null;
        if (OF_THREAD.get() == this) {
            OF_THREAD.remove();
        }
    }

    /**
     * Cancels the run (once, while it is under way): its thread is interrupted now, or, inside a
     * shielded call, when the call returns. Answers whether this call cancelled it.
     */
    public synchronized boolean cancel() {
        if (ended || cancelled) {
            return false;
        }
        cancelled = true;
        if (shieldDepth > 0) {
            interruptHeld = true;
        } else {
            thread.interrupt();
        }
        return true;
    }

    public synchronized boolean cancelled() {
        return cancelled;
    }

    /**
     * Whether the calling thread's run was cancelled (false outside a run): a request not yet
     * written is then not written (a cancel held by a {@link #shielded} call has not interrupted yet).
     */
    public static boolean cancelledHere() {
        Run run = OF_THREAD.get();
        return run != null && run.cancelled();
    }

    /**
     * The fence: this run's next fenced call goes out before {@code nanoTime} (the lease's
     * {@code verifyHeldUntil}) or not at all.
     */
    public void sendBy(long nanoTime) {
        sendBy = nanoTime;
    }

    /**
     * Just before a call is written ({@link SendDeadline}): throws when the calling thread's run
     * has a deadline and it has passed. The deadline is used once, by the call that follows its
     * fence; a call the fence did not arm, or made outside a run, is not checked.
     */
    public static void checkSend(String what) throws InterruptedIOException {
        Run run = OF_THREAD.get();
        Long deadline = run != null ? run.sendBy : null;
        if (run != null) {
            run.sendBy = null;
        }
        if (deadline != null && System.nanoTime() - deadline > 0) {
            String message = what + " not sent: this worker's hold on its job was confirmed too long ago (the host was"
                    + " paused?); the job stays where it is and its step is tried again, from the fence";
            // the cause is what routes/error-handling.yaml matches: the queue's trouble, the job stays (not failed)
            InterruptedIOException e = new InterruptedIOException(message);
            e.initCause(new LeaseLapsedException(message));
            throw e;
        }
    }

    /**
     * Enters a call that a cancel's interrupt must not reach (the inventory's database); the
     * answer leaves it. Outside a run only the thread's own interrupt is looked at.
     *
     * @throws CancellationException the run was cancelled, or the thread interrupted, before the
     *                               call began; the interrupt stays set
     */
    public static Shielded shielded() {
        Run run = OF_THREAD.get();
        if (run == null) {
            refuseIfInterrupted();
            return () -> { };
        }
        synchronized (run) {
            refuseIfInterrupted();
            run.shieldDepth++;
        }
        return run::leaveShield;
    }

    private static void refuseIfInterrupted() {
        if (Thread.currentThread().isInterrupted()) {
            throw new CancellationException("interrupted: the run was cancelled before the inventory was called");
        }
    }

    private void leaveShield() {
        boolean interrupt;
        synchronized (this) {
            interrupt = --shieldDepth == 0 && interruptHeld;
            interruptHeld &= !interrupt;
        }
        if (interrupt) {
            thread.interrupt(); // the cancel held while inside reaches the run now
        }
    }

    /** A shielded call, left by {@link #close()}. */
    @FunctionalInterface
    public interface Shielded extends AutoCloseable {
        @Override
        void close();
    }
}
