package org.cdlib.mrt.ingestqueue.routes;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.camel.component.mock.MockEndpoint;
import org.cdlib.mrt.ingestqueue.queue.admin.CleanupResult;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.Test;

/**
 * routes/cleanup.yaml with the real cleanupStep: the timer (its route elected through the real
 * ZooKeeper) runs it on a shortened period, and a completed batch past its retention is removed
 * with its job while a failed batch within its own retention stays.
 */
class CleanupRouteTest extends RouteTestSupport {

    @Override
    protected Map<String, String> properties() {
        Map<String, String> p = super.properties();
        p.put("ingest.cleanup.period", "100");
        p.put("ingest.cleanup.delay", "0");
        p.put("ingest.cleanup.retention", "PT0S"); // every completed batch has expired
        p.put("ingest.cleanup.failed-retention", "P30D");
        return p;
    }

    /** A batch whose one job ended in {@code jobEnd}, reported to {@code batchEnd}. */
    String endedBatch(JobState jobEnd, BatchState batchEnd) {
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        walk(
                jid,
                jobEnd == JobState.COMPLETED
                        ? QueueTestSupport.pipelineTo(JobState.COMPLETED)
                        : new JobState[] {jobEnd});
        await().atMost(Duration.ofSeconds(5)).until(() -> store.batches().load(bid).state() == BatchState.REPORTING);
        store.moves().transition(store.batches().tryLock(bid, "test").orElseThrow(), batchEnd, "reported", null, null);
        return bid;
    }

    @Test
    void theTimerRunsTheCleanupAndAnExpiredCompletedBatchIsRemovedWithItsJob() throws Exception {
        MockEndpoint end = start("cleanup.yaml", "cleanup");
        String failed = endedBatch(JobState.FAILED, BatchState.FAILED);
        String completed = endedBatch(JobState.COMPLETED, BatchState.COMPLETED);
        String jid = store.batches().jobs(completed, BatchRef.COMPLETED).get(0);
        await().atMost(Duration.ofSeconds(10)).until(() -> !store.batches().exists(completed));
        assertTrue(store.jobs().find(jid).isEmpty(), "its job went with it");
        assertTrue(store.batches().exists(failed), "a failed batch is kept for ingest.cleanup.failed-retention");
        assertEquals(BatchState.FAILED, store.batches().load(failed).state());
        // the route ran to its end with what the step removed as its body
        await().atMost(Duration.ofSeconds(5)).until(() -> end.getReceivedExchanges().stream()
                .map(e -> e.getMessage().getBody(CleanupResult.class))
                .anyMatch(r -> r.equals(new CleanupResult(1, 1))));
        assertEquals(List.of(), end.getReceivedExchanges().stream()
                .map(e -> e.getMessage().getBody(CleanupResult.class)).filter(r -> r.batches() > 1).toList());
    }
}
