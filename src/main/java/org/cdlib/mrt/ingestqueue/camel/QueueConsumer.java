package org.cdlib.mrt.ingestqueue.camel;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.apache.camel.Exchange;
import org.apache.camel.LoggingLevel;
import org.apache.camel.Processor;
import org.apache.camel.support.DefaultConsumer;
import org.apache.camel.support.LoggingExceptionHandler;
import org.apache.camel.support.UnitOfWorkHelper;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionEvent;
import org.cdlib.mrt.ingestqueue.queue.outcome.OutcomeStrategy;
import org.cdlib.mrt.ingestqueue.queue.zk.StateView;
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
 * The item's cycle is its {@link OutcomeStrategy}'s: it claims it (begin), and a
 * {@link QueueOnCompletion} on the exchange hands it what the route decided (commit) or its
 * exception (rollback) once the exchange is done, or lets go of it unchanged (abort); what that
 * strategy answers decides when the item is looked at again. Trouble
 * outside a route (a failed scan, an outcome that could not be applied) goes to the consumer's
 * exception handler, so the endpoint's {@code bridgeErrorHandler} and {@code exceptionHandler}
 * options work as for any consumer.
 * <p>
 * The parts, each given small callbacks ({@link ConsumerCalls}), not this consumer: a
 * {@link DispatchPass} claims, a {@link HandOver} receives items handed over by the consumer of
 * the state before, a {@link SessionWatch} follows the connection; this class starts and stops
 * them and runs each item through its route.
 *
 * @param <L> the lock type handed to a worker
 * @param <P> the strategy that takes its items through their cycle
 */
abstract class QueueConsumer<L, P extends OutcomeStrategy<L, ?>> extends DefaultConsumer
        implements DispatchPass.Source<L> {
    private static final Logger LOG = LoggerFactory.getLogger(QueueConsumer.class);
    private static final long MOVED_GRACE_MS = 2_000;

    protected final ZkQueueEndpoint endpoint;
    protected final QueueStore store;
    protected final P strategy;
    private final Workers workers;
    private final Backlog backlog;
    private final DispatchLoop loop;
    private final SessionWatch session;
    private final HandOver<L> handOver;
    private final DispatchPass<L> dispatch;
    private final Consumer<TransitionEvent> transitionListener;
    private ExecutorService pool;
    private ExecutorService dispatcher;
    private StateView view;
    private volatile boolean handingBack;
    /** Set the moment the stop begins (the whole context's, or this route's): no work is taken from then on. */
    private volatile boolean intakeStopped;
    private final IntSupplier stopIntake = this::stopIntake;
    private Set<StepObserver> observers = Set.of();

    QueueConsumer(ZkQueueEndpoint endpoint, Processor processor) {
        super(endpoint, processor);
        this.endpoint = endpoint;
        this.store = endpoint.getComponent().store();
        this.strategy = strategy(() -> handingBack);
        QueueHold hold = new QueueHold(store, this::wake);
        this.workers = new Workers(endpoint.getConcurrency(), store, this::idOf, this::wake);
        this.backlog = new Backlog(name(), this::idOf);
        this.session = new SessionWatch(name(), hold, workers, backlog, this::wake);
        ConsumerCalls<L> calls = new ConsumerCalls<>(this::takesWork, this::isSuspendingOrSuspended,
                () -> takesWork() && !isSuspendingOrSuspended() && session.connected() && hold.knownFree(),
                this::run, strategy::abort, this::wake);
        this.handOver = new HandOver<>(name(), this::workerName, endpoint.getHandOffWait(), workers, backlog, calls,
                this::firstInLine);
        this.dispatch = new DispatchPass<>(
                name(),
                this::workerName,
                endpoint.getRescan(),
                this,
                store,
                session,
                handOver,
                hold,
                workers,
                backlog,
                calls);
        this.transitionListener = dispatch::transitioned;
        this.loop = new DispatchLoop(name(), this::takesWork, dispatch, backlog, endpoint.getRescan(),
                this::scanFailed);
        // the consumer's own WARN line tells the operator; the trace is there for debugging
        setExceptionHandler(new LoggingExceptionHandler(endpoint.getCamelContext(), getClass(), LoggingLevel.DEBUG));
    }

    /** How this consumer's items go through their cycle; {@code handingBack} is true once a stop ran out of time. */
    protected abstract P strategy(BooleanSupplier handingBack);

    /** The watched view of this consumer's state (job references or batch index entries), opened. */
    protected abstract StateView openView();

    /**
     * What ends an item's cycle before its route starts (a job whose batch or collection is held: issue 45); null
     * when its route runs.
     */
    protected OutcomeStrategy.Applied beforeRun(L lock) {
        return null;
    }

    /** The item's profile as its lock read it, for the step observers; null when it has none (a batch). */
    protected String profileOf(L lock) {
        return null;
    }

    /** Puts a claimed item on the exchange its route gets. */
    protected abstract void prepare(L lock, Exchange exchange);

    /** Commits what the route decided for the item on {@code exchange} (the strategy's commit). */
    protected abstract OutcomeStrategy.Applied commit(L lock, Exchange exchange);

    @Override
    public final StateView view() {
        return view;
    }

    @Override
    public List<String> candidates() {
        return view.snapshot();
    }

    @Override
    public String idOf(String candidate) {
        return candidate;
    }

    @Override
    public String kind() {
        return endpoint.queue().isJob() ? "job" : "batch";
    }

    /** The strategy's begin: locks candidates nobody else has that are still in this consumer's state. */
    @Override
    public final List<Supplier<Optional<L>>> claimAll(List<String> ids, String worker) {
        return strategy.begin(ids, worker);
    }

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
        endpoint.getComponent().started(stopIntake);
    }

    private boolean firstInLine(String candidate) {
        return dispatch.firstInLine(candidate);
    }

    private boolean takesWork() {
        return isRunAllowed() && !intakeStopped;
    }

    /**
     * The stop begins: from now on nothing is claimed, nothing handed over is taken, nothing
     * queued is started (a claim already under way is let go unchanged); the items queued for a
     * worker are let go. Returns how many items are in hand, to finish.
     */
    private int stopIntake() {
        intakeStopped = true;
        workers.stopTaking();
        handOver.letGoQueued("stopping");
        wake(); // the dispatcher sees the stop and ends
        return workers.inHand().size();
    }

    /**
     * Graceful: no new work is taken; work in hand runs to its transition before the consumer
     * stops, until the deadline every consumer shares (see {@link ZkQueueComponent}).
     */
    @Override
    protected void doStop() throws Exception {
        stopIntake(); // already done when the whole context stops; not when this route stops alone
        endpoint.getComponent().stopped(stopIntake);
        store.health().workersStopped(name());
        store.removeListener(transitionListener);
        store.client().getConnectionStateListenable().removeListener(session);
        if (view != null) {
            view.close();
        }
        if (dispatcher != null) {
            getEndpoint().getCamelContext().getExecutorServiceManager().shutdownGraceful(dispatcher, 10_000);
        }
        if (pool != null) {
            // work in hand gets the shutdown timeout (camel.main.shutdown-timeout) to reach its
            // transition, less the time to hand back what cannot finish, unchanged, never failed
            long deadline = endpoint.getComponent().workDeadline();
            if (!workers.finish(Math.max(0, deadline - System.currentTimeMillis()))) {
                handingBack = true;
                List<String> left = workers.inHand();
                LOG.warn("zkqueue {}: shutdown timeout: handing back {} item(s) unchanged: {}", name(), left.size(),
                        left);
                workers.interrupt(Math.max(100, deadline + ZkQueueComponent.HAND_BACK_MS - System.currentTimeMillis()));
            }
            getEndpoint().getCamelContext().getExecutorServiceManager().shutdownNow(pool);
        }
        super.doStop();
    }

    final void wake() {
        loop.wake();
    }

    /** Where the consumer of the state before hands this one an item with its lock. */
    final HandOver<L> handOver() {
        return handOver;
    }

    private void scanFailed(RuntimeException e, int failures, long delay) {
        store.health().scanFailed(name(), e.getMessage());
        LOG.warn("zkqueue {}: scan failed ({} in a row), retrying in {} ms: {}", name(), failures, delay,
                e.getMessage());
        handleException("zkqueue " + name() + ": scan failed", e);
    }

    /**
     * Runs the item through its route on the calling worker; its outcome is applied once, however the
     * exchange ends.
     */
    private void run(String id, L lock) {
        if (letGoIfStopping(lock)) {
            return;
        }
        OutcomeStrategy.Applied stopped = beforeRun(lock);
        if (stopped != null) {
            then(id, stopped);
            return;
        }
        if (letGoIfStopping(lock)) { // again: the hold's check may have read ZooKeeper while the stop began
            return;
        }
        long started = System.nanoTime();
        Exchange exchange = createExchange(false);
        QueueOnCompletion item = new QueueOnCompletion("zkqueue " + name() + " outcome of " + id,
                (e, failed) -> apply(id, lock, e, failed, Duration.ofNanos(System.nanoTime() - started)));
        try {
            prepare(lock, exchange);
            exchange.getExchangeExtension().addOnCompletion(item);
            try {
                getProcessor().process(exchange);
            } catch (Exception e) {
                exchange.setException(e);
            }
            // the route's unit of work applied the outcome when the exchange was done; one that
            // never got that far left it on the exchange, and it is applied now
            UnitOfWorkHelper.doneSynchronizations(exchange, exchange.getExchangeExtension().handoverCompletions());
        } catch (RuntimeException e) {
            notMoved(id, lock, exchange, e);
        } finally {
            releaseExchange(exchange, false);
        }
        if (!item.applied()) {
            retryIn(id, endpoint.getRetryDelay());
        }
    }

    /**
     * Given to its worker just before the stop began, its thread only now running: nothing starts once the stop
     * began, so it is let go unchanged, as a queued one is.
     */
    private boolean letGoIfStopping(L lock) {
        boolean stopping = intakeStopped; // read once: a lock not let go must not be reported as let go
        if (stopping) {
            strategy.abort(lock);
        }
        return stopping;
    }

    /** The route is done ({@code took}, without the transition that follows): its outcome is applied. */
    private void apply(String id, L lock, Exchange exchange, boolean failed, Duration took) {
        for (StepObserver o : observers) {
            o.stepEnded(name(), idOf(id), profileOf(lock), took, failed);
        }
        OutcomeStrategy.Applied applied;
        try {
            Exception e = exchange.getException();
            applied = failed ? strategy.rollback(lock, e, JobFailure.messageOf(e)) : commit(lock, exchange);
        } catch (RuntimeException e) {
            // Camel would log and drop what a synchronization throws: the item would be forgotten
            notMoved(id, lock, exchange, e);
            applied = new OutcomeStrategy.Applied(OutcomeStrategy.Then.RETRY, null);
        }
        then(id, applied);
    }

    /** What the consumer does with the item once its cycle ended as {@code applied}. */
    private void then(String id, OutcomeStrategy.Applied applied) {
        switch (applied.then()) {
            case MOVED_OUT -> backlog.movedOn(id, System.currentTimeMillis() + MOVED_GRACE_MS);
            case RETRY -> retryIn(id, applied.delayMs() != null ? applied.delayMs() : endpoint.getRetryDelay());
            case LOOK_AGAIN_SOON -> backlog.stale();
            case NOTHING -> { }
        }
    }

    /** The outcome of a route could not be applied: the item stays where it is, the handler is told. */
    private void notMoved(String id, L lock, Exchange exchange, RuntimeException e) {
        LOG.error("zkqueue {}: {} not moved: {}", name(), id, e.toString());
        strategy.abort(lock);
        handleException("zkqueue " + name() + ": " + id + " not moved", exchange, e);
    }

    /** The item stays where it is and is tried again after {@code ms}, not before. */
    private void retryIn(String id, long ms) {
        backlog.notBefore(id, System.currentTimeMillis() + ms);
    }

    final String workerName() {
        return getRouteId() + "/" + name();
    }
}
