package org.cdlib.mrt.ingestqueue.camel;

import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiving end of a hand-off: another consumer of this process moves an item into this
 * consumer's state keeping its lock, and the item goes to a worker reserved for it here, or
 * waits locked in the short queue for the next free one. A consumer that may take no work (a
 * stop, a suspension, a hold) lets go of that queue so whoever may take work takes the items.
 *
 * @param <L> the lock type handed to a worker
 */
final class HandOver<L> {
    // the consumer's lines keep the logger name they had before this class was split off it
    private static final Logger LOG = LoggerFactory.getLogger("org.cdlib.mrt.ingestqueue.camel.QueueConsumer");

    private final String name;
    private final Supplier<String> worker;
    private final long waitMs;
    private final Workers workers;
    private final Backlog backlog;
    private final BooleanSupplier running;
    private final BooleanSupplier mayTakeWork;
    private final BiConsumer<String, L> run;
    private final Consumer<L> abort;
    private final Runnable wake;
    private final Predicate<String> firstInLine;

    /**
     * @param worker      the name a handed lock is renamed for
     * @param waitMs      how long a handing worker waits for a place in the queue ({@code handOffWait})
     * @param firstInLine whether nothing waiting here goes before a candidate (else it is queued, in run order)
     */
    HandOver(String name, Supplier<String> worker, long waitMs, Workers workers, Backlog backlog,
             ConsumerCalls<L> calls, Predicate<String> firstInLine) {
        this.name = name;
        this.firstInLine = firstInLine;
        this.worker = worker;
        this.waitMs = waitMs;
        this.workers = workers;
        this.backlog = backlog;
        this.running = calls.running();
        this.mayTakeWork = calls.mayTakeWork();
        this.run = calls.run();
        this.abort = calls.abort();
        this.wake = calls.wake();
    }

    /**
     * A place for an item another consumer of this process hands over with its lock: a free
     * worker when nothing waiting here goes before it, else a place in the queue of handed-over
     * items (started in run order, merged with the folder's), waiting up to {@code handOffWait}
     * for one (the handing worker waits instead of leaving the job in the folder, where it would
     * cost a claim later and the claims would slow this state further). Null when there is none,
     * or no work may be taken now (stopping, suspended, disconnected, queue held).
     */
    Place reserve(String id) {
        // its reference appears before it is handed over: the dispatcher leaves it alone
        if (mayTakeWork.getAsBoolean() && firstInLine.test(id) && workers.reserveArriving(id)) {
            return new Reserved(id, true);
        }
        long since = System.nanoTime();
        boolean queued = mayTakeWork.getAsBoolean() && workers.queued.reserve(id, waitMs);
        Workers.waited(System.nanoTime() - since); // the handing worker waited, it did not work
        if (!queued) {
            return null;
        }
        if (!mayTakeWork.getAsBoolean()) { // stopped, suspended, held or disconnected while it waited
            workers.queued.cancel(id);
            return null;
        }
        return new Reserved(id, false);
    }

    /** Lets go of the items queued for a worker (unlocked, unchanged): whoever may take work takes them. */
    void letGoQueued(String why) {
        List<String> dropped = workers.queued.drop(true);
        if (!dropped.isEmpty()) {
            LOG.info("zkqueue {}: {}: let go of {} item(s) waiting for a worker: {}", name, why, dropped.size(),
                    dropped);
            backlog.stale();
        }
    }

    /**
     * A place reserved at the next state's consumer before the commit that moves a job there: the
     * commit keeps the lock for its {@link #worker}, and once it is done the job is taken there, or
     * the place is given back.
     */
    interface Place {
        /** The worker the job's lock is renamed for. */
        String worker();

        /** The move failed or did not keep the lock: the place is given back. */
        void cancel();

        /** The move committed keeping the lock: the job runs there (or waits for its next free worker). */
        void take(HeldJob lock);
    }

    /** A reserved worker ({@code worker}) or place in the queue. */
    private final class Reserved implements Place {
        private final String id;
        private final boolean onWorker;

        Reserved(String id, boolean onWorker) {
            this.id = id;
            this.onWorker = onWorker;
        }

        @Override
        public String worker() {
            return worker.get();
        }

        @Override
        public void cancel() {
            if (onWorker) {
                workers.cancelArriving(id);
            } else {
                workers.queued.cancel(id);
            }
        }

        /** Runs the handed-over item, locked, on its reserved worker, or queues it for the next free one. */
        @Override
        @SuppressWarnings("unchecked") // only job consumers are handed items, and only jobs
        public void take(HeldJob handed) {
            L lock = (L) handed;
            String ref = handed.job().refName();
            if (!onWorker) {
                workers.queued.add(ref, () -> run.accept(ref, lock), () -> abort.accept(lock));
                if (!running.getAsBoolean()) {
                    workers.queued.drop(true); // the stop may have let go of the queue before this arrived
                }
                wake.run();
            } else if (!workers.run(ref, () -> run.accept(ref, lock))) {
                abort.accept(lock); // stopping after all: let go of it unchanged, its folder's consumers take it
            }
        }
    }
}
