package org.cdlib.mrt.ingestqueue.queue.batches;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.util.List;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A batch's completion is decided by the moves: the move of its last open job, or the batch's
 * own move into processing when its jobs all ended while it was still pending (a small batch
 * whose jobs ran before its pending step finished). Nothing else needs to look.
 */
class BatchCompletionTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();

    @Test
    void aBatchWhoseJobsAllEndedWhileItWasPendingGoesToReportingAsItEntersProcessing() throws Exception {
        QueueStore store = ZK.store(Files.createTempDirectory("batch-completion"));
        String bid = store.batches().create(QueueTestSupport.submission("demo_content"));
        HeldBatch batch = store.batches().tryLock(bid, "pending").orElseThrow();
        String jid = store.batches().createJobs(batch, List.of(QueueTestSupport.newJob("loc0", 5))).get(0);
        for (JobState at = JobState.PENDING; at != JobState.COMPLETED; at = at.successor()) {
            HeldJob job = store.claims().tryLockJob(jid, "worker").orElseThrow();
            store.moves().transition(job, at.successor(), Change.because("test"));
        }
        assertEquals(BatchState.PENDING, store.batches().load(bid).state(), "its last job ended while it was pending");

        store.moves().transition(batch, BatchState.PROCESSING, "1 job(s) created", null, null);

        assertEquals(BatchState.REPORTING, store.batches().load(bid).state());
    }

    @Test
    void aBatchWithJobsStillOpenStaysInProcessingUntilTheLastOneEnds() throws Exception {
        QueueStore store = ZK.store(Files.createTempDirectory("batch-completion-open"));
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        assertEquals(BatchState.PROCESSING, store.batches().load(bid).state());
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        HeldJob job = store.claims().tryLockJob(jid, "worker").orElseThrow();
        store.moves().transition(job, JobState.FAILED, Change.failure("test"));
        assertEquals(BatchState.REPORTING, store.batches().load(bid).state(), "the last job's move decided it");
    }
}
