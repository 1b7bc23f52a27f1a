package org.cdlib.mrt.ingestqueue.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.cdlib.mrt.ingestqueue.queue.Batch;
import org.cdlib.mrt.ingestqueue.queue.JobState;
import org.cdlib.mrt.ingestqueue.queue.QueueTestSupport;
import org.cdlib.mrt.ingestqueue.queue.StoreTest;
import org.junit.jupiter.api.Test;

/** A batch's outcome: whole counts, the listed jobs bounded, and past the lists one read per job. */
class BatchOutcomeTest extends StoreTest {

    @Test
    void pastItsListsTheOutcomeCountsFromTheStatusNodesAlone() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 250, 5);
        List<String> jids = store.loadBatch(bid).jobIds();
        QueueTestSupport.walk(store, jids.get(0), JobState.FAILED); // in the first read chunk, as the first completed ones
        for (String jid : jids.subList(1, 248)) {
            QueueTestSupport.walk(store, jid, QueueTestSupport.pipelineTo(JobState.COMPLETED));
        }
        Batch batch = store.loadBatch(bid);

        long before = store.operations();
        BatchOutcome all = BatchOutcome.of(store, batch);
        long allOps = store.operations() - before;
        before = store.operations();
        BatchOutcome listed = BatchOutcome.of(store, batch, 1);
        long listedOps = store.operations() - before;

        for (BatchOutcome o : List.of(all, listed)) {
            assertEquals(247, o.completedCount());
            assertEquals(1, o.failedCount());
            assertEquals(2, o.openCount(), "the last two stayed pending");
        }
        assertEquals(247, all.completed().size());
        assertEquals(1, listed.completed().size());
        assertEquals(1, listed.failed().size());
        assertTrue(all.listsAll() && !listed.listsAll());
        // chunk one read whole (8 nodes a job), chunks two and three by their status nodes (1 a job)
        assertTrue(listedOps < allOps / 2, "operations: " + listedOps + " against " + allOps);
    }

    @Test
    void aBatchWithoutFailuresIsCountedFromItsStatusNodesOnceItsListIsFull() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 250, 5);
        for (String jid : store.loadBatch(bid).jobIds()) {
            QueueTestSupport.walk(store, jid, QueueTestSupport.pipelineTo(JobState.COMPLETED));
        }
        Batch batch = store.loadBatch(bid);
        long before = store.operations();
        BatchOutcome all = BatchOutcome.of(store, batch);
        long allOps = store.operations() - before;
        before = store.operations();
        BatchOutcome listed = BatchOutcome.of(store, batch, 1);
        long listedOps = store.operations() - before;
        assertEquals(250, all.completedCount());
        assertEquals(250, listed.completedCount());
        assertEquals(0, listed.failedCount() + listed.openCount());
        assertEquals(List.of(all.completed().get(0).id()), listed.completed().stream().map(j -> j.id()).toList());
        assertTrue(listedOps < allOps / 2, "operations: " + listedOps + " against " + allOps);
    }
}
