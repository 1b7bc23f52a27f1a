package org.cdlib.mrt.ingestqueue.history;

import static org.awaitility.Awaitility.await;
import static org.cdlib.mrt.ingestqueue.testing.merritt.MrtZkDaemon.CONFIGURATION;
import static org.cdlib.mrt.ingestqueue.testing.merritt.MrtZkDaemon.NO_IDENTIFIERS;
import static org.cdlib.mrt.ingestqueue.testing.merritt.MrtZkDaemon.SUBMISSION;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.cdlib.mrt.ingestqueue.testing.merritt.MrtZkDaemon;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A batch Merritt's batch consumer made, whose jobs our workers ran: Merritt's reporter completes it
 * and Merritt's cleanup ({@code Batch.deleteCompletedBatches}) deletes it at once; history found it
 * when our worker ended its last job, so it is still found after.
 */
class MerrittBatchCaptureTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();


    @Test
    void aBatchMerrittsCleanupDeletedIsStillFoundInHistory() throws Exception {
        QueueStore store = ZK.store(ZK.dir());
        MrtZkDaemon daemon = new MrtZkDaemon(ZK.otherClient().getZookeeperClient().getZooKeeper());
        try (HistoryStore history = new HistoryStore("jdbc:h2:mem:capture" + System.nanoTime() + ";DB_CLOSE_DELAY=-1",
                null, null);
             MerrittBatchCapture capture = new MerrittBatchCapture(store, new HandOver(store, history))) {
            store.addListener(capture);
            String bid = daemon.createBatch("bid-1", SUBMISSION);
            assertEquals(bid, daemon.acquirePendingBatch());
            List<String> jids = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                jids.add(daemon.createJob(bid, 5, CONFIGURATION, NO_IDENTIFIERS));
            }
            daemon.setBatchStatus(bid, "Reporting", ""); // mrt-ingest's BatchConsumer, once the jobs are made
            daemon.unlock("/batches/" + bid);
            QueueTestSupport.workTo(store, jids.get(0), JobState.COMPLETED);
            QueueTestSupport.workTo(store, jids.get(1), JobState.COMPLETED);
            QueueTestSupport.workTo(store, jids.get(2), JobState.COMPLETED);
            await().atMost(Duration.ofSeconds(20)).until(() -> history.batch(bid).isPresent());

            // mrt-ingest's BatchReportConsumer completes it; its batch consumer's next poll deletes it
            assertTrue(daemon.lock("/batches/" + bid));
            daemon.setBatchStatus(bid, "Completed", "");
            daemon.unlock("/batches/" + bid);
            assertTrue(daemon.deleteCompletedBatches().contains(bid));
            assertFalse(store.batches().exists(bid));

            assertEquals(BatchState.COMPLETED, history.batch(bid).orElseThrow().state());
            assertEquals(3, history.jobs(bid, null, 10).size());
            for (String jid : jids) {
                assertEquals(JobState.COMPLETED, history.job(jid).orElseThrow().state());
            }
        }
    }
}
