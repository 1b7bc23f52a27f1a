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
 * <p>
 * The parts: a {@link DispatchPass} claims, a {@link HandOver} receives items handed over by the
 * consumer of the state before, a {@link SessionWatch} follows the connection; this class starts
 * and stops them and runs each item through its route.
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
    private final SessionWatch session;
    private final HandOver<L> handOver;
    private final DispatchPass<L> dispatch;
    private StateView view;
    private final java.util.function.Consumer<TransitionEvent> transitionListener;
    private volatile boolean handingBack;
    private ExecutorService dispatcher;
    private java.util.Set<StepObserver> observers = java.util.Set.of();

    QueueConsumer(ZkQueueEndpoint endpoint, Processor processor) {
        super(endpoint, processor);
        this.endpoint = endpoint;
        this.store = endpoint.getComponent().store();
        QueueHold hold = new QueueHold(store, this::wake);
        this.workers = new Workers(endpoint.getConcurrency(), store, this::idOf, this::wake);
        this.backlog = new Backlog(endpoint.queue().name(), this::idOf);
        this.session = new SessionWatch(name(), hold, workers, backlog, this::wake);
        this.handOver = new HandOver<>(this, session, hold, workers, backlog);
        this.dispatch = new DispatchPass<>(this, session, handOver, hold, workers, backlog);
        this.transitionListener = dispatch::transitioned;
        this.loop = new DispatchLoop(this, dispatch, backlog, endpoint.getRescan());
        // the consumer's own WARN line tells the operator; the trace is there for debugging
        setExceptionHandler(new LoggingExceptionHandler(endpoint.getCamelContext(), getClass(), LoggingLevel.DEBUG));
    }

    /** The watched view of this consumer's state (job references or batch index entries). */
    protected abstract StateView openView();

    /** Time this consumer's worker waited for a place in the next state's queue: not counted as busy. */
    void waitedForNext(long nanos) {
        workers.waited(nanos);
    }

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
        store.client().getConnectionStateListenable().addListener(session);
        store.addListener(transitionListener);
        view = openView().start(dispatch::folderChanged);
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
        store.client().getConnectionStateListenable().removeListener(session);
        if (view != null) {
            view.close();
        }
        if (dispatcher != null) {
            getEndpoint().getCamelContext().getExecutorServiceManager().shutdownGraceful(dispatcher, 10_000);
        }
        handOver.letGoQueued("stopping");
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

    /** Where the consumer of the state before hands this one an item with its lock. */
    final HandOver<L> handOver() {
        return handOver;
    }

    final StateView view() {
        return view;
    }

    final void scanFailed(RuntimeException e, int failures, long delay) {
        store.health().scanFailed(name(), e.getMessage());
        LOG.warn("zkqueue {}: scan failed ({} in a row), retrying in {} ms: {}", name(), failures, delay, e.getMessage());
        handleException("zkqueue " + name() + ": scan failed", e);
    }

    final void run(String id, L lock) {
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
