package org.cdlib.mrt.ingestqueue.camel;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.spi.Registry;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A job of higher priority waiting for a worker goes ahead of the lower ones already waiting in
 * this host: estimating has {@value #WORKERS} slow workers, all busy, its short queue full of
 * priority-9 jobs handed over by pending, more of them waiting in pending's workers for a place
 * and in the folders. A priority-1 job then arrives, handed over by pending or moved into the
 * folder by another host; counted: the priority-9 jobs that start estimating after it arrived
 * and before it. Fewer than the queue's length ({@value #WORKERS}) may: only a worker freed in the
 * moment between its arrival and its place in the queue (its commit, one round trip) takes a
 * lower one, and every worker freed after goes to the first in run order (in practice none pass
 * it). Before, a job handed over waited behind the whole queue, first in line for a place among
 * pending's waiting workers by chance only: passed by {@value #WORKERS} or more every time.
 */
class PriorityInEveryStateTest extends CamelTestSupport {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    static final int WORKERS = 3;
    QueueStore store;
    /** When each job's estimating step started (ms), by job id. */
    final Map<String, Long> started = new ConcurrentHashMap<>();
    /** When each job's pending step ended (ms): from then on it waits for estimating. */
    final Map<String, Long> pendingDone = new ConcurrentHashMap<>();

    @Override
    protected void bindToRegistry(Registry registry) throws Exception {
        store = ZK.store(Files.createTempDirectory("priority-test"));
        registry.bind("queueStore", store);
    }

    @Override
    protected RoutesBuilder createRouteBuilder() {
        return new RouteBuilder() {
            @Override
            public void configure() {
                from("zkqueue:job/pending?concurrency=6").routeId("pending-route").autoStartup(false)
                        .process(e -> pendingDone.put(JobExchange.job(e).id(), System.currentTimeMillis()));
                from("zkqueue:job/estimating?concurrency=" + WORKERS + "&handOffWait=60000").routeId("estimating-route")
                        .process(e -> {
                            started.put(JobExchange.job(e).id(), System.currentTimeMillis());
                            Thread.sleep(300); // the step's work
                        });
            }
        };
    }

    /** Priority-9 jobs flowing, estimating saturated: its workers busy, its queue full, pending's workers waiting. */
    private List<String> saturated() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 30, 9);
        List<String> low = store.batches().jobs(bid, BatchRef.PROCESSING);
        context.getRouteController().startRoute("pending-route");
        await().atMost(Duration.ofSeconds(30)).until(() -> started.size() >= 2 * WORKERS);
        return low;
    }

    @Test
    void aJobHandedOverGoesAheadOfTheLowerOnesQueued() throws Exception {
        List<String> low = saturated();
        String bid = QueueTestSupport.batchWithJobs(store, 1, 1);
        String high = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        await().atMost(Duration.ofSeconds(60)).until(() -> started.containsKey(high));
        // it waits for estimating from the end of its pending step: for a place in the full queue, then a worker
        assertBound(low, high, pendingDone.get(high));
    }

    @Test
    void aJobArrivingInTheFolderGoesAheadOfTheLowerOnesQueued() throws Exception {
        // another host's job: locked there while this host's pending fills estimating, then moved into its folder
        String bid = QueueTestSupport.batchWithJobs(store, 1, 1);
        String high = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        HeldJob other = store.claims().tryLockJob(high, "another-host").orElseThrow();
        List<String> low = saturated();
        store.moves().transition(other, JobState.ESTIMATING, Change.because("another host"));
        long arrived = System.currentTimeMillis();
        await().atMost(Duration.ofSeconds(60)).until(() -> started.containsKey(high));
        assertBound(low, high, arrived);
    }

    private void assertBound(List<String> low, String high, long arrived) {
        long highStarted = started.get(high);
        long passed = low.stream().map(started::get).filter(t -> t != null && t > arrived && t < highStarted).count();
        long waiting = low.stream().filter(j -> !started.containsKey(j) || started.get(j) > arrived).count();
        System.out.printf(
                "priority 1 in estimating: started %d ms after it arrived; passed by %d of the %d priority-9 jobs "
                        + "not started then%n",
                highStarted - arrived, passed, waiting);
        assertTrue(waiting > 2 * WORKERS, "lower jobs were waiting when it arrived: " + waiting);
        assertTrue(passed < WORKERS, "passed by " + passed + " lower-priority jobs after it arrived");
    }
}
