package org.cdlib.mrt.ingestqueue.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.cdlib.mrt.ingestqueue.testing.StoreTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A batch's outcome: whole counts, the listed jobs bounded, and a job past the lists read by its status node alone. */
class BatchTallyTest extends StoreTest {

    /** An outcome and the ZooKeeper operations its reading took. */
    record Measured(BatchTally outcome, long operations) {
    }

    /** The status-alone reads below are those of a job compacted without Merritt neighbours (issue 42). */
    @BeforeEach
    void compacted() {
        store.jobs().merrittNeighbours(false);
    }

    Measured measured(Batch batch, int listed) {
        long before = store.operations();
        BatchTally outcome = BatchTally.of(store, batch, listed);
        return new Measured(outcome, store.operations() - before);
    }

    /** A batch of {@code jobs}: its first job failed, the next {@code completed} completed, the rest left pending. */
    String batchWithOneFailed(int jobs, int completed) {
        String bid = QueueTestSupport.batchWithJobs(store, jobs, 5);
        List<String> jids = store.batches().load(bid).jobIds();
        QueueTestSupport.walk(store, jids.get(0), JobState.FAILED);
        for (String jid : jids.subList(1, 1 + completed)) {
            QueueTestSupport.walk(store, jid, QueueTestSupport.pipelineTo(JobState.COMPLETED));
        }
        return bid;
    }

    @Test
    void pastItsListsTheOutcomeCountsFromTheStatusNodesAlone() throws Exception {
        Batch batch = store.batches().load(batchWithOneFailed(250, 247));

        Measured all = measured(batch, BatchTally.LISTED);
        Measured listed = measured(batch, 1);

        for (BatchTally o : List.of(all.outcome(), listed.outcome())) {
            assertEquals(247, o.completedCount());
            assertEquals(1, o.failedCount());
            assertEquals(2, o.openCount(), "the last two stayed pending");
        }
        assertEquals(247, all.outcome().completed().size());
        assertEquals(1, listed.outcome().completed().size());
        assertEquals(1, listed.outcome().failed().size());
        assertTrue(all.outcome().listsAll() && !listed.outcome().listsAll());
        // a Stat and the data of every status; a listed failed job is read whole (8 nodes), a listed completed
        // one is its status: listing all of them costs no more than listing one
        assertEquals(250 * 2 + 8 * 2, all.operations(), all.toString());
        assertEquals(all.operations(), listed.operations());
    }

    @Test
    void aBatchWithoutFailuresIsCountedFromItsStatusNodesOnceItsListIsFull() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 250, 5);
        for (String jid : store.batches().load(bid).jobIds()) {
            QueueTestSupport.walk(store, jid, QueueTestSupport.pipelineTo(JobState.COMPLETED));
        }
        Batch batch = store.batches().load(bid);
        Measured all = measured(batch, BatchTally.LISTED);
        Measured listed = measured(batch, 1);
        assertEquals(250, all.outcome().completedCount());
        assertEquals(250, listed.outcome().completedCount());
        assertEquals(0, listed.outcome().failedCount() + listed.outcome().openCount());
        assertEquals(all.outcome().completed().get(0).id(), listed.outcome().completed().get(0).id());
        assertEquals(250 * 2, all.operations(), "the statuses alone, each job listed or not");
        assertEquals(250 * 2, listed.operations());
    }

    /** A completed job is all in its status (its summary): the same job as read whole, from its status alone. */
    @Test
    void aCompletedJobIsListedFromItsStatusAlone() throws Exception {
        String bid = batchWithOneFailed(20, 19);
        List<String> jids = store.batches().load(bid).jobIds();
        Measured all = measured(store.batches().load(bid), BatchTally.LISTED);
        assertEquals(19, all.outcome().completed().size());
        for (var j : all.outcome().completed()) {
            assertEquals(store.jobs().load(j.id()), j, "read as a whole read reads it");
        }
        assertEquals(store.jobs().load(jids.get(0)), all.outcome().failed().get(0));
        // a Stat and the data of each node read: every status (a completed job's summary holds all of it,
        // priority and space_needed included); then the failed job's eight nodes (its status again among them)
        assertEquals(20 * 2 + 8 * 2, all.operations());
    }

    /**
     * Beside Merritt (the default), a completed job keeps mrt-zk's nodes and the report reads a
     * listed one whole, as it reads a failed one (8 nodes); one past the lists is still its status alone.
     */
    @Test
    void besideMerrittAListedCompletedJobIsReadWholeAndOnePastTheListsByItsStatus() throws Exception {
        store.jobs().merrittNeighbours(true);
        String bid = QueueTestSupport.batchWithJobs(store, 50, 5);
        for (String jid : store.batches().load(bid).jobIds()) {
            QueueTestSupport.walk(store, jid, QueueTestSupport.pipelineTo(JobState.COMPLETED));
        }
        Batch batch = store.batches().load(bid);
        Measured all = measured(batch, BatchTally.LISTED);
        Measured listed = measured(batch, 1);
        assertEquals(50, all.outcome().completed().size());
        for (var j : all.outcome().completed()) {
            assertEquals(store.jobs().load(j.id()), j, "read as a whole read reads it");
        }
        assertEquals(50, listed.outcome().completedCount());
        assertEquals(50 * 2 + 50 * 8 * 2, all.operations(), "every status, then each listed job's 8 nodes");
        assertEquals(50 * 2 + 8 * 2, listed.operations(), "one listed: the others by their status alone");
    }
}
