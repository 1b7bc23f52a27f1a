package org.cdlib.mrt.ingestqueue.queue.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.errors.LockedException;
import org.cdlib.mrt.ingestqueue.queue.errors.NotFoundException;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.IllegalTransitionException;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.StatusReport;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every admin action of the design on a real ZooKeeper, and every refusal writing nothing. */
class AdminActionsTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();

    final Path dir = ZK.dir();
    QueueStore store;
    AdminActions admin;
    ConsistencyCheck fsck;

    @BeforeEach
    void setUp() throws Exception {
        store = ZK.store(dir);
        admin = new AdminActions(store, Clock.systemUTC());
        fsck = new ConsistencyCheck(store);
    }

    /** A job of a new batch walked by workers to {@code state} (pipeline states only). */
    String jobIn(JobState state) {
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        JobState s = JobState.PENDING;
        while (s != state) {
            HeldJob lock = store.claims().claim(s, store.jobs().load(jid).refName(), "worker").orElseThrow();
            s = s.successor();
            store.moves().transition(lock, s, Change.because("test"));
        }
        return jid;
    }

    String failedIn(JobState state) {
        String jid = jobIn(state);
        HeldJob lock = store.claims().claim(state, store.jobs().load(jid).refName(), "worker").orElseThrow();
        store.moves().transition(lock, JobState.FAILED, Change.failure("boom"));
        return jid;
    }

    @ParameterizedTest
    @EnumSource(
            value = JobState.class,
            names = {
                "PENDING",
                "ESTIMATING",
                "PROVISIONING",
                "DOWNLOADING",
                "PROCESSING",
                "STORING",
                "RECORDING",
                "NOTIFY"
            })
    void aJobHeldInAnyWorkingStateIsReleasedBackToWhereItWas(JobState state) {
        String jid = jobIn(state);
        assertEquals(JobState.HELD, admin.holdJob(jid, "op").state());
        assertEquals(1, store.jobs().refs(JobState.HELD).size());
        // released to the state after the last success (pending's success counts, as mrt-zk records it)
        assertEquals(state, admin.releaseJob(jid, "op").state());
        assertTrue(fsck.check().clean(), fsck.check().toString());
    }

    @ParameterizedTest
    @EnumSource(
            value = JobState.class,
            names = {"ESTIMATING", "PROVISIONING", "DOWNLOADING", "PROCESSING", "STORING", "RECORDING", "NOTIFY"})
    void aFailedJobIsRequeuedToTheStateAfterItsLastSuccessAndCountsTheRetry(JobState failedIn) {
        String jid = failedIn(failedIn);
        Job failed = store.jobs().load(jid);
        assertEquals("boom", failed.status().errorMessage());
        Job requeued = admin.requeueJob(jid, "op");
        assertEquals(failedIn, requeued.state());
        assertEquals(1, requeued.status().retryCount());
        assertEquals(
                failed.status().lastSuccessfulStatus(), requeued.status().lastSuccessfulStatus(), "kept on requeue");
        assertEquals(null, requeued.status().errorMessage());
        assertEquals(
                List.of(jid),
                store.batches().jobs(failed.batchId(), BatchRef.PROCESSING),
                "back under batch-processing");
        assertTrue(fsck.check().clean());
    }

    @Test
    void refusalsNameTheStateAndWhatIsAllowedAndWriteNothing() {
        String jid = jobIn(JobState.DOWNLOADING);
        Job before = store.jobs().load(jid);
        IllegalTransitionException e =
                assertThrows(IllegalTransitionException.class, () -> admin.requeueJob(jid, "op"));
        assertTrue(
                e.getMessage().contains("is downloading, not failed")
                        && e.getMessage().contains("held (hold)"),
                e.getMessage());
        assertFalse(e.allowed().isEmpty());
        assertThrows(IllegalTransitionException.class, () -> admin.releaseJob(jid, "op"));
        assertThrows(IllegalTransitionException.class, () -> admin.deleteJob(jid, true, "op"));
        assertEquals(before.statusVersion(), store.jobs().load(jid).statusVersion(), "nothing written");
        assertEquals(null, store.jobs().load(jid).lockOwner(), "the admin's lock is released");

        String done = jobIn(JobState.COMPLETED);
        assertThrows(IllegalTransitionException.class, () -> admin.holdJob(done, "op"));
        assertThrows(NotFoundException.class, () -> admin.holdJob("jid9999999999", "op"));
        assertThrows(NotFoundException.class, () -> admin.holdBatch("bid9999999999", "op"));
        assertTrue(fsck.check().clean());
    }

    @Test
    void aJobAWorkerHoldsIsRefusedNamingTheWorker() {
        String jid = jobIn(JobState.PROCESSING);
        HeldJob worker = store.claims()
                .claim(JobState.PROCESSING, store.jobs().load(jid).refName(), "processing-3")
                .orElseThrow();
        LockedException e = assertThrows(LockedException.class, () -> admin.holdJob(jid, "op"));
        assertTrue(e.getMessage().contains("processing-3") && e.getMessage().contains("pid"), e.getMessage());
        store.moves().transition(worker, JobState.STORING, Change.because("done"));
        assertEquals(JobState.HELD, admin.holdJob(jid, "op").state());
    }

    @Test
    void deletingAJobOfAnOpenBatchNeedsConfirmation() {
        String held = jobIn(JobState.ESTIMATING);
        String bid = store.jobs().load(held).batchId();
        admin.holdJob(held, "op");
        ConfirmRequiredException e = assertThrows(ConfirmRequiredException.class,
                () -> admin.deleteJob(held, false, "op"));
        assertTrue(e.getMessage().contains(bid) && e.getMessage().contains("confirm"), e.getMessage());
        assertTrue(store.jobs().find(held).isPresent(), "nothing deleted without confirmation");
        admin.deleteJob(held, true, "op");
        assertTrue(store.jobs().find(held).isEmpty());
        assertEquals(
                BatchState.REPORTING,
                store.batches().load(bid).state(),
                "its batch has no open job left, so it reports");
        assertTrue(fsck.check().clean(), fsck.check().toString());
    }

    @Test
    void batchesAreHeldReleasedDeletedAndUpdateReported() {
        String pending = store.batches().create(QueueTestSupport.submission("demo_content"));
        assertEquals(BatchState.HELD, admin.holdBatch(pending, "op").state());
        assertEquals(BatchState.PENDING, admin.releaseBatch(pending, "op").state());
        admin.holdBatch(pending, "op");
        admin.deleteBatch(pending, "op");
        assertFalse(store.batches().exists(pending));

        String jid = failedIn(JobState.RECORDING);
        String bid = store.jobs().load(jid).batchId();
        HeldBatch reporting = store.batches().tryLock(bid, "reporter").orElseThrow();
        store.moves()
                .transition(
                        reporting,
                        BatchState.FAILED,
                        "reported",
                        new StatusReport("t", List.of(jid), List.of(), 1),
                        null);
        admin.requeueJob(jid, "op");
        IllegalTransitionException open =
                assertThrows(IllegalTransitionException.class, () -> admin.updateReporting(bid, "op"));
        assertTrue(open.getMessage().contains(jid), open.getMessage());
        HeldJob w = store.claims().claim(JobState.RECORDING, store.jobs().load(jid).refName(), "w").orElseThrow();
        store.moves().transition(w, JobState.NOTIFY, Change.because("t"));
        w = store.claims().claim(JobState.NOTIFY, store.jobs().load(jid).refName(), "w").orElseThrow();
        store.moves().transition(w, JobState.COMPLETED, Change.because("t"));
        assertEquals(BatchState.FAILED, store.batches().load(bid).state(), "a failed batch waits for the operator");
        assertEquals(BatchState.UPDATE_REPORTING, admin.updateReporting(bid, "op").state());

        String failedBatch = store.jobs().load(failedIn(JobState.NOTIFY)).batchId();
        HeldBatch l = store.batches().tryLock(failedBatch, "reporter").orElseThrow();
        store.moves().transition(l, BatchState.FAILED, "reported", null, null);
        admin.deleteBatch(failedBatch, "op");
        assertFalse(store.batches().exists(failedBatch));
        assertTrue(fsck.check().clean(), fsck.check().toString());
    }

    @Test
    void aCollectionHoldAndReleaseAllFreeEveryHeldJobOfTheCollection() {
        admin.holds().holdCollection("demo_content", "op");
        assertTrue(store.holds().isCollectionHeld("demo_content"));
        String a = jobIn(JobState.PENDING);
        String b = jobIn(JobState.DOWNLOADING);
        admin.holdJob(a, "op");
        admin.holdJob(b, "op");
        IllegalTransitionException stillHeld = assertThrows(IllegalTransitionException.class,
                () -> admin.holds().releaseCollectionJobs("demo_content", "op"));
        assertTrue(stillHeld.getMessage().contains("still held"), stillHeld.getMessage());
        assertEquals(JobState.HELD, store.jobs().load(a).state(), "nothing was released");
        assertThrows(
                IllegalTransitionException.class,
                () -> admin.holds().holdCollection("demo_content", "op"),
                "held already");
        admin.holds().releaseCollection("demo_content", "op");
        assertEquals(2, admin.holds().releaseCollectionJobs("demo_content", "op"));
        assertEquals(JobState.PENDING, store.jobs().load(a).state());
        assertEquals(JobState.DOWNLOADING, store.jobs().load(b).state());
        assertTrue(assertThrows(
                        IllegalTransitionException.class, () -> admin.holds().releaseCollection("demo_content", "op"))
                .getMessage()
                .contains("is not held; nothing changed"));
        admin.holds().holdQueue("op");
        assertTrue(store.holds().isQueueHeld());
        assertThrows(IllegalTransitionException.class, () -> admin.holds().holdQueue("op"), "held already");
        admin.holds().releaseQueue("op");
        assertFalse(store.holds().isQueueHeld());
        assertThrows(IllegalTransitionException.class, () -> admin.holds().releaseQueue("op"), "not held");
    }

    @Test
    void cleanupRemovesBatchesCompletedLongerAgoThanTheRetentionOnly() {
        String jid = jobIn(JobState.COMPLETED);
        String bid = store.jobs().load(jid).batchId();
        HeldBatch l = store.batches().tryLock(bid, "reporter").orElseThrow();
        store.moves().transition(l, BatchState.COMPLETED, "reported", null, null);
        assertEquals(new CleanupResult(0, 0), admin.cleanup(Duration.ofDays(7)));
        assertTrue(store.jobs().find(jid).isPresent());
        AdminActions later =
                new AdminActions(store, Clock.fixed(Instant.now().plus(Duration.ofDays(8)), ZoneOffset.UTC));
        assertEquals(new CleanupResult(1, 1), later.cleanup(Duration.ofDays(7)));
        assertTrue(store.jobs().find(jid).isEmpty());
        assertFalse(store.batches().exists(bid));
        assertTrue(store.jobs().refs(JobState.COMPLETED).isEmpty());
        assertTrue(fsck.check().clean());
    }
}
