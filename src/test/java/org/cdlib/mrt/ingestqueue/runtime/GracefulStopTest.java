package org.cdlib.mrt.ingestqueue.runtime;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.camel.Processor;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A stop (SIGTERM) never fails work: work in hand has camel.main.shutdown-timeout to reach its
 * transition, and what cannot finish is handed back unchanged — lock released, job in its
 * state, no failure, no retry counted.
 */
class GracefulStopTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    final Path dir = ZK.dir();

    /** Starts the service with an estimate step that runs until {@code finish} opens (or it is interrupted). */
    IngestService startWithSlowEstimate(CountDownLatch finish, int shutdownTimeoutS, CountDownLatch entered)
            throws Exception {
        Map<String, String> config = new HashMap<>(ServiceTestSupport.config(ZK.connectString(), dir));
        config.put("camel.main.shutdown-timeout", String.valueOf(shutdownTimeoutS));
        Map<String, Object> beans = new ServiceTestSupport().beans();
        beans.put("estimateStep", (Processor) e -> {
            entered.countDown();
            finish.await(2, TimeUnit.MINUTES);
        });
        return new IngestService(config, beans).start();
    }

    Job jobOf(QueueStore store, String bid) {
        List<String> open = store.batches().jobs(bid, BatchRef.PROCESSING);
        List<String> done = store.batches().jobs(bid, BatchRef.COMPLETED);
        return store.jobs().load(open.isEmpty() ? done.get(0) : open.get(0));
    }

    @Test
    void aStepLongerThanTheShutdownTimeoutIsHandedBackUnchanged() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        // a step that never ends by itself
        IngestService service = startWithSlowEstimate(new CountDownLatch(1), 3, entered);
        QueueStore store = service.store();
        store.holds().holdQueue("test"); // the batch is made here, not by the service's batch-pending route
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        store.holds().releaseQueue();
        assertTrue(entered.await(30, TimeUnit.SECONDS), "the step runs");
        long t0 = System.nanoTime();
        service.close();
        long tookS = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0);
        assertTrue(tookS < 30, "the stop keeps to its timeout, took " + tookS + " s");

        QueueStore after = ZK.store(dir);
        Job job = jobOf(after, bid);
        assertEquals(JobState.ESTIMATING, job.state(), "left where it was");
        assertEquals(0, job.status().retryCount());
        assertNull(job.status().errorMessage());
        assertNull(ZK.client().checkExists().forPath(QueuePaths.jobLock(job.id())), "its lock released");
    }

    @Test
    void aStepThatEndsWithinTheShutdownTimeoutReachesItsTransition() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        IngestService service = startWithSlowEstimate(finish, 30, entered);
        QueueStore store = service.store();
        store.holds().holdQueue("test"); // the batch is made here, not by the service's batch-pending route
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        store.holds().releaseQueue();
        assertTrue(entered.await(30, TimeUnit.SECONDS), "the step runs");
        // the step ends only once the stop has begun: its work is in hand when SIGTERM comes
        CompletableFuture<Void> ends = CompletableFuture.runAsync(() -> {
            await().atMost(Duration.ofSeconds(30)).until(() -> service.camel().isStopping());
            finish.countDown();
        });
        service.close();
        ends.get(30, TimeUnit.SECONDS);

        Job job = jobOf(ZK.store(dir), bid);
        assertTrue(job.state() != JobState.ESTIMATING && job.state() != JobState.FAILED,
                "the step's work was committed, not lost or failed: " + job.state());
        assertTrue(job.status().lastSuccessful() != null, "estimating succeeded and was recorded");
        assertEquals(0, job.status().retryCount());
    }
}
