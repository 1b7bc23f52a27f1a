package org.cdlib.mrt.ingestqueue.camel;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.LoggingLevel;
import org.apache.camel.RuntimeCamelException;
import org.apache.camel.support.DefaultConsumer;
import org.apache.camel.support.LoggingExceptionHandler;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.cdlib.mrt.ingestqueue.queue.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.Damaged;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.StateView;
import org.cdlib.mrt.ingestqueue.queue.TransitionEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What both consumers share. One thread per endpoint (a {@link DispatchLoop}) waits for a
 * signal — a ZooKeeper watch firing, a local transition, a worker finishing — or the safety-net
 * re-scan, then claims as many candidates as it has free workers. There is no polling delay
 * between a job entering a state and a worker taking it.
 * <p>
 * Connection lost: no new work is taken. Session expired: the locks in hand are gone with it,
 * so the workers' transitions fail as stale and change nothing; Curator opens a new session
 * and the loop resumes with it.
 * <p>
 * A claimed item runs through the route with a {@link QueueOnCompletion} on its exchange, which
 * moves it by the outcome once the exchange is done. Trouble outside a route (a failed scan, an
 * outcome that could not be applied) goes to the consumer's exception handler, so the endpoint's
 * {@code bridgeErrorHandler} and {@code exceptionHandler} options work as for any consumer.
 *
 * @param <L> the lock type handed to a worker
 */
abstract class QueueConsumer<L> extends DefaultConsumer {
    private static final Logger LOG = LoggerFactory.getLogger(QueueConsumer.class);

    protected final ZkQueueEndpoint endpoint;
    protected final QueueStore store;
    private final Workers workers;
    private ExecutorService pool;
    private final Backlog backlog;
    private final DispatchLoop loop;
    private static final long MOVED_GRACE_MS = 2_000;
    private static final long DAMAGED_RETRY_MS = 30_000;
    private final CuratorWatcher watcher;
    private final QueueHold hold;
    private StateView view;
    private final ConnectionStateListener connectionListener = this::connectionChanged;
    private final java.util.function.Consumer<TransitionEvent> transitionListener = this::transitioned;
    private volatile boolean connected = true;
    private volatile boolean handingBack;
    private boolean folderFirst; // the dispatcher's alone
    private ExecutorService dispatcher;
    private java.util.Set<StepObserver> observers = java.util.Set.of();

    QueueConsumer(ZkQueueEndpoint endpoint, Processor processor) {
        super(endpoint, processor);
        this.endpoint = endpoint;
        this.store = endpoint.getComponent().store();
        this.hold = new QueueHold(store, this::wake);
        this.workers = new Workers(endpoint.getConcurrency(), store, this::idOf, this::wake);
        this.backlog = new Backlog(endpoint.queue().name(), this::idOf);
        this.loop = new DispatchLoop(this, backlog, endpoint.getRescan());
        this.watcher = event -> folderChanged();
        // the consumer's own WARN line tells the operator; the trace is there for debugging
        setExceptionHandler(new LoggingExceptionHandler(endpoint.getCamelContext(), getClass(), LoggingLevel.DEBUG));
    }

    /** The watched view of this consumer's state (job references or batch index entries). */
    protected abstract StateView openView();

    /** The id a view entry names (a job reference {@code PP-JID} stays as it is; claims take it whole). */
    protected List<String> candidates() {
        return view.snapshot();
    }

    /** The job or batch id a candidate names. */
    protected String idOf(String candidate) {
        return candidate;
    }

    /** Locks a candidate if nobody else has it and it is still in this consumer's state. */
    protected abstract Optional<L> claim(String id, String worker);

    /**
     * Claims several candidates; each element finishes one claim when called (and throws for its
     * own candidate only). Here one after another; a consumer that can send them all at once does.
     */
    protected List<java.util.function.Supplier<Optional<L>>> claimAll(List<String> ids, String worker) {
        return ids.stream().map(id -> (java.util.function.Supplier<Optional<L>>) () -> claim(id, worker)).toList();
    }

    /**
     * Watches the lock of a candidate that could not be claimed; false when it is not locked (the
     * candidate left the state, or its lock was released meanwhile).
     */
    protected abstract boolean watchLock(String id, CuratorWatcher watcher);

    /** Puts a claimed item on the exchange its route gets. */
    protected abstract void prepare(L lock, Exchange exchange);

    /**
     * Moves (or leaves) the item by how its exchange ended, {@code failed} with an exception on
     * it; returns true to try this item again after the retry delay.
     */
    protected abstract boolean applyOutcome(L lock, Exchange exchange, boolean failed);

    /** Lets go of an item whose outcome could not be applied, so it is taken again; never throws. */
    protected abstract void release(L lock);

    /** Whether a committed transition elsewhere in this process may have made work for us. */
    protected abstract boolean concerns(TransitionEvent event);

    protected final String name() {
        return endpoint.queue().name();
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        observers = getEndpoint().getCamelContext().getRegistry().findByType(StepObserver.class);
        pool = getEndpoint().getCamelContext().getExecutorServiceManager()
                .newFixedThreadPool(this, "zkqueue-" + name(), endpoint.getConcurrency());
        workers.start(pool);
        store.client().getConnectionStateListenable().addListener(connectionListener);
        store.addListener(transitionListener);
        view = openView().start(this::folderChanged);
        dispatcher = getEndpoint().getCamelContext().getExecutorServiceManager()
                .newSingleThreadExecutor(this, "zkqueue-" + name() + "-dispatch");
        dispatcher.execute(loop);
        store.health().workersStarted(name(), workers.figures());
    }

    /** Graceful: no new work is taken; work in hand runs to its transition before the consumer stops. */
    @Override
    protected void doStop() throws Exception {
        wake(); // the dispatcher sees the stop (isRunAllowed) and takes no new work
        store.health().workersStopped(name());
        store.removeListener(transitionListener);
        store.client().getConnectionStateListenable().removeListener(connectionListener);
        if (view != null) {
            view.close();
        }
        if (dispatcher != null) {
            getEndpoint().getCamelContext().getExecutorServiceManager().shutdownGraceful(dispatcher, 10_000);
        }
        letGoQueued("stopping");
        if (pool != null) {
            // work in hand gets the whole shutdown timeout (camel.main.shutdown-timeout) to reach its
            // transition; what cannot finish is handed back unchanged, never failed
            var strategy = getEndpoint().getCamelContext().getShutdownStrategy();
            long waitMs = Math.max(1000, strategy.getTimeUnit().toMillis(strategy.getTimeout()) - 2000);
            if (!workers.finish(waitMs)) {
                handingBack = true;
                List<String> left = workers.inHand();
                LOG.warn("zkqueue {}: shutdown timeout: handing back {} item(s) unchanged: {}", name(), left.size(), left);
                workers.interrupt();
            }
            getEndpoint().getCamelContext().getExecutorServiceManager().shutdownNow(pool);
        }
        super.doStop();
    }

    /** True once a stop ran out of time: a step that fails now was interrupted by the stop, not by its job. */
    protected final boolean handingBack() {
        return handingBack;
    }

    final void wake() {
        loop.wake();
    }

    private void connectionChanged(org.apache.curator.framework.CuratorFramework client, ConnectionState state) {
        connected = state.isConnected();
        if (state == ConnectionState.LOST || state == ConnectionState.RECONNECTED) {
            hold.forget(); // a new session has no watch of ours: read the hold again
        }
        if (state == ConnectionState.LOST && !workers.idle()) {
            // the locks went with the session: whatever the workers still do can no longer be
            // committed, and the jobs are free for any host (this one included) to take again
            List<String> lost = workers.inHand();
            LOG.warn("zkqueue {}: ZooKeeper session lost: abandoning {} item(s) in hand: {}", name(), lost.size(), lost);
            workers.abandonAll();
        }
        if (state == ConnectionState.LOST) {
            workers.dropQueued(false); // their locks went with the session too
        }
        if (!connected) {
            LOG.warn("zkqueue {}: ZooKeeper connection {}: taking no new work", name(), state);
        } else if (state == ConnectionState.RECONNECTED) {
            LOG.info("zkqueue {}: ZooKeeper reconnected: taking work again", name());
        }
        backlog.stale();
        wake();
    }

    private void transitioned(TransitionEvent event) {
        if (concerns(event)) {
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
    private void folderChanged() {
        backlog.stale();
        if (workers.anyFree()) {
            wake();
        }
    }

    /** Makes a pass if work may be taken now (connected, not suspended); false if it may not. */
    final boolean pass() {
        if (!connected || isSuspendingOrSuspended()) {
            if (connected) {
                letGoQueued("suspended");
            }
            return false;
        }
        claimWhatFits();
        if (view.problem() != null) {
            // the view could not be listed afresh: work goes on from what its events brought, the operator is told
            store.health().scanFailed(name(), view.problem());
        } else {
            store.health().scanSucceeded(name());
        }
        return true;
    }

    final void scanFailed(RuntimeException e, int failures, long delay) {
        store.health().scanFailed(name(), e.getMessage());
        LOG.warn("zkqueue {}: scan failed ({} in a row), retrying in {} ms: {}", name(), failures, delay, e.getMessage());
        handleException("zkqueue " + name() + ": scan failed", e);
    }

    /**
     * Claims as many candidates as there are free workers, all at once (see {@link #claimAll}),
     * then starts a worker for each claimed; repeats while claims that failed left workers free.
     */
    private void claimWhatFits() {
        if (hold.held()) {
            letGoQueued("held");
            return; // the hold's watch wakes us when it is lifted
        }
        // items handed over while every worker was busy and the folder's others take turns: neither starves
        folderFirst = !folderFirst;
        if (!folderFirst) {
            workers.startQueued();
        }
        claimFromFolder();
        workers.startQueued();
    }

    private void claimFromFolder() {
        var it = backlog.next(view, this::candidates, this::taken, endpoint.getRescan());
        String next = null;
        while (isRunAllowed()) {
            List<String> batch = new java.util.ArrayList<>();
            while (next != null || it.hasNext()) {
                String id = next != null ? next : it.next();
                next = null;
                if (taken(id) || backlog.waiting(id)) {
                    continue;
                }
                if (!workers.reserve()) {
                    next = batch.isEmpty() ? null : id; // tried again if a claim of this round fails
                    break;
                }
                it.remove();
                batch.add(id);
            }
            if (batch.isEmpty()) {
                return; // nothing to take, or no worker free: a finishing worker wakes us
            }
            start(batch);
        }
    }

    /** Whether this consumer has the candidate in hand, or is being handed it. */
    private boolean taken(String id) {
        return workers.taken(id);
    }

    /** Claims the batch (a worker reserved for each) and starts what was claimed; every claim is finished. */
    private void start(List<String> batch) {
        List<java.util.function.Supplier<Optional<L>>> claims;
        try {
            claims = claimAll(batch, workerName());
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
                store.damaged(new Damaged(endpoint.queue().isJob() ? "job" : "batch", idOf(id), e.path(), e.getMessage()));
                backlog.notBefore(id, System.currentTimeMillis() + DAMAGED_RETRY_MS);
                continue;
            } catch (RuntimeException e) {
                workers.unreserve(1);
                failure = failure == null ? e : failure; // the other claims are finished first: no lock is left behind
                continue;
            }
            LOG.debug("zkqueue {}: claim {}: {}", name(), id, lock.isPresent());
            if (lock.isEmpty()) {
                workers.unreserve(1);
                // someone holds it (another host, or a consumer of the state it just left): hear
                // when they let go; if they already did, look again in a moment
                if (!watchLock(id, watcher)) {
                    backlog.notBefore(id, System.currentTimeMillis() + 100);
                }
                continue;
            }
            L claimed = lock.get();
            if (!workers.run(id, () -> run(id, claimed))) {
                release(claimed); // stopping: let go of it unchanged
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Reserves a worker for an item another consumer of this process hands over with its lock;
     * false when none is free or no work may be taken now (stopping, disconnected, queue held).
     */
    final boolean reserveWorker(String id) {
        // its reference appears before it is handed over: the dispatcher leaves it alone
        return isRunAllowed() && !isSuspendingOrSuspended() && connected && hold.knownFree() && workers.reserveArriving(id);
    }

    /** Reserves a place in the queue of handed-over items when no worker is free; false under the same conditions. */
    final boolean reserveQueued(String id) {
        return isRunAllowed() && !isSuspendingOrSuspended() && connected && hold.knownFree() && workers.reserveQueued(id);
    }

    final void unreserveWorker(String id, boolean worker) {
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
    final void takeOver(String id, L lock, boolean worker) {
        if (!worker) {
            workers.enqueue(id, () -> run(id, lock), () -> release(lock));
            if (!isRunAllowed()) {
                workers.dropQueued(true); // the stop may have let go of the queue before this arrived
            }
            wake();
        } else if (!workers.run(id, () -> run(id, lock))) {
            release(lock); // stopping after all: let go of it unchanged, its folder's consumers take it
        }
    }

    /** Lets go of the items queued for a worker (unlocked, unchanged): whoever may take work takes them. */
    private void letGoQueued(String why) {
        List<String> dropped = workers.dropQueued(true);
        if (!dropped.isEmpty()) {
            LOG.info("zkqueue {}: {}: let go of {} item(s) waiting for a worker: {}", name(), why, dropped.size(), dropped);
            backlog.stale();
        }
    }

    private void run(String id, L lock) {
        QueueOnCompletion<L> item = new QueueOnCompletion<>(this, id, lock);
        item.run();
        if (item.retryLater()) {
            retryIn(id, endpoint.getRetryDelay());
        }
    }

    /** The outcome of a route could not be applied: the item stays where it is, the handler is told. */
    final void notMoved(String id, L lock, Exchange exchange, RuntimeException e) {
        LOG.error("zkqueue {}: {} not moved: {}", name(), id, e.toString());
        release(lock);
        handleException("zkqueue " + name() + ": " + id + " not moved", exchange, e);
    }

    /** An item let go unchanged is to be taken again as soon as a worker is free (its state is listed afresh). */
    protected final void lookAgainSoon() {
        backlog.stale();
    }

    /**
     * The item has just left this state by this consumer's own commit: its reference is gone, but
     * the view may list it until the deletion's event arrives, and a claim then would lock, read
     * and let go for nothing. Left alone for a moment.
     */
    protected final void movedOut(String id) {
        backlog.movedOn(id, System.currentTimeMillis() + MOVED_GRACE_MS);
    }

    /** The item stays where it is and is tried again after {@code ms}, not before. */
    protected final void retryIn(String id, long ms) {
        backlog.notBefore(id, System.currentTimeMillis() + ms);
    }

    final void stepEnded(String id, java.time.Duration took, boolean failed) {
        for (StepObserver o : observers) {
            o.stepEnded(name(), idOf(id), took, failed);
        }
    }

    /** The message an operator sees: the step's own, not Camel's wrapping. */
    protected static String messageOf(Throwable e) {
        Throwable t = e;
        while ((t instanceof RuntimeCamelException || t instanceof java.util.concurrent.ExecutionException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        String m = t.getMessage();
        return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
    }

    final String workerName() {
        return getRouteId() + "/" + name();
    }
}
