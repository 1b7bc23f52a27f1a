package org.cdlib.mrt.ingestqueue.queue.fsck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The disk reservation stays what the jobs in downloading need: a job deleted while downloading
 * (with its damaged batch, the one way an operator can) releases its bytes in the deletion's own
 * transaction, and fsck finds counters
 * that drifted anyway (by hand, or by a version that did not release on delete) and repairs them.
 */
class SpaceReservationRepairTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();

    final Path dir = ZK.dir();
    QueueStore store;
    List<String> jids;
    String bid;

    @BeforeEach
    void setUp() throws Exception {
        store = ZK.store(dir);
        bid = QueueTestSupport.batchWithJobs(store, 2, 5);
        jids = store.batches().jobs(bid, BatchRef.PROCESSING);
        long[] bytes = {1_000, 250};
        for (int i = 0; i < jids.size(); i++) {
            for (JobState s : List.of(JobState.PENDING, JobState.ESTIMATING, JobState.PROVISIONING)) {
                HeldJob lock = store.claims().tryLockJob(jids.get(i), "test").orElseThrow();
                Change c = s == JobState.ESTIMATING ? Change.because("estimated").withSpaceNeeded(bytes[i])
                        : s == JobState.PROVISIONING ? Change.because("admitted").admittedWhileReservedAtMost(1_000_000)
                        : Change.because("go");
                store.moves().transition(lock, s.successor(), c);
            }
        }
        assertEquals(1_250, store.jobs().spaceReserved().bytes());
    }

    @Test
    void jobsDeletedWhileDownloadingReleaseTheirBytes() throws Exception {
        ZK.client().setData().forPath(QueuePaths.batchStatus(bid), "{damaged".getBytes(StandardCharsets.UTF_8));
        new AdminActions(store, Clock.systemUTC()).deleteBatch(bid, "operator");
        assertFalse(store.calls().exists(QueuePaths.job(jids.get(0))));
        assertEquals(0, store.jobs().spaceReserved().bytes(), "the deleted jobs' 1,250 bytes are no longer reserved");
        assertTrue(new ConsistencyCheck(store).check().clean(), new ConsistencyCheck(store).check().toString());
    }

    @Test
    void fsckFindsADriftedReservationAndRepairsIt() throws Exception {
        // a release that was never written: the counters still reserve a job that left
        ZK.client().setData().forPath(QueuePaths.SPACE_ADMITTED, "5250".getBytes(StandardCharsets.UTF_8));
        ConsistencyCheck fsck = new ConsistencyCheck(store);
        ConsistencyCheck.Report found = fsck.check();
        assertEquals(List.of("space-reservation"), found.violations().stream().map(Violation::kind).toList());
        assertTrue(
                found.violations()
                        .get(0)
                        .detail()
                        .contains("reserve 5250 bytes; the 2 job(s) in downloading need 1250"),
                found.violations().get(0).detail());
        assertFalse(found.violations().get(0).repaired());
        assertEquals(5_250, store.jobs().spaceReserved().bytes(), "check only reads");

        ConsistencyCheck.Report repaired = fsck.repair();
        assertTrue(repaired.violations().get(0).repaired(), repaired.toString());
        assertEquals(1_250, store.jobs().spaceReserved().bytes());
        assertTrue(fsck.check().clean(), fsck.check().toString());
    }
}
