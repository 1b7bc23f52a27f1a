package org.cdlib.mrt.ingestqueue.queue.fsck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.cdlib.mrt.ingestqueue.testing.merritt.MrtZk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The periodic repair: bounded passes that come round to every batch, and a job damaged while a
 * worker holds it repaired without a person (its lock broken, the old holder fenced off).
 */
class ConsistencySweepTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    final Path dir = ZK.dir();

    @Test
    void aJobDamagedUnderALiveWorkersLockIsLeftToItAndRepairedOnceItLetsGo() throws Exception {
        QueueStore store = ZK.store(dir);
        String bid = QueueTestSupport.batchWithJobs(store, 2, 5);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        HeldJob worker = store.claims()
                .claim(JobState.PENDING, store.jobs().load(jid).refName(), "worker")
                .orElseThrow();
        ZK.client().setData().forPath(QueuePaths.jobNode(jid, "priority"), "garbage".getBytes());

        ConsistencyCheck.Slice s = new ConsistencyCheck(store, 0).repairSlice(0, 10);
        assertTrue(s.report().violations().stream().anyMatch(v -> v.kind().equals("corrupt-priority") && !v.repaired()),
                s.report().toString());
        assertEquals(0, store.claims().breaks().count(), "a lock in its holder's ledger is never broken unattended");
        // its holder is not fenced off
        store.moves().transition(worker, JobState.ESTIMATING, Change.because("step succeeded"));

        s = new ConsistencyCheck(store, 0).repairSlice(0, 10);
        assertTrue(s.report().violations().stream().anyMatch(v -> v.kind().equals("corrupt-priority") && v.repaired()),
                s.report().toString());
        assertEquals(5, store.jobs().load(jid).priority(), "rebuilt from its reference name");
        assertEquals(null, store.jobs().load(jid).lockOwner(), "the repair's own lock let go");
        assertTrue(new ConsistencyCheck(store).check().clean(), new ConsistencyCheck(store).check().toString());
    }

    /** Beside mrt-zk: a damaged job it holds (its 0-byte lock, its own session) is never broken by the sweep. */
    @Test
    void anMrtZkHoldersLockIsNeverBrokenByTheSweep() throws Exception {
        QueueStore store = ZK.store(dir);
        String bid = QueueTestSupport.batchWithJobs(store, 2, 5);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        CuratorFramework neighbour = QueueTestSupport.client(ZK.server());
        try {
            MrtZk mrtZk = new MrtZk(neighbour.getZookeeperClient().getZooKeeper());
            assertTrue(mrtZk.lock(QueuePaths.job(jid)));
            long session = neighbour.getZookeeperClient().getZooKeeper().getSessionId();
            ZK.client().setData().forPath(QueuePaths.jobNode(jid, "priority"), "garbage".getBytes());
            ConsistencyCheck sweep = new ConsistencyCheck(store, 0);
            for (int pass = 0; pass < 3; pass++) {
                sweep.repairSlice(0, 10);
            }
            Stat lock = ZK.client().checkExists().forPath(QueuePaths.jobLock(jid));
            assertTrue(lock != null && lock.getEphemeralOwner() == session, "mrt-zk's lock is mrt-zk's still");
            assertEquals(0, store.claims().breaks().count());
        } finally {
            neighbour.close();
        }
    }

    /**
     * fsck and the sweep beside busy workers: a 200-job batch walked by 4 workers while fsck runs
     * with no grace at all, again and again. Nothing it reports is real, so it reports nothing and
     * breaks nothing.
     */
    @Test
    void aBusyBatchGivesNoFindingsAndNoBrokenLocks() throws Exception {
        QueueStore store = ZK.store(dir);
        QueueTestSupport.batchWithJobs(store, 200, 5);
        AtomicBoolean done = new AtomicBoolean();
        CompletableFuture<Integer> walked = CompletableFuture.supplyAsync(() -> {
            try {
                return QueueTestSupport.walkToCompleted(store, 4);
            } catch (Exception e) {
                throw new RuntimeException(e);
            } finally {
                done.set(true);
            }
        });
        ConsistencyCheck sweep = new ConsistencyCheck(store, 0);
        List<Violation> found = new ArrayList<>();
        int passes = 0;
        int during = 0;
        long next = 0;
        long began = System.nanoTime();
        while (!done.get() || passes < 2) {
            during += done.get() ? 0 : 1;
            ConsistencyCheck.Slice s = sweep.repairSlice(next, 10);
            next = s.next();
            found.addAll(s.report().violations());
            found.addAll(sweep.check().violations());
            passes++;
        }
        walked.get(120, TimeUnit.SECONDS);
        assertTrue(during >= 1, "fsck ran during the walk: " + during + " of " + passes + " passes in "
                + (System.nanoTime() - began) / 1_000_000 + " ms");
        System.out.println("busy batch: " + during + " of " + passes + " passes during the walk, "
                + (System.nanoTime() - began) / 1_000_000 + " ms");
        assertEquals(List.of(), found, "no false findings in " + passes + " passes");
        assertEquals(0, store.claims().breaks().count(), "no healthy lock broken");
    }

    @Test
    void passesAreBoundedAndComeRoundToEveryBatch() throws Exception {
        QueueStore store = ZK.store(dir);
        List<String> bids = List.of(
                QueueTestSupport.batchWithJobs(store, 1, 5),
                QueueTestSupport.batchWithJobs(store, 1, 5),
                QueueTestSupport.batchWithJobs(store, 1, 5));
        ZK.client()
                .setData()
                .forPath(
                        QueuePaths.jobNode(
                                store.batches()
                                        .jobs(bids.get(0), BatchRef.PROCESSING)
                                        .get(0),
                                "priority"),
                        "x".getBytes());
        ConsistencyCheck check = new ConsistencyCheck(store);
        ConsistencyCheck.Slice first = check.repairSlice(2, 2); // a walk that starts past the damaged batch
        assertTrue(first.report().violations().isEmpty(), "not walked yet: " + first.report());
        int walked = first.report().batches();
        long next = first.next();
        boolean repaired = false;
        for (int pass = 0; pass < 20 && !repaired; pass++) {
            ConsistencyCheck.Slice s = check.repairSlice(next, 2);
            assertTrue(s.to() - s.from() + 1 <= 2, "a pass walks at most its count of batch numbers: " + s);
            walked += s.report().batches();
            repaired =
                    s.report().violations().stream().anyMatch(v -> v.kind().equals("corrupt-priority") && v.repaired());
            next = s.next();
        }
        assertTrue(repaired, "the walk came round to the damaged batch");
        assertEquals(3, walked, "every batch once");
    }

    @Test
    void aDamagedOpenBatchDoesNotHideItsJobsDamageAndItsStatusIsRebuiltFromItsReferences() throws Exception {
        QueueStore store = ZK.store(dir);
        String bid = QueueTestSupport.batchWithJobs(store, 3, 5);
        List<String> jids = store.batches().jobs(bid, BatchRef.PROCESSING);
        HeldJob done = store.claims()
                .claim(JobState.PENDING, store.jobs().load(jids.get(0)).refName(), "w")
                .orElseThrow();
        store.moves().transition(done, JobState.FAILED, Change.failure("bad payload"));
        ZK.client().setData().forPath(QueuePaths.batchStatus(bid), "not json".getBytes());
        ZK.client().setData().forPath(QueuePaths.jobNode(jids.get(1), "priority"), "garbage".getBytes());

        ConsistencyCheck.Report seen = new ConsistencyCheck(store).check();
        assertTrue(seen.violations().stream().anyMatch(v -> v.kind().equals("corrupt-batch")), seen.toString());
        assertTrue(
                seen.violations().stream().anyMatch(v -> v.kind().equals("corrupt-priority")), "not hidden: " + seen);

        ConsistencyCheck.Report r = new ConsistencyCheck(store).repair();
        assertTrue(
                r.violations().stream().anyMatch(v -> v.kind().equals("corrupt-batch-status") && v.repaired()),
                r.toString());
        assertTrue(
                r.violations().stream().anyMatch(v -> v.kind().equals("corrupt-priority") && v.repaired()),
                r.toString());
        Batch b = store.batches().load(bid);
        assertEquals(BatchState.PROCESSING, b.state(), "two of its jobs are open");
        assertEquals(jids, b.jobIds(), "its runs of ids from the references");
        assertEquals(1, b.count(BatchRef.FAILED));
        assertEquals(5, store.jobs().load(jids.get(1)).priority());
        assertTrue(new ConsistencyCheck(store).check().clean(), new ConsistencyCheck(store).check().toString());
    }

    @Test
    void aBatchStillCreatingItsJobsIsNotGuessed() throws Exception {
        QueueStore store = ZK.store(dir);
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        Files.createDirectories(store.ingestHome().resolve(bid));
        Files.writeString(store.ingestHome().resolve(bid).resolve("batch-manifest.checkm"), "#%checkm_0.7\n");
        ZK.client().setData().forPath(QueuePaths.batchStatus(bid), "not json".getBytes());
        ConsistencyCheck.Report r = new ConsistencyCheck(store).repair();
        assertTrue(r.violations().stream().anyMatch(v -> v.kind().equals("corrupt-batch") && !v.repaired()
                && v.detail().contains("still creating jobs")), r.toString());
    }
}
