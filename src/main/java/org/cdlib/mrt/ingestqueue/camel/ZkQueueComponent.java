package org.cdlib.mrt.ingestqueue.camel;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import org.apache.camel.CamelContext;
import org.apache.camel.Endpoint;
import org.apache.camel.spi.ShutdownStrategy;
import org.apache.camel.spi.annotations.Component;
import org.apache.camel.support.DefaultComponent;
import org.apache.camel.support.LifecycleStrategySupport;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code zkqueue:job/<state>} and {@code zkqueue:batch/<state>}: consumers that hand one job or
 * batch at a time to a route, locked, and move it by the route's outcome. The queue store is the
 * registry's {@code queueStore} bean, so every endpoint shares the process's one ZooKeeper session.
 * <p>
 * The stop begins for every consumer at once: Camel stops its routes one after another, and a
 * consumer still running while another waits for its work would go on claiming and handing jobs
 * into new steps. So the moment the context begins to stop, each consumer is told to take no
 * more work, and all of them share one deadline for the work in hand.
 */
@Component("zkqueue")
public final class ZkQueueComponent extends DefaultComponent {
    private static final Logger LOG = LoggerFactory.getLogger(ZkQueueComponent.class);
    /** What work in hand leaves of the shutdown timeout for handing back what did not finish. */
    static final long HAND_BACK_MS = 2_000;

    private QueueStore store;
    /** Where this process's running job consumers take jobs handed over, by state: a moved job goes there directly. */
    private final Map<JobState, HandOver<HeldJob>> handOvers = new ConcurrentHashMap<>();

    /** The running consumers' intakes: each stops taking work when called and answers how many items it has in hand. */
    private final Set<IntSupplier> intakes = ConcurrentHashMap.newKeySet();
    /** When the work in hand of every consumer must be done (ms since the epoch); 0 until the context stops. */
    private volatile long workDeadline;

    void started(JobState state, HandOver<HeldJob> handOver) {
        handOvers.put(state, handOver);
    }

    void stopped(JobState state, HandOver<HeldJob> handOver) {
        handOvers.remove(state, handOver);
    }

    void started(IntSupplier stopIntake) {
        intakes.add(stopIntake);
    }

    void stopped(IntSupplier stopIntake) {
        intakes.remove(stopIntake);
    }

    /**
     * When work in hand must be done for a consumer stopping now: the deadline every consumer
     * shares once the context stops, else (a route stopped on its own) the shutdown timeout less
     * the time to hand back what did not finish.
     */
    long workDeadline() {
        long shared = workDeadline;
        return shared > 0 ? shared : deadlineFrom(System.currentTimeMillis());
    }

    private long deadlineFrom(long now) {
        ShutdownStrategy s = getCamelContext().getShutdownStrategy();
        return now + Math.max(1000, s.getTimeUnit().toMillis(s.getTimeout()) - HAND_BACK_MS);
    }

    @Override
    protected void doInit() throws Exception {
        super.doInit();
        getCamelContext().addLifecycleStrategy(new LifecycleStrategySupport() {
            @Override
            public void onContextStopping(CamelContext context) {
                stopIntake();
            }
        });
    }

    /** The context begins to stop: no consumer takes work from now on; the work in hand shares one deadline. */
    private void stopIntake() {
        workDeadline = deadlineFrom(System.currentTimeMillis());
        int inHand = intakes.stream().mapToInt(IntSupplier::getAsInt).sum();
        LOG.info("zkqueue: stopping: taking no new work; {} item(s) in hand have {} ms to reach their transition, "
                + "or are handed back unchanged", inHand, workDeadline - System.currentTimeMillis());
    }

    /**
     * A place for the job {@code ref} (its reference in {@code to}) at this process's consumer of
     * {@code to}, reserved; null when there is none, or none free, or it may take no work. May wait
     * a moment for a place (the next state's {@code handOffWait}).
     */
    HandOver.Place reserve(JobState to, String ref) {
        HandOver<HeldJob> next = handOvers.get(to);
        return next == null ? null : next.reserve(ref);
    }

    public void setStore(QueueStore store) {
        this.store = store;
    }

    QueueStore store() {
        if (store == null) {
            store = getCamelContext().getRegistry().lookupByNameAndType("queueStore", QueueStore.class);
            if (store == null) {
                throw new IllegalStateException("zkqueue: no bean 'queueStore' in the registry");
            }
        }
        return store;
    }

    @Override
    protected Endpoint createEndpoint(String uri, String remaining, Map<String, Object> parameters) throws Exception {
        ZkQueueEndpoint endpoint = new ZkQueueEndpoint(uri, this, QueueKind.parse(remaining));
        setProperties(endpoint, parameters);
        return endpoint;
    }
}
