package org.cdlib.mrt.ingestqueue.queue.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.HeldBy;
import org.cdlib.mrt.ingestqueue.queue.model.IllegalTransitionException;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A batch's hold on its running jobs (issue 45) at the store: one node holds it, a stop checks that node, and the
 * release is the node's removal, whose jobs any host's pass releases in chunks, also after the releasing host is
 * gone; a job held by hand is left held.
 */
class BatchHoldReleaseTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();

    final Path dir = ZK.dir();
    QueueStore store;
    AdminActions admin;

    @BeforeEach
    void setUp() throws Exception {
        store = ZK.store(dir);
        admin = new AdminActions(store, Clock.systemUTC());
    }

    @AfterEach
    void clean() {
        ConsistencyCheck.Report r = new ConsistencyCheck(store).check();
        assertTrue(r.clean(), () -> "inconsistent: " + r.violations());
    }

    /** Stops a pending job of the batch as a worker does when it would take it. */
    boolean stop(String jid, HeldBy hold) {
        HeldJob lock = store.claims().claim(JobState.PENDING, store.jobs().load(jid).refName(), "w").orElseThrow();
        boolean stopped = store.moves().stop(lock, Change.stoppedBy(hold, JobState.PENDING));
        if (!stopped) {
            store.moves().unlock(lock);
        }
        return stopped;
    }

    @Test
    void aReleaseLeftByAHostThatWentIsFinishedByAnotherInChunksAndAHandHeldJobStays() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 250, 5); // three chunks of the pass
        List<String> jids = store.batches().jobs(bid, BatchRef.PROCESSING);
        assertEquals(BatchState.PROCESSING, admin.holdBatch(bid, "op").state());
        assertTrue(store.holds().isBatchHeld(bid));
        IllegalTransitionException again = assertThrows(
                IllegalTransitionException.class, () -> admin.holdBatch(bid, "op"));
        assertTrue(again.getMessage().contains("held already"), again.getMessage());
        String byHand = jids.get(0);
        admin.holdJob(byHand, "op");
        for (String jid : jids.subList(1, jids.size())) {
            assertTrue(stop(jid, HeldBy.batch(bid)));
        }
        Job one = store.jobs().load(jids.get(1));
        assertEquals(HeldBy.batch(bid).at(one.statusVersion()), one.status().heldBy());
        assertNull(one.status().lastSuccessful(), "resumes at pending, where it waited");

        // the release's own pass never runs (its host went): only the node's removal and the entry it left
        assertTrue(store.holds().releaseBatch(bid, "op"));
        assertNull(ZK.client().checkExists().forPath(QueuePaths.batchHold(bid)));
        assertNotNull(ZK.client().checkExists().forPath(QueuePaths.batchRelease(bid)));

        AdminActions other = new AdminActions(ZK.store(dir), Clock.systemUTC()); // another host's pass
        assertEquals(249, other.batches().releases().pass());
        assertNull(ZK.client().checkExists().forPath(QueuePaths.batchRelease(bid)), "done: its entry removed");
        assertEquals(249, store.jobs().count(JobState.PENDING));
        assertEquals(JobState.HELD, store.jobs().load(byHand).state(), "held by hand: stays held");
        assertEquals(0, other.batches().releases().pass(), "nothing left");
    }

    @Test
    void aStopAfterTheHoldWasLiftedStopsNothingAndAHoldAgainKeepsItsJobs() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 3, 5);
        List<String> jids = store.batches().jobs(bid, BatchRef.PROCESSING);
        assertFalse(stop(jids.get(0), HeldBy.batch(bid)), "no hold node: the move fails on its check, nothing written");
        assertEquals(JobState.PENDING, store.jobs().load(jids.get(0)).state());

        admin.holdBatch(bid, "op");
        assertTrue(stop(jids.get(1), HeldBy.batch(bid)));
        store.holds().releaseBatch(bid, "op"); // lifted, and its host gone before its own pass ran
        admin.holdBatch(bid, "op"); // held again before any pass ran: the stopped job waits for this hold's release
        assertEquals(0, admin.batches().releases().pass());
        assertEquals(JobState.HELD, store.jobs().load(jids.get(1)).state());
        assertEquals(List.of(), store.holds().batchReleases());
        store.holds().releaseBatch(bid, "op");
        assertEquals(1, admin.batches().releases().pass());
        assertEquals(JobState.PENDING, store.jobs().load(jids.get(1)).state());
    }

    @Test
    void aPendingBatchWhoseJobsRunIsHeldBothWays() {
        String bid = store.batches().create(QueueTestSupport.submission("demo_content"));
        HeldBatch making = store.batches().tryLock(bid, "batch-pending").orElseThrow();
        store.batches().createJobs(making, List.of(QueueTestSupport.newJob("loc0", 5))); // its first window
        store.moves().unlock(making);
        assertEquals(BatchState.HELD, admin.holdBatch(bid, "op").state(), "as mrt-zk's Pending -> Held");
        assertTrue(store.holds().isBatchHeld(bid), "and its jobs already made stop too");
        assertEquals(BatchState.PENDING, admin.releaseBatch(bid, "op").state());
        assertFalse(store.holds().isBatchHeld(bid));
    }

    @Test
    void aHoldLeftOnABatchThatEndedIsDroppedAndAnEndedBatchIsRefused() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        admin.holdBatch(bid, "op");
        QueueTestSupport.walkToCompleted(store, 1);
        assertEquals(BatchState.REPORTING, store.batches().load(bid).state());
        admin.batches().releases().pass();
        assertFalse(store.holds().isBatchHeld(bid), "its hold dropped once it ended");
        IllegalTransitionException ended = assertThrows(
                IllegalTransitionException.class, () -> admin.holdBatch(bid, "op"));
        assertTrue(ended.getMessage().contains("nothing is left to hold"), ended.getMessage());
        IllegalTransitionException notHeld = assertThrows(
                IllegalTransitionException.class, () -> admin.releaseBatch(bid, "op"));
        assertTrue(notHeld.getMessage().contains("not held"), notHeld.getMessage());
    }
}
