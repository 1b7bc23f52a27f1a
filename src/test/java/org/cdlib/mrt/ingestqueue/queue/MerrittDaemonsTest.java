package org.cdlib.mrt.ingestqueue.queue;

import static org.awaitility.Awaitility.await;
import static org.cdlib.mrt.ingestqueue.testing.merritt.MrtZkDaemon.CONFIGURATION;
import static org.cdlib.mrt.ingestqueue.testing.merritt.MrtZkDaemon.NO_IDENTIFIERS;
import static org.cdlib.mrt.ingestqueue.testing.merritt.MrtZkDaemon.SUBMISSION;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.ZooKeeper;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.fsck.SpaceCheck;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.space.SpaceHeal;
import org.cdlib.mrt.ingestqueue.report.ReportStep;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.cdlib.mrt.ingestqueue.testing.merritt.MrtZkAdminTool;
import org.cdlib.mrt.ingestqueue.testing.merritt.MrtZkDaemon.DaemonJob;
import org.cdlib.mrt.ingestqueue.testing.merritt.MrtZkDaemon;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Merritt's ingest daemons beside ours on one ensemble (issue 42), through the raw ZooKeeper
 * calls mrt-zk's Java makes (CDLUC3/mrt-zk at f113b84: {@code Batch.acquirePendingBatch},
 * {@code Job.createJob}, {@code Job.acquireJob}, {@code QueueItem.setStatus}, {@code lock}/{@code unlock};
 * every call on its own, no multi), on a session of their own.
 */
class MerrittDaemonsTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();


    final Path dir = ZK.dir();
    QueueStore store;
    CuratorFramework merrittClient;
    ZooKeeper merritt;
    MrtZkDaemon daemon;
    MrtZkAdminTool adminTool;

    @BeforeEach
    void setUp() throws Exception {
        store = ZK.store(dir);
        merrittClient = ZK.otherClient();
        merritt = merrittClient.getZookeeperClient().getZooKeeper();
        daemon = new MrtZkDaemon(merritt);
        adminTool = new MrtZkAdminTool(merritt);
    }

    @AfterEach
    void close() {
        store.close();
    }

    // ---- mrt-zk's calls: its daemons' (MrtZkDaemon) ---------------------------------------------

    /** {@code Job.acquireJob(state)}: the job it locked and loaded, null when none. */
    DaemonJob acquireJob(JobState state) throws Exception {
        return daemon.acquireJob(state.zk());
    }

    static String id(DaemonJob job) {
        return job == null ? null : job.id;
    }

    /** An mrt-zk worker's move of a job it holds ({@code QueueItem.setStatus}: status, references), then unlock. */
    void mrtZkMove(DaemonJob job, JobState to) throws Exception {
        daemon.setStatus(job, to.zk(), "");
        daemon.unlock(job);
    }

    static void waitFor(String what, BooleanSupplier condition) {
        await(what).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20)).until(condition::getAsBoolean);
    }

    // ---- 1: jobs of a batch Merritt's batch consumer took --------------------------------------

    @Test
    void jobsOfABatchMerrittsBatchConsumerTookCompleteAndMerrittsReporterReportsThemOnce() throws Exception {
        String bid = daemon.createBatch("bid-1", SUBMISSION);
        assertEquals(bid, daemon.acquirePendingBatch()); // locked, states created (nothing under it), Processing
        List<String> jids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            jids.add(daemon.createJob(bid, 5, CONFIGURATION, NO_IDENTIFIERS));
        }
        daemon.setBatchStatus(bid, "Reporting", ""); // mrt-ingest's BatchConsumer, once the jobs are made
        daemon.unlock("/batches/" + bid);
        assertNull(merritt.exists("/batches/" + bid + "/states/batch-completed", false), "mrt-zk made no such folder");

        for (String jid : jids) {
            // notify → completed was refused: NONODE on states/batch-completed/JID
            QueueTestSupport.workTo(store, jid, JobState.COMPLETED);
        }
        for (String jid : jids) {
            assertEquals(JobState.COMPLETED, store.jobs().load(jid).state());
        }
        assertEquals(0, merritt.getChildren("/batches/" + bid + "/states/batch-processing", false).size());
        assertTrue(ReportStep.merrittReports(store.batches().load(bid)), "Merritt's batch: its reporter's, not ours");
        assertTrue(store.calls().stat(QueuePaths.batchIndex(BatchState.REPORTING, bid)) == null,
                "not in our reporting index: no report of ours");

        // mrt-ingest's BatchReportConsumer: Batch.acquireBatchForReporting takes it, reads its jobs, completes it
        assertTrue(daemon.lock("/batches/" + bid), "nobody of ours holds it");
        daemon.setBatchStatus(bid, "Reporting", "");
        List<String> reported =
                new ArrayList<>(merritt.getChildren("/batches/" + bid + "/states/batch-completed", false));
        Collections.sort(reported);
        assertEquals(jids, reported, "its report lists every job");
        assertTrue(merritt.getChildren("/batches/" + bid + "/states/batch-failed", false).isEmpty());
        daemon.setBatchStatus(bid, "Completed", "");
        daemon.unlock("/batches/" + bid);
    }

    // ---- 2: the disk counters beside mrt-zk's workers ------------------------------------------

    /** Jobs estimated at distinct sizes, in provisioning. */
    List<String> provisioning(int n) {
        String bid = QueueTestSupport.batchWithJobs(store, n, 5);
        List<String> jids = new ArrayList<>(store.batches().jobs(bid, BatchRef.PROCESSING));
        Collections.sort(jids);
        for (int i = 0; i < jids.size(); i++) {
            QueueTestSupport.walk(store, jids.get(i), JobState.ESTIMATING);
            HeldJob l = store.claims().tryLockJob(jids.get(i), "estimator").orElseThrow();
            store.moves()
                    .transition(
                            l,
                            JobState.PROVISIONING,
                            Change.because("estimated").withSpaceNeeded(1_000L + 37L * i));
        }
        return jids;
    }

    boolean exact() {
        return SpaceCheck.run(store, false).isEmpty();
    }

    @Test
    void mrtZkWorkersMovesIntoAndOutOfDownloadingKeepOurCountersExactWithinSeconds() throws Exception {
        SpaceHeal heal = store.healSpace();
        List<String> jids = provisioning(40);
        List<String> theirs = jids.subList(0, 20);
        List<String> ours = jids.subList(20, 40);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            // ours: admitted into downloading and on out of it, concurrently with theirs
            Future<?> ourWork = pool.submit(() -> {
                for (String jid : ours) {
                    HeldJob l = store.claims().tryLockJob(jid, "provisioner").orElseThrow();
                    store.moves()
                            .transition(
                                    l,
                                    JobState.DOWNLOADING,
                                    Change.because("admitted").admittedWhileReservedAtMost(Long.MAX_VALUE / 4));
                    HeldJob d = store.claims().tryLockJob(jid, "downloader").orElseThrow();
                    store.moves().transition(d, JobState.PROCESSING, Change.because("downloaded"));
                }
                return null;
            });
            Future<?> theirWork = pool.submit(() -> {
                for (int i = 0; i < theirs.size(); i++) {
                    DaemonJob job = acquireJob(JobState.PROVISIONING);
                    mrtZkMove(job, JobState.DOWNLOADING);
                    if (i % 2 == 0) { // half of theirs stay in downloading
                        assertTrue(daemon.lock(job.path()));
                        mrtZkMove(job, JobState.PROCESSING);
                    }
                }
                return null;
            });
            ourWork.get();
            theirWork.get();
        } finally {
            pool.shutdownNow();
        }
        long start = System.nanoTime();
        waitFor("the counters exact", this::exact);
        System.out.printf("counters exact %d ms after the last move; %d heal(s), %d evaluation(s)%n",
                (System.nanoTime() - start) / 1_000_000, heal.heals(), heal.evaluations());
        assertTrue(heal.heals() > 0, "healed: mrt-zk's moves skipped the counters");
        assertEquals(10, store.jobs().count(JobState.DOWNLOADING), "theirs left in downloading");
        long needed = store.jobs()
                .spaceNeeded(store.jobs().refs(JobState.DOWNLOADING).stream()
                        .map(QueuePaths::jidOfRef)
                        .toList());
        assertEquals(needed, store.jobs().spaceReserved().bytes());
        assertTrue(
                counter(QueuePaths.SPACE_ADMITTED) >= 0 && counter(QueuePaths.SPACE_RELEASED) >= 0, "never negative");
        ConsistencyCheck.Report fsck = new ConsistencyCheck(store).check();
        assertTrue(fsck.violations().stream().noneMatch(v -> v.kind().equals("space-reservation")), fsck.toString());
    }

    long counter(String path) throws Exception {
        return Long.parseLong(new String(merritt.getData(path, false, null), StandardCharsets.UTF_8));
    }

    /** Provisioning's wait: once it returns, a move mrt-zk made just before is in the counters. */
    @Test
    void anAdmissionWaitsUntilAMoveThatSkippedTheCountersIsAccounted() throws Exception {
        SpaceHeal heal = store.healSpace();
        List<String> jids = provisioning(3);
        heal.awaitAccounted(10_000);
        long before = store.jobs().spaceReserved().bytes();
        DaemonJob job = acquireJob(JobState.PROVISIONING);
        mrtZkMove(job, JobState.DOWNLOADING);
        String jid = job.id;
        heal.awaitAccounted(10_000); // what ProvisionStep does before it decides
        assertEquals(before + store.jobs().load(jid).spaceNeeded(), store.jobs().spaceReserved().bytes(),
                "admission decides on the healed counters");
        assertTrue(exact());
        assertEquals(jids.get(0), jid);
    }

    /**
     * The cost of the healing: ZooKeeper operations this store issued per mrt-zk move into and out
     * of downloading (the watch's evaluation, the cut, the repair), with {@code n} jobs downloading.
     */
    @Test
    void healingCostPerMrtZkMove() throws Exception {
        SpaceHeal heal = store.healSpace();
        List<String> jids = provisioning(201);
        for (String jid : jids.subList(1, 201)) {
            HeldJob l = store.claims().tryLockJob(jid, "provisioner").orElseThrow();
            store.moves().transition(l, JobState.DOWNLOADING, Change.because("admitted"));
        }
        String jid = jids.get(0);
        heal.awaitAccounted(10_000);
        int moves = 10;
        long ops = store.operations();
        long evaluations = heal.evaluations();
        long t0 = System.nanoTime();
        for (int i = 0; i < moves; i++) {
            long heals = heal.heals();
            assertTrue(daemon.lock("/jobs/" + jid));
            mrtZkMove(daemon.load(jid), JobState.DOWNLOADING);
            waitFor("healed in", () -> heal.heals() > heals);
            long heals2 = heal.heals();
            // back: no daemon's move (states.yml has no Downloading -> Provisioning); the Admin Tool's
            // set_status checks none
            assertTrue(daemon.lock("/jobs/" + jid));
            adminTool.setJobStatus(adminTool.loadJob(jid), JobState.PROVISIONING.zk(), "", false);
            daemon.unlock("/jobs/" + jid);
            waitFor("healed out", () -> heal.heals() > heals2);
        }
        long perMove = (store.operations() - ops) / (2L * moves);
        System.out.printf(
                "BENCH heal: 200 jobs downloading, %d mrt-zk moves: %d ZooKeeper ops per move, %d evaluations, %.1f ms"
                        + " per move%n",
                2 * moves, perMove, heal.evaluations() - evaluations, (System.nanoTime() - t0) / 1e6 / (2 * moves));
        // our own moves: the mark stays, so an evaluation is one synced stat and one counters read
        long ops2 = store.operations();
        long ev2 = heal.evaluations();
        long heals = heal.heals();
        for (String j : jids.subList(1, 21)) {
            HeldJob l = store.claims().tryLockJob(j, "downloader").orElseThrow();
            store.moves().transition(l, JobState.PROCESSING, Change.because("downloaded"));
        }
        heal.awaitAccounted(10_000);
        System.out.printf(
                "BENCH heal: 20 moves of ours out of downloading: %d ZooKeeper ops in all (moves included), %d"
                        + " evaluations, %d heals%n",
                store.operations() - ops2, heal.evaluations() - ev2, heal.heals() - heals);
        assertEquals(heals, heal.heals(), "our own moves need no heal");
        assertTrue(exact());
    }

    // ---- 3: a job one side holds is never worked by the other ----------------------------------

    @Test
    void mrtZkAcquireJobPassesAJobWeHoldAndOursPassesOneItHolds() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 2, 5);
        List<String> jids = new ArrayList<>(store.batches().jobs(bid, BatchRef.PROCESSING));
        Collections.sort(jids);
        HeldJob ours = store.claims().tryLockJob(jids.get(0), "our-worker").orElseThrow();
        assertEquals(jids.get(1), id(acquireJob(JobState.PENDING)),
                "acquireJob(Pending) passes the job we hold, takes the next");
        assertNull(id(acquireJob(JobState.PENDING)), "and nothing else");
        assertEquals(
                Optional.empty(),
                store.claims().tryLockJob(jids.get(1), "our-worker"),
                "the one it holds is not ours to take");
        assertFalse(store.claims().claim(JobState.PENDING, "05-" + jids.get(1), "our-worker").isPresent());
        store.moves().unlock(ours);
        daemon.unlock("/jobs/" + jids.get(1));
    }
}
