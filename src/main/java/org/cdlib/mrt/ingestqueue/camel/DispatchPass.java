package org.cdlib.mrt.ingestqueue.camel;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.curator.framework.api.CuratorWatcher;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.errors.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionEvent;
import org.cdlib.mrt.ingestqueue.queue.model.Damaged;
import org.cdlib.mrt.ingestqueue.queue.zk.StateView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a consumer's dispatcher does in a pass: gives each free worker the next item in run order
 * (priority, then id) among those waiting for one: a candidate of its state's folder, claimed,
 * or an item handed over while every worker was busy, queued locked. Hears when the folder may
 * hold new work (its view, a local transition, a lock let go) and wakes the dispatcher for it
 * only when a worker is free.
 *
 * @param <L> the lock type handed to a worker
 */
final class DispatchPass<L> {
    // the consumer's lines keep the logger name they had before this class was split off it
    private static final Logger LOG = LoggerFactory.getLogger("org.cdlib.mrt.ingestqueue.camel.QueueConsumer");
    private static final long DAMAGED_RETRY_MS = 30_000;

    /** Where the candidates come from and how one is claimed: a job state's or a batch state's. */
    interface Source<L> {
        /** The watched view of the state (job references or batch index entries). */
        StateView view();

        /** The candidates the view lists now. */
        List<String> candidates();

        /** The job or batch id a candidate names. */
        String idOf(String candidate);

        /** "job" or "batch", for a damaged item's report. */
        String kind();

        /**
         * Claims several candidates; each element finishes one claim when called (and throws for
         * its own candidate only).
         */
        List<Supplier<Optional<L>>> claimAll(List<String> candidates, String worker);

        /** Watches the lock of a candidate that could not be claimed; false when it is not locked. */
        boolean watchLock(String candidate, CuratorWatcher watcher);

        /** Whether a committed transition elsewhere in this process may have made work here. */
        boolean concerns(TransitionEvent event);
    }

    private final String name;
    private final Supplier<String> worker;
    private final long rescanMs;
    private final Source<L> source;
    private final QueueStore store;
    private final SessionWatch session;
    private final HandOver<L> handOver;
    private final QueueHold hold;
    private final Workers workers;
    private final Backlog backlog;
    private final ConsumerCalls<L> calls;
    private final CuratorWatcher watcher = event -> folderChanged();
    /** The first candidate the last pass left in the folder for want of a worker; null when it left none. */
    private volatile String folderFirst;

    DispatchPass(
            String name,
            Supplier<String> worker,
            long rescanMs,
            Source<L> source,
            QueueStore store,
            SessionWatch session,
            HandOver<L> handOver,
            QueueHold hold,
            Workers workers,
            Backlog backlog,
            ConsumerCalls<L> calls) {
        this.name = name;
        this.worker = worker;
        this.rescanMs = rescanMs;
        this.source = source;
        this.store = store;
        this.session = session;
        this.handOver = handOver;
        this.hold = hold;
        this.workers = workers;
        this.backlog = backlog;
        this.calls = calls;
    }

    void transitioned(TransitionEvent event) {
        if (source.concerns(event)) {
            // an item moved here (or was repaired) in this process: whatever kept it waiting no longer holds
            backlog.clear(event.id());
            folderChanged();
        }
    }

    /**
     * The folder may hold new work: the next pass lists it afresh. The dispatcher is woken only
     * when a worker is free to take it; otherwise the next worker to finish wakes it (marked
     * stale first, so that wake sees the change). A busy state gets events on every transition,
     * and a pass that can take nothing would walk its backlog for nothing.
     */
    void folderChanged() {
        backlog.stale();
        if (workers.anyFree()) {
            calls.wake().run();
        }
    }

    /** Makes a pass if work may be taken now (connected, not suspended); false if it may not. */
    boolean make() {
        if (!session.connected() || calls.suspended().getAsBoolean()) {
            if (session.connected()) {
                handOver.letGoQueued("suspended");
            }
            return false;
        }
        claimWhatFits();
        StateView view = source.view();
        if (view.problem() != null) {
            // the view could not be listed afresh: work goes on from what its events brought, the operator is told
            store.health().scanFailed(name, view.problem());
        } else {
            store.health().scanSucceeded(name);
        }
        return true;
    }

    /**
     * Claims as many candidates as there are free workers, all at once (see
     * {@link Source#claimAll}), then starts a worker for each claimed; repeats while claims
     * that failed left workers free.
     */
    private void claimWhatFits() {
        if (hold.held()) {
            handOver.letGoQueued("held");
            return; // the hold's watch wakes us when it is lifted
        }
        // the folder's candidates and the queued items merged in run order: a job of higher
        // priority goes first wherever it waits, and an older one of equal priority
        claimFromFolder();
        workers.queued.start(null);
    }

    /**
     * Whether an item handed over now may take a free worker at once: nothing known to wait here
     * goes before it in run order. While the folder changed since it was last listed, the
     * dispatcher decides (the item is queued), so a job of higher priority that has just
     * arrived is not passed.
     */
    boolean firstInLine(String candidate) {
        String queued = workers.queued.first();
        String left = folderFirst;
        return (queued == null || queued.compareTo(candidate) > 0) && backlog.current()
                && (left == null || left.compareTo(candidate) > 0);
    }

    private void claimFromFolder() {
        var it = backlog.next(source.view(), source::candidates, workers::taken, rescanMs);
        String next = null;
        while (calls.running().getAsBoolean()) {
            List<String> batch = new ArrayList<>();
            while (next != null || it.hasNext()) {
                String id = next != null ? next : it.next();
                next = null;
                if (workers.taken(id) || backlog.waiting(id)) {
                    continue;
                }
                workers.queued.start(id); // the queued items that go before it take their workers first
                if (!workers.reserve()) {
                    folderFirst = id;
                    next = batch.isEmpty() ? null : id; // tried again if a claim of this round fails
                    break;
                }
                it.remove();
                batch.add(id);
            }
            if (batch.isEmpty()) {
                if (next == null && !it.hasNext()) {
                    folderFirst = null; // every candidate is taken or waits for its time
                }
                return; // nothing to take, or no worker free: a finishing worker wakes us
            }
            start(batch);
        }
    }

    /** Claims the batch (a worker reserved for each) and starts what was claimed; every claim is finished. */
    private void start(List<String> batch) {
        List<Supplier<Optional<L>>> claims;
        try {
            claims = source.claimAll(batch, worker.get());
        } catch (RuntimeException e) {
            workers.unreserve(batch.size());
            throw e;
        }
        RuntimeException failure = null;
        for (int i = 0; i < batch.size(); i++) {
            String id = batch.get(i);
            Optional<L> lock;
            try {
                lock = claims.get(i).get();
            } catch (CorruptNodeException e) {
                // one damaged job or batch harms no other: skip it, look again much later
                workers.unreserve(1);
                store.damaged(new Damaged(source.kind(), source.idOf(id), e.path(), e.getMessage()));
                backlog.notBefore(id, System.currentTimeMillis() + DAMAGED_RETRY_MS);
                continue;
            } catch (RuntimeException e) {
                workers.unreserve(1);
                failure = failure == null ? e : failure; // the other claims are finished first: no lock is left behind
                continue;
            }
            LOG.debug("zkqueue {}: claim {}: {}", name, id, lock.isPresent());
            if (lock.isEmpty()) {
                workers.unreserve(1);
                // someone holds it (another host, or a consumer of the state it just left): hear
                // when they let go; if they already did, look again in a moment
                if (!source.watchLock(id, watcher)) {
                    backlog.notBefore(id, System.currentTimeMillis() + 100);
                }
                continue;
            }
            L claimed = lock.get();
            if (!workers.run(id, () -> calls.run().accept(id, claimed))) {
                calls.abort().accept(claimed); // stopping: let go of it unchanged
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
