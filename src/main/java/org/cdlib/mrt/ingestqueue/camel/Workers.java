package org.cdlib.mrt.ingestqueue.camel;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.UnaryOperator;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.QueueHealth;
import org.cdlib.mrt.ingestqueue.services.Run;

/**
 * A consumer's workers: a worker is reserved before an item is claimed (or handed over by the
 * consumer of the state before), the item is then run on it and the worker is given back when
 * its thread returns, however the run ends (a cancelled run's thread may still be finishing). Knows what is in hand,
 * what is arriving by hand-off, and how long the workers were busy (the state's utilisation in {@code /metrics}).
 */
final class Workers {
    private final int capacity;
    private final QueueStore store;
    private final UnaryOperator<String> idOf;
    private final Runnable onFree;
    private final Semaphore slots;
    /** What is worked on now, by candidate; cancelled when the session that locked them is lost. */
    private final Map<String, Work> inHand = new ConcurrentHashMap<>();
    /** Items another consumer of this process is handing over (committing now): not to be claimed. */
    private final Set<String> arriving = ConcurrentHashMap.newKeySet();
    /** Items handed over locked while every worker was busy, started as workers free up. */
    final HandedOverQueue queued;
    private final LongAdder busyNanos = new LongAdder();
    /** The work the calling thread runs, for {@link #waited}. */
    private static final ThreadLocal<Work> CURRENT = new ThreadLocal<>();
    private ExecutorService executor;
    /** The stop began: nothing more is started. */
    private volatile boolean stopped;

    /**
     * @param idOf   the job or batch id a candidate names (the store counts work in hand by it)
     * @param onFree runs whenever a worker is given back
     */
    Workers(int capacity, QueueStore store, UnaryOperator<String> idOf, Runnable onFree) {
        this.capacity = capacity;
        this.store = store;
        this.idOf = idOf;
        this.onFree = onFree;
        this.slots = new Semaphore(capacity);
        this.queued = new HandedOverQueue(capacity, this);
    }

    void start(ExecutorService executor) {
        this.executor = executor;
    }

    QueueHealth.Workers figures() {
        return new QueueHealth.Workers(() -> capacity - slots.availablePermits(), capacity, busyNanos::sum);
    }

    boolean anyFree() {
        return slots.availablePermits() > 0;
    }

    boolean reserve() {
        return slots.tryAcquire();
    }

    void unreserve(int n) {
        slots.release(n);
    }

    /** Reserves a worker for an item being handed over; its reference is left alone until it arrives. */
    boolean reserveArriving(String id) {
        if (!slots.tryAcquire()) {
            return false;
        }
        arriving.add(id);
        return true;
    }

    /** An item queued or let go from the queue of handed-over items: its reference is left alone, or no longer. */
    void arriving(String id, boolean is) {
        if (is) {
            arriving.add(id);
        } else {
            arriving.remove(id);
        }
    }

    void cancelArriving(String id) {
        arriving.remove(id);
        slots.release();
    }

    /** Time the calling worker spent waiting for the next state, not working: left out of its busy time. */
    static void waited(long nanos) {
        Work w = CURRENT.get();
        if (w != null) {
            w.waited += nanos; // only its own thread adds; end() reads it once the work has ended
        }
    }

    /** Whether the candidate is in hand, or arriving. */
    boolean taken(String id) {
        return inHand.containsKey(id) || arriving.contains(id);
    }

    /** From now on nothing is started: {@link #run} gives the worker back and answers false. */
    void stopTaking() {
        stopped = true;
    }

    /** Runs {@code body} for the candidate on its reserved worker; false (worker given back) when stopping. */
    boolean run(String id, Runnable body) {
        if (stopped) {
            arriving.remove(id);
            slots.release();
            return false;
        }
        Work work = new Work(id, body);
        inHand.put(id, work);
        arriving.remove(id);
        store.workStarted(idOf.apply(id));
        try {
            executor.execute(work);
            return true;
        } catch (RejectedExecutionException e) {
            work.ended.set(true);
            inHand.remove(id, work);
            store.workEnded(idOf.apply(id));
            slots.release();
            return false;
        }
    }

    boolean idle() {
        return inHand.isEmpty();
    }

    /** What is in hand now, by candidate. */
    List<String> inHand() {
        return List.copyOf(inHand.keySet());
    }

    /** The session that locked them is gone: every run in hand is cancelled ({@link Run#cancel}). */
    void abandonAll() {
        inHand.values().forEach(t -> t.cancel(true));
        inHand.clear();
    }

    /** Lets the runs in hand finish within {@code waitMs}; false when some did not. */
    boolean finish(long waitMs) throws InterruptedException {
        executor.shutdown();
        return executor.awaitTermination(waitMs, TimeUnit.MILLISECONDS);
    }

    /**
     * Cancels what is still running and waits up to {@code waitMs} for it to hand its items back.
     * Each run is cancelled through its {@link Run}, so one inside the inventory is interrupted
     * when its call returns (an interrupt in H2's file read closes the database that the other
     * consumers, still finishing, share); only what outlives the wait is interrupted directly, by
     * the pool's {@code shutdownNow}.
     */
    void interrupt(long waitMs) throws InterruptedException {
        List.copyOf(inHand.values()).forEach(w -> w.cancel(true));
        boolean ended = executor.awaitTermination(waitMs, TimeUnit.MILLISECONDS);
        for (Runnable never : executor.shutdownNow()) {
            if (never instanceof Work w) {
                w.end(); // queued behind a busy thread and dropped by the stop: its worker is given back
            }
        }
        if (!ended) {
            executor.awaitTermination(Math.min(waitMs, 1_000), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * One item being worked on. Cancelled (its session lost), it is no longer in hand at once, so
     * its job may be claimed again; its worker is given back when its thread returns, however the
     * run ends, so no more runs than workers are ever under way.
     */
    private final class Work extends FutureTask<Void> {
        private final String id;
        private final long since = System.nanoTime();
        private volatile long waited;
        private final AtomicBoolean ended = new AtomicBoolean();
        /** Its run, once its thread runs it: what a cancel cancels. */
        private volatile Run run;

        Work(String id, Runnable body) {
            super(body, null);
            this.id = id;
        }

        @Override
        public void run() {
            Run r = Run.begin();
            run = r;
            CURRENT.set(this);
            try {
                super.run();
            } finally {
                CURRENT.remove();
                end();
                r.end(); // the one place a run is cleared: nothing of it reaches the thread's next item
            }
        }

        /**
         * No longer in hand at once; with {@code interrupt}, its run is cancelled, which interrupts
         * its thread (FutureTask's own interrupt is never used: it knows nothing of the inventory).
         */
        @Override
        public boolean cancel(boolean interrupt) {
            boolean cancelled = super.cancel(false);
            Run r = run;
            if (cancelled && interrupt && r != null) {
                r.cancel();
            }
            return cancelled;
        }

        @Override
        protected void done() {
            inHand.remove(id, this);
        }

        /** Once, on its thread's return (or when it is never run: rejected, or dropped by a stop). */
        void end() {
            if (!ended.compareAndSet(false, true)) {
                return;
            }
            // the busy-seconds counter only grows: a wait is left out when the work ends, not subtracted before
            busyNanos.add(Math.max(0, System.nanoTime() - since - waited));
            inHand.remove(id, this);
            store.workEnded(idOf.apply(id));
            slots.release();
            onFree.run();
        }
    }
}
