package org.cdlib.mrt.ingestqueue.camel;

import java.util.Map;
import org.apache.camel.Endpoint;
import org.apache.camel.spi.annotations.Component;
import org.apache.camel.support.DefaultComponent;
import java.util.concurrent.ConcurrentHashMap;
import org.cdlib.mrt.ingestqueue.queue.JobLock;
import org.cdlib.mrt.ingestqueue.queue.JobState;
import org.cdlib.mrt.ingestqueue.queue.OutcomeStrategy;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;

/**
 * {@code zkqueue:job/<state>} and {@code zkqueue:batch/<state>}: consumers that hand one job or
 * batch at a time to a route, locked, and move it by the route's outcome. The queue store is the
 * registry's {@code queueStore} bean, so every endpoint shares the process's one ZooKeeper session.
 */
@Component("zkqueue")
public final class ZkQueueComponent extends DefaultComponent implements OutcomeStrategy.HandOffs {

    private QueueStore store;
    /** Where this process's running job consumers take jobs handed over, by state: a moved job goes there directly. */
    private final Map<JobState, HandOver<JobLock>> handOvers = new ConcurrentHashMap<>();

    void started(JobState state, HandOver<JobLock> handOver) {
        handOvers.put(state, handOver);
    }

    void stopped(JobState state, HandOver<JobLock> handOver) {
        handOvers.remove(state, handOver);
    }

    @Override
    public OutcomeStrategy.Place reserve(JobState to, String ref) {
        HandOver<JobLock> next = handOvers.get(to);
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
