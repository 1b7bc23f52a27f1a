package org.cdlib.mrt.ingestqueue.queue;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.Optional;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.IllegalTransitionException;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.cdlib.mrt.ingestqueue.testing.StoreTest;
import org.junit.jupiter.api.Test;

class QueueStoreTest extends StoreTest {
    @Test
    void batchIsCreatedPendingWithoutStates() throws Exception {
        String bid = store.batches().create(QueueTestSupport.submission("demo_content"));
        assertTrue(bid.matches("bid\\d{10}"), bid);
        Batch batch = store.batches().load(bid);
        assertEquals(BatchState.PENDING, batch.state());
        assertEquals("tester", batch.submission().submitter());
        assertNull(client.checkExists().forPath(QueuePaths.batchStates(bid)));
        String json = new String(client.getData().forPath(QueuePaths.batchSubmission(bid)));
        assertTrue(json.contains("\"profile_name\":\"demo_content\""), json);
        assertTrue(json.contains("\"erc_what\""), json);
    }

    @Test
    void jobsAreCreatedInThreePlacesAndWalkToCompleted() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 3, 5);
        Batch batch = store.batches().load(bid);
        assertEquals(BatchState.PROCESSING, batch.state());
        assertEquals(3, store.batches().jobs(batch.id(), BatchRef.PROCESSING).size());
        List<String> refs = store.jobs().refs(JobState.PENDING);
        assertEquals(3, refs.size());
        assertTrue(refs.get(0).startsWith("05-jid"), refs.toString());

        String jid = QueuePaths.jidOfRef(refs.get(0));
        Job job = store.jobs().load(jid);
        assertEquals(bid, job.batchId());
        assertEquals(home.resolve(bid).resolve(jid).toAbsolutePath().toString(), job.configuration().workingDir());
        String statusJson = new String(client.getData().forPath(QueuePaths.jobStatus(jid)));
        assertTrue(statusJson.contains("\"last_successful_status\":null"), statusJson);
        assertTrue(statusJson.contains("\"retry_count\":0"), statusJson);

        JobState state = JobState.PENDING;
        while (state != JobState.COMPLETED) {
            HeldJob lock = store.claims().claim(state, store.jobs().load(jid).refName(), "w").orElseThrow();
            Change change = Change.because("ok");
            if (state == JobState.ESTIMATING) {
                change = change.withPriority(10).withSpaceNeeded(1234);
            }
            Job moved = store.moves().transition(lock, state.successor(), change);
            assertEquals(state.successor(), moved.state());
            assertNull(client.checkExists().forPath(QueuePaths.jobLock(jid)), "lock released by the transition");
            state = state.successor();
        }
        Job done = store.jobs().load(jid);
        assertEquals(JobState.COMPLETED, done.state());
        assertEquals(JobState.NOTIFY, done.status().lastSuccessful());
        assertEquals(10, done.priority());
        assertEquals(1234, done.spaceNeeded());
        assertEquals(List.of("10-" + jid), store.jobs().refs(JobState.COMPLETED));
        assertEquals(List.of(jid), store.batches().jobs(bid, BatchRef.COMPLETED));
    }

    @Test
    void lastJobEndingMovesTheBatchToReporting() {
        String bid = QueueTestSupport.batchWithJobs(store, 2, 5);
        List<String> refs = store.jobs().refs(JobState.PENDING);
        HeldJob a = store.claims().claim(JobState.PENDING, refs.get(0), "w").orElseThrow();
        store.moves().transition(a, JobState.FAILED, Change.failure("manifest corrupt"));
        assertEquals(BatchState.PROCESSING, store.batches().load(bid).state());
        HeldJob b = store.claims().claim(JobState.PENDING, refs.get(1), "w").orElseThrow();
        store.moves().transition(b, JobState.FAILED, Change.failure("boom"));
        assertEquals(BatchState.REPORTING, store.batches().load(bid).state());
        Job failed = store.jobs().load(b.jid());
        assertEquals("boom", failed.status().errorMessage());
        assertNull(failed.status().lastSuccessfulStatus());
    }

    @Test
    void lockIsExclusiveAndIllegalTransitionWritesNothing() throws Exception {
        QueueTestSupport.batchWithJobs(store, 1, 5);
        String ref = store.jobs().refs(JobState.PENDING).get(0);
        HeldJob lock = store.claims().claim(JobState.PENDING, ref, "one").orElseThrow();
        assertEquals(Optional.empty(), store.claims().claim(JobState.PENDING, ref, "two"));
        byte[] before = client.getData().forPath(QueuePaths.jobStatus(lock.jid()));
        IllegalTransitionException e = assertThrows(IllegalTransitionException.class,
                () -> store.moves().transition(lock, JobState.RECORDING, Change.because("skip ahead")));
        assertTrue(e.getMessage().contains("pending to recording"), e.getMessage());
        assertTrue(e.getMessage().contains("estimating"), e.getMessage());
        assertArrayEquals(before, client.getData().forPath(QueuePaths.jobStatus(lock.jid())));
        assertEquals(List.of(ref), store.jobs().refs(JobState.PENDING));
    }
}
