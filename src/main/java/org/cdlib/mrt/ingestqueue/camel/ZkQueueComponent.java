package org.cdlib.mrt.ingestqueue.camel;

import java.util.Map;
import org.apache.camel.Endpoint;
import org.apache.camel.spi.annotations.Component;
import org.apache.camel.support.DefaultComponent;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;

/**
 * {@code zkqueue:job/<state>} and {@code zkqueue:batch/<state>}: consumers that hand one job or
 * batch at a time to a route, locked, and move it by the route's outcome. The queue store is the
 * registry's {@code queueStore} bean, so every endpoint shares the process's one ZooKeeper session.
 */
@Component("zkqueue")
public final class ZkQueueComponent extends DefaultComponent {

    private QueueStore store;
    /** This process's running job consumers by state: a worker hands a moved job to the next state's directly. */
    private final java.util.Map<org.cdlib.mrt.ingestqueue.queue.JobState, JobConsumer> jobConsumers =
            new java.util.concurrent.ConcurrentHashMap<>();

    void started(org.cdlib.mrt.ingestqueue.queue.JobState state, JobConsumer consumer) {
        jobConsumers.put(state, consumer);
    }

    void stopped(org.cdlib.mrt.ingestqueue.queue.JobState state, JobConsumer consumer) {
        jobConsumers.remove(state, consumer);
    }

    JobConsumer jobConsumer(org.cdlib.mrt.ingestqueue.queue.JobState state) {
        return jobConsumers.get(state);
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
