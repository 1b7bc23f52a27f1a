package org.cdlib.mrt.ingestqueue.camel;

import java.util.List;
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
    private static final Logger LOG = LoggerFactory.getLogger(QueueConsumer.class);

    private final QueueConsumer<L> consumer;
    private final SessionWatch session;
    private final QueueHold hold;
    private final Workers workers;
    private final Backlog backlog;

    HandOver(QueueConsumer<L> consumer, SessionWatch session, QueueHold hold, Workers workers, Backlog backlog) {
        this.consumer = consumer;
        this.session = session;
        this.hold = hold;
        this.workers = workers;
        this.backlog = backlog;
    }

    /**
     * Reserves a worker for an item another consumer of this process hands over with its lock;
     * false when none is free or no work may be taken now (stopping, disconnected, queue held).
     */
    boolean reserveWorker(String id) {
        // its reference appears before it is handed over: the dispatcher leaves it alone
        return mayTakeWork() && workers.reserveArriving(id);
    }

    /**
     * Reserves a place in the queue of handed-over items when no worker is free, waiting up to the
     * endpoint's {@code handOffWait} for one: the handing worker waits instead of leaving the job
     * in the folder, where it would cost a claim (lock create and read) later and the claims would
     * slow this state further. False under the same conditions as {@link #reserveWorker}.
     */
    boolean reserveQueued(String id) {
        if (!mayTakeWork() || !workers.reserveQueued(id, consumer.endpoint.getHandOffWait())) {
            return false;
        }
        if (!mayTakeWork()) { // stopped, suspended, held or disconnected while it waited
            workers.cancelQueued(id);
            return false;
        }
        return true;
    }

    private boolean mayTakeWork() {
        return consumer.isRunAllowed() && !consumer.isSuspendingOrSuspended() && session.connected() && hold.knownFree();
    }

    void unreserveWorker(String id, boolean worker) {
        if (worker) {
            workers.cancelArriving(id);
        } else {
            workers.cancelQueued(id);
        }
    }

    /**
     * Runs a handed-over item, locked, on the worker {@link #reserveWorker} reserved, or queues it
     * for the next free worker when {@link #reserveQueued} reserved its place.
     */
    void takeOver(String id, L lock, boolean worker) {
        if (!worker) {
            workers.enqueue(id, () -> consumer.run(id, lock), () -> consumer.release(lock));
            if (!consumer.isRunAllowed()) {
                workers.dropQueued(true); // the stop may have let go of the queue before this arrived
            }
            consumer.wake();
        } else if (!workers.run(id, () -> consumer.run(id, lock))) {
            consumer.release(lock); // stopping after all: let go of it unchanged, its folder's consumers take it
        }
    }

    /** Lets go of the items queued for a worker (unlocked, unchanged): whoever may take work takes them. */
    void letGoQueued(String why) {
        List<String> dropped = workers.dropQueued(true);
        if (!dropped.isEmpty()) {
            LOG.info("zkqueue {}: {}: let go of {} item(s) waiting for a worker: {}", consumer.name(), why, dropped.size(), dropped);
            backlog.stale();
        }
    }
}
