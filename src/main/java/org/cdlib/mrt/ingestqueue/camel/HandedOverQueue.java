package org.cdlib.mrt.ingestqueue.camel;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Items handed over locked while every worker of a consumer was busy, started as workers free up:
 * a move then costs one request instead of a release here and a claim later. At most
 * {@code capacity} wait, in run order (a job reference names its priority first, then its id), so
 * a job of higher priority handed over later starts first. A queued item counts as arriving at
 * its {@link Workers}: its reference is left alone until it runs or is let go.
 */
final class HandedOverQueue {
    private final Workers workers;
    private final PriorityBlockingQueue<Queued> queued = new PriorityBlockingQueue<>(11,
            Comparator.comparing(Queued::id).thenComparingLong(Queued::seq));
    private final AtomicLong seq = new AtomicLong();
    private final Semaphore places;

    HandedOverQueue(int capacity, Workers workers) {
        this.workers = workers;
        this.places = new Semaphore(capacity);
    }

    /**
     * Reserves a place: a free one, else the place of the last queued item in run order when
     * {@code id} goes before it, else waits up to {@code waitMs} for one.
     */
    boolean reserve(String id, long waitMs) {
        try {
            if (!places.tryAcquire() && !displaceLast(id)
                    && !(waitMs > 0 && places.tryAcquire(waitMs, TimeUnit.MILLISECONDS))) {
                return false;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        workers.arriving(id, true);
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
        workers.arriving(last.id, false);
        last.letGo.run();
        return true;
    }

    void cancel(String id) {
        workers.arriving(id, false);
        places.release();
    }

    /** Queues an item handed over locked; {@code letGo} unlocks it if it is never run. */
    void add(String id, Runnable body, Runnable letGo) {
        queued.add(new Queued(id, seq.incrementAndGet(), body, letGo));
    }

    /** The queued item first in run order, or null. */
    String first() {
        Queued q = queued.peek();
        return q == null ? null : q.id;
    }

    /**
     * Starts queued items that go before {@code candidate} in run order (null: all of them) while
     * workers are free; one that cannot run (stopping) is let go.
     */
    void start(String candidate) {
        while (true) {
            Queued head = queued.peek();
            if (head == null || candidate != null && head.id.compareTo(candidate) >= 0 || !workers.reserve()) {
                return;
            }
            Queued q = queued.poll();
            if (q == null) {
                workers.unreserve(1);
                return;
            }
            places.release();
            if (!workers.run(q.id, q.body)) {
                q.letGo.run();
            }
        }
    }

    /**
     * Takes every queued item out; {@code unlock} lets go of their locks (a stop, a hold), false
     * when they went with a lost session. Returns their candidates.
     */
    List<String> drop(boolean unlock) {
        List<String> dropped = new ArrayList<>();
        for (Queued q = queued.poll(); q != null; q = queued.poll()) {
            workers.arriving(q.id, false);
            places.release();
            if (unlock) {
                q.letGo.run();
            }
            dropped.add(q.id);
        }
        return dropped;
    }

    private record Queued(String id, long seq, Runnable body, Runnable letGo) {
    }
}
