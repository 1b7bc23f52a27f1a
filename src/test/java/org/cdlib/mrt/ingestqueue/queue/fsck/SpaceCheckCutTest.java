package org.cdlib.mrt.ingestqueue.queue.fsck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.Probes;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * fsck judges the disk counters against a consistent cut: a job that moves into or out of
 * downloading between the counters' read and the jobs' sum is not judged on that mixed read (and
 * not "repaired" on it), while a counter really wrong is reported and set right. The move is put
 * between SpaceCheck's reads by its hook, so the interleaving is the same every run.
 *
 * <p>A move of this queue's own writes the counters in its transaction, so the counters' versions
 * already show it; one of Merritt's tools (the Admin Tool's {@code set_status}, mrt-zk) moves a job's
 * state reference without the counters, and only the downloading folder's children version shows it.
 */
class SpaceCheckCutTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int PRIORITY = 5;

    final Path dir = ZK.dir();
    QueueStore store;
    /** Sizes unequal, so a job counted twice or not at all shows. */
    final long[] sizes = {7, 1_000, 20_000, 300_000};
    List<String> jids;

    @BeforeEach
    void setUp() {
        store = ZK.store(dir);
        String bid = QueueTestSupport.batchWithJobs(store, sizes.length, PRIORITY);
        jids = new ArrayList<>(store.batches().jobs(bid, BatchRef.PROCESSING));
        Collections.sort(jids);
        for (int i = 0; i < jids.size(); i++) {
            QueueTestSupport.walk(store, jids.get(i), JobState.ESTIMATING);
            HeldJob l = store.claims().tryLockJob(jids.get(i), "estimator").orElseThrow();
            store.moves().transition(l, JobState.PROVISIONING, Change.because("estimated").withSpaceNeeded(sizes[i]));
        }
        // 7 and 1,000 downloading through this queue: counted
        QueueTestSupport.walk(store, jids.get(0), JobState.DOWNLOADING);
        QueueTestSupport.walk(store, jids.get(1), JobState.DOWNLOADING);
        assertEquals(1_007, store.jobs().spaceReserved().bytes());
        assertEquals(Optional.empty(), SpaceCheck.run(store, false));
    }

    @AfterEach
    void noHook() {
        store.probes().clear();
    }

    /** As the Admin Tool's set_status: the status and the state reference moved, one call each, no counter touched. */
    static void setStatusAsMerrittsTools(String jid, JobState from, JobState to) throws Exception {
        String path = QueuePaths.jobStatus(jid);
        ObjectNode s = (ObjectNode) JSON.readTree(ZK.client().getData().forPath(path));
        s.put("status", to.zk());
        ZK.client().setData().forPath(path, JSON.writeValueAsBytes(s));
        ZK.client().delete().forPath(QueuePaths.jobRef(from, PRIORITY, jid));
        ZK.client().create().forPath(QueuePaths.jobRef(to, PRIORITY, jid));
    }

    Stat released() throws Exception {
        return ZK.client().checkExists().forPath(QueuePaths.SPACE_RELEASED);
    }

    long releasedBytes() throws Exception {
        return Long.parseLong(
                new String(ZK.client().getData().forPath(QueuePaths.SPACE_RELEASED), StandardCharsets.UTF_8));
    }

    /** The probe runs {@code move} once, on the first pass only. */
    AtomicInteger once(ThrowingRunnable move) {
        AtomicInteger runs = new AtomicInteger();
        store.probes().set(Probes.Point.BEFORE_SECOND_CUT, () -> {
            if (runs.incrementAndGet() == 1) {
                try {
                    move.run();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        });
        return runs;
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    /**
     * Merritt's tools took a job (300,000 bytes) into downloading without the counters and move it
     * out again between the sum (which counted it) and the second cut. Judged on that read, the
     * counters "reserve 1,007; the jobs need 301,007", and the repair would set the released counter
     * 300,000 too low: every later admission would see 300,000 bytes more reserved than there are.
     */
    @Test
    void aJobLeavingDownloadingWithoutTheCountersBetweenTheReadsIsNotJudgedNorRepaired() throws Exception {
        setStatusAsMerrittsTools(jids.get(3), JobState.PROVISIONING, JobState.DOWNLOADING);
        Stat before = released();
        AtomicInteger runs =
                once(() -> setStatusAsMerrittsTools(jids.get(3), JobState.DOWNLOADING, JobState.PROCESSING));

        assertEquals(
                Optional.empty(),
                SpaceCheck.run(store, true),
                "nothing found: the cut was not consistent, it was read again");
        assertTrue(runs.get() >= 2, "summed again after the move, " + runs.get() + " pass(es)");
        assertEquals(before.getVersion(), released().getVersion(), "nothing repaired");
        assertEquals(1_007, store.jobs().spaceReserved().bytes());
    }

    /** A move of this queue's own (counted in its transaction) between the reads: nothing found, the counters exact. */
    @Test
    void aCountedMoveBetweenTheReadsIsNotJudged() throws Exception {
        Stat before = released();
        AtomicInteger runs = once(() -> QueueTestSupport.walk(store, jids.get(2), JobState.DOWNLOADING));

        assertEquals(Optional.empty(), SpaceCheck.run(store, true));
        assertTrue(runs.get() >= 2, "summed again after the move");
        assertEquals(before.getVersion(), released().getVersion(), "nothing repaired");
        assertEquals(21_007, store.jobs().spaceReserved().bytes());
    }

    /**
     * A counter really wrong (written by hand: 5 bytes released that no job gave back) is reported
     * and set right, even when a move got between the reads of the first look: it is judged on the
     * consistent cut that follows, once.
     */
    @Test
    void aRealCounterErrorIsReportedAndRepairedOnTheConsistentCut() throws Exception {
        long truth = releasedBytes();
        ZK.client()
                .setData()
                .forPath(QueuePaths.SPACE_RELEASED, String.valueOf(truth + 5).getBytes(StandardCharsets.UTF_8));
        setStatusAsMerrittsTools(jids.get(3), JobState.PROVISIONING, JobState.DOWNLOADING);
        once(() -> setStatusAsMerrittsTools(jids.get(3), JobState.DOWNLOADING, JobState.PROCESSING));
        int version = released().getVersion();
        long admitted = Long.parseLong(
                new String(ZK.client().getData().forPath(QueuePaths.SPACE_ADMITTED), StandardCharsets.UTF_8));
        int admittedVersion = ZK.client().checkExists().forPath(QueuePaths.SPACE_ADMITTED).getVersion();

        Optional<Violation> v = SpaceCheck.run(store, true);
        assertTrue(v.isPresent(), "the error is reported");
        assertEquals("space-reservation", v.get().kind());
        // too little reserved: admitted raised (never a counter lowered),
        // so admissions pipelined on the old counts fail their check
        assertEquals(
                "the counters reserve 1002 bytes; the 2 job(s) in downloading need 1007; admitted set to "
                        + (admitted + 5),
                v.get().detail());
        assertTrue(v.get().repaired());
        assertEquals(truth + 5, releasedBytes(), "released left as it was");
        assertEquals(version, released().getVersion());
        assertEquals(
                admittedVersion + 1,
                ZK.client().checkExists().forPath(QueuePaths.SPACE_ADMITTED).getVersion(),
                "written once");
        assertEquals(Optional.empty(), SpaceCheck.run(store, false));
        assertEquals(1_007, store.jobs().spaceReserved().bytes());
    }
}
