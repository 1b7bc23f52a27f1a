package org.cdlib.mrt.ingestqueue.camel;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.FutureTask;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.UnaryOperator;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.QueueHealth;
import org.cdlib.mrt.ingestqueue.services.InterruptShield;

/**
 * A consumer's workers: a worker is reserved before an item is claimed (or handed over by the
 * consumer of the state before), the item is then run on it and the worker is given back when
 * its thread returns, however the run ends (a cancelled run's thread may still be finishing). Knows what is in hand, what is arriving by hand-off, and how
 * long the workers were busy (the state's utilisation in {@code /metrics}).
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
    /**
     * Items handed over locked while every worker was busy, started as workers free up: a move
     * then costs one request instead of a release here and a claim later. At most
     * {@code capacity} wait, in run order (a job reference names its priority first, then its
     * id), so a job of higher priority handed over later starts first.
     */
    private final PriorityBlockingQueue<Queued> queued = new PriorityBlockingQueue<>(11,
            Comparator.comparing(Queued::id).thenComparingLong(Queued::seq));
    private final java.util.concurrent.atomic.AtomicLong queuedSeq = new java.util.concurrent.atomic.AtomicLong();
    private final Semaphore queueSlots;
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
        this.queueSlots = new Semaphore(capacity);
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

    void cancelArriving(String id) {
        arriving.remove(id);
        slots.release();
    }

    /**
     * Reserves a place in the queue of handed-over items: a free one, else the place of the last
     * queued item in run order when {@code id} goes before it, else waits up to {@code waitMs}
     * for one; its reference is left alone until it is let go.
     */
    boolean reserveQueued(String id, long waitMs) {
        try {
            if (!queueSlots.tryAcquire() && !displaceLast(id)
                    && !(waitMs > 0 && queueSlots.tryAcquire(waitMs, TimeUnit.MILLISECONDS))) {
                return false;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        arriving.add(id);
        return true;
    }

    /**
     * The queue is full: its last item in run order, when {@code id} goes before it, is let go
     * (unlocked, unchanged: claimed from the folder in its turn) and its place is {@code id}'s. A
     * job of higher priority so never waits behind lower ones for a place; the cost, a claim
     * later, is paid only when priorities differ.
     */
    private boolean displaceLast(String id) {
        Queued last = queued.stream().max(queued.comparator()).orElse(null); // at most capacity items
        if (last == null || last.id.compareTo(id) <= 0 || !queued.remove(last)) {
            return false;
        }
        arriving.remove(last.id);
        last.letGo.run();
        return true;
    }

    /** Time the calling worker spent waiting for the next state, not working: left out of its busy time. */
    static void waited(long nanos) {
        Work w = CURRENT.get();
        if (w != null) {
            w.waited += nanos; // only its own thread adds; end() reads it once the work has ended
        }
    }

    void cancelQueued(String id) {
        arriving.remove(id);
        queueSlots.release();
    }

    /** Queues an item handed over locked; {@code letGo} unlocks it if it is never run. */
    void enqueue(String id, Runnable body, Runnable letGo) {
        queued.add(new Queued(id, queuedSeq.incrementAndGet(), body, letGo));
    }

    /** The queued item first in run order, or null. */
    String firstQueued() {
        Queued q = queued.peek();
        return q == null ? null : q.id;
    }

    /**
     * Starts queued items that go before {@code candidate} in run order (null: all of them) while
     * workers are free; one that cannot run (stopping) is let go.
     */
    void startQueued(String candidate) {
        while (true) {
            Queued head = queued.peek();
            if (head == null || candidate != null && head.id.compareTo(candidate) >= 0 || !slots.tryAcquire()) {
                return;
            }
            Queued q = queued.poll();
            if (q == null) {
                slots.release();
                return;
            }
            queueSlots.release();
            if (!run(q.id, q.body)) {
                q.letGo.run();
            }
        }
    }

    /**
     * Takes every queued item out; {@code unlock} lets go of their locks (a stop, a hold), false
     * when they went with a lost session. Returns their candidates.
     */
    List<String> dropQueued(boolean unlock) {
        List<String> dropped = new java.util.ArrayList<>();
        for (Queued q = queued.poll(); q != null; q = queued.poll()) {
            arriving.remove(q.id);
            queueSlots.release();
            if (unlock) {
                q.letGo.run();
            }
            dropped.add(q.id);
        }
        return dropped;
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

    /** The session that locked them is gone: every run in hand is cancelled (interrupted). */
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
     * Interrupts what is still running and waits up to {@code waitMs} for it to hand its items back.
     * Each run is cancelled through its shield first, so one inside the inventory is interrupted
     * when its call returns (an interrupt in H2's file read closes the database that the other
     * consumers, still finishing, share); only what outlives the wait is interrupted directly.
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

    private record Queued(String id, long seq, Runnable body, Runnable letGo) {
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
        private final java.util.concurrent.atomic.AtomicBoolean ended = new java.util.concurrent.atomic.AtomicBoolean();
        /** Its thread's, once it runs: a cancel holds its interrupt while the thread is in the inventory. */
        private volatile InterruptShield shield;

        Work(String id, Runnable body) {
            super(body, null);
            this.id = id;
        }

        @Override
        public void run() {
            shield = InterruptShield.ofThisThread();
            CURRENT.set(this);
            try {
                super.run();
            } finally {
                CURRENT.remove();
                end();
            }
        }

        @Override
        public boolean cancel(boolean interrupt) {
            InterruptShield s = shield;
            return interrupt && s != null ? s.cancel(now -> super.cancel(now)) : super.cancel(interrupt);
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
