package org.cdlib.mrt.ingestqueue.camel;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.spi.Registry;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.cdlib.mrt.ingestqueue.queue.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.JobState;
import org.cdlib.mrt.ingestqueue.queue.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.QueueTestSupport;
import org.cdlib.mrt.ingestqueue.queue.TestZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A job moved on by a worker goes straight to this process's free worker of the next state, its
 * lock kept: that worker starts without claiming it (no lock create, no read), and the job still
 * ends up where the routes send it, lock released.
 */
class HandOffTest extends CamelTestSupport {
    @RegisterExtension
    static final TestZooKeeper ZK = new TestZooKeeper();
    QueueStore store;
    final List<String> estimatedBy = new CopyOnWriteArrayList<>();

    @Override
    protected void bindToRegistry(Registry registry) throws Exception {
        store = ZK.store(Files.createTempDirectory("handoff-test"));
        registry.bind("queueStore", store);
    }

    @Override
    protected RoutesBuilder createRouteBuilder() {
        return new RouteBuilder() {
            @Override
            public void configure() {
                from("zkqueue:job/pending").routeId("pending-route").autoStartup(false).process(e -> { });
                from("zkqueue:job/estimating").routeId("estimating-route")
                        .process(e -> estimatedBy.add(JobExchange.job(e).lockOwner().worker()));
            }
        };
    }

    @Test
    void theNextStatesFreeWorkerGetsTheJobWithoutAClaim() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        String jid = store.batchJobs(bid, BatchRef.PROCESSING).get(0);
        long before = store.operations(); // counted from the moment the job may be taken
        context.getRouteController().startRoute("pending-route");
        // watched through the client itself: the store's own reads would count
        String ref = QueuePaths.jobRef(JobState.PROVISIONING, 5, jid);
        await().atMost(Duration.ofSeconds(10)).until(() -> store.client().checkExists().forPath(ref) != null);
        long ops = store.operations() - before;
        assertEquals(JobState.PROVISIONING, store.loadJob(jid).state());

        assertEquals(List.of("estimating-route/job/estimating"), estimatedBy, "the lock was renamed for the estimating worker");
        assertEquals(null, store.loadJob(jid).lockOwner(), "no consumer of provisioning here: the last move deleted the lock");
        // pending's claim (lock create + 8 reads) 9 + two transitions of 4 ops each = 17;
        // a claim by the estimating worker would add 9 more
        assertTrue(ops <= 17, "ZooKeeper operations from release to provisioning: " + ops);
    }
}
