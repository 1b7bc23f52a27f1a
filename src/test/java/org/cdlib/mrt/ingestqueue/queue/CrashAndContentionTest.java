package org.cdlib.mrt.ingestqueue.queue;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.errors.StaleLockException;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.fsck.Violation;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionEvent;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.IllegalTransitionException;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.NewJob;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.Probes;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Crash points, contention and session expiry on a real ZooKeeper: a transition is all or
 * nothing, exactly one of two contenders gets a job, an expired writer changes nothing.
 */
class CrashAndContentionTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();

    final Path dir = ZK.dir();
    QueueStore store;
    ConsistencyCheck fsck;

    @BeforeEach
    void setUp() throws Exception {
        store = ZK.store(dir);
        fsck = new ConsistencyCheck(store);
    }

    /**
     * Makes one op of the failing transition (failed → job ref, batch ref, lock) impossible by
     * putting a node in its way, as a crash of another writer half-way would; the transaction must
     * then write nothing at all.
     */
    @ParameterizedTest
    @ValueSource(strings = {"status-version", "new-job-reference", "new-batch-reference", "lock"})
    void aTransitionThatCannotCompleteWritesNothing(String obstacle) throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        HeldJob lock = store.claims().claim(JobState.PENDING, store.jobs().load(jid).refName(), "w").orElseThrow();
        switch (obstacle) {
            case "status-version" -> ZK.client().setData().forPath(QueuePaths.jobStatus(jid),
                    ZK.client().getData().forPath(QueuePaths.jobStatus(jid)));
            case "new-job-reference" -> ZK.client().create().forPath(QueuePaths.jobRef(JobState.FAILED, 5, jid));
            case "new-batch-reference" -> ZK.client().create().forPath(QueuePaths.batchRef(bid, BatchRef.FAILED, jid));
            default -> ZK.client().delete().forPath(QueuePaths.jobLock(jid));
        }
        Job before = store.jobs().load(jid);
        assertThrows(QueueException.class, () -> store.moves().transition(lock, JobState.FAILED, Change.failure("x")));
        Job after = store.jobs().load(jid);
        assertEquals(JobState.PENDING, after.state(), "status untouched");
        assertEquals(before.statusVersion(), after.statusVersion());
        assertTrue(
                ZK.client().checkExists().forPath(QueuePaths.jobRef(JobState.PENDING, 5, jid)) != null,
                "old reference kept");
        assertTrue(store.batches().jobs(bid, BatchRef.PROCESSING).contains(jid), "batch reference kept");
        // the only thing fsck may find is the obstacle the test itself put there
        List<String> kinds = fsck.check().violations().stream().map(Violation::kind).toList();
        switch (obstacle) {
            case "new-job-reference" -> assertEquals(List.of("several-references"), kinds);
            case "new-batch-reference" -> assertEquals(List.of("wrong-batch-reference"), kinds);
            default -> assertEquals(List.of(), kinds);
        }
    }

    @Test
    void aWriterWhoseSessionExpiredChangesNothingAndItsJobIsFreeForOthers() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        try (CuratorFramework doomed = QueueTestSupport.client(ZK.server(), 4000)) {
            QueueStore doomedStore = QueueTestSupport.store(doomed, dir);
            HeldJob lock = doomedStore
                    .claims()
                    .claim(JobState.PENDING, store.jobs().load(jid).refName(), "doomed")
                    .orElseThrow();
            doomed.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
            await().atMost(Duration.ofSeconds(20)).until(() -> store.jobs().load(jid).lockOwner() == null);
            StaleLockException e = assertThrows(StaleLockException.class,
                    () -> doomedStore.moves().transition(lock, JobState.ESTIMATING, Change.because("late")));
            assertTrue(e.getMessage().contains("expired"), e.getMessage());
        }
        assertEquals(JobState.PENDING, store.jobs().load(jid).state());
        HeldJob mine = store.claims()
                .claim(JobState.PENDING, store.jobs().load(jid).refName(), "survivor")
                .orElseThrow();
        store.moves().transition(mine, JobState.ESTIMATING, Change.because("t"));
        assertTrue(fsck.check().clean());
    }

    @Test
    void twoSessionsContendingForJobsEachGetDisjointJobsAndEveryJobOnce() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 60, 5);
        List<String> all = store.batches().jobs(bid, BatchRef.PROCESSING);
        try (CuratorFramework other = QueueTestSupport.client(ZK.server())) {
            QueueStore[] stores = {store, QueueTestSupport.store(other, dir)};
            List<String> moved = Collections.synchronizedList(new ArrayList<>());
            CountDownLatch go = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(4);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                QueueStore s = stores[t % 2];
                String worker = "w" + t;
                done.add(pool.submit(() -> {
                    go.await();
                    for (var lock = s.claims().claimNext(JobState.PENDING, worker);
                            lock.isPresent();
                            lock = s.claims().claimNext(JobState.PENDING, worker)) {
                        s.moves().transition(lock.get(), JobState.ESTIMATING, Change.because(worker));
                        moved.add(lock.get().jid());
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : done) {
                f.get();
            }
            pool.shutdown();
            assertEquals(all.size(), moved.size(), "every job moved exactly once");
            assertEquals(new HashSet<>(all), Set.copyOf(moved));
        }
        assertTrue(fsck.check().clean());
    }

    @Test
    void aTenThousandJobBatchIsCreatedListedAndWalkedToCompleted() throws Exception {
        String failed = store.batches().jobs(QueueTestSupport.batchWithJobs(store, 1, 5), BatchRef.PROCESSING).get(0);
        QueueTestSupport.walk(store, failed, JobState.FAILED);
        String bid = QueueTestSupport.batchWithJobs(store, 10_000, 5);
        assertEquals(10_000, store.batches().jobs(bid, BatchRef.PROCESSING).size());
        assertEquals(10_000, store.jobs().counts().get(JobState.PENDING));
        AdminActions admin = new AdminActions(store, Clock.systemUTC());
        IllegalTransitionException full =
                assertThrows(IllegalTransitionException.class, () -> admin.requeueJob(failed, "op"));
        assertTrue(full.getMessage().contains("holds 10000 open jobs"), full.getMessage());
        assertEquals(
                JobState.FAILED,
                store.jobs().load(failed).state(),
                "a requeue never grows the open states past what they list");
        assertEquals(80_000, QueueTestSupport.walkToCompleted(store, 4));
        for (JobState s = JobState.PENDING; s != JobState.COMPLETED; s = s.successor()) {
            assertTrue(store.jobs().refs(s).isEmpty(), s + " drained");
        }
        assertEquals(10_000, store.jobs().counts().get(JobState.COMPLETED));
        assertEquals(10_000, store.batches().jobs(bid, BatchRef.COMPLETED).size());
        assertEquals(
                BatchState.REPORTING, store.batches().load(bid).state(), "the last job ending moved the batch once");
        assertEquals(JobState.PENDING, admin.requeueJob(failed, "op").state(), "room again");
    }

    @Test
    void twoSessionsEndingABatchsLastJobsAtOnceStartReportingOnce() throws Exception {
        try (CuratorFramework other = QueueTestSupport.client(ZK.server())) {
            QueueStore s2 = QueueTestSupport.store(other, dir);
            for (int round = 0; round < 20; round++) {
                String bid = QueueTestSupport.batchWithJobs(store, 2, 5);
                List<String> jids = store.batches().jobs(bid, BatchRef.PROCESSING);
                HeldJob a = store.claims().tryLockJob(jids.get(0), "one").orElseThrow();
                HeldJob b = s2.claims().tryLockJob(jids.get(1), "two").orElseThrow();
                List<String> moves = Collections.synchronizedList(new ArrayList<>());
                Consumer<TransitionEvent> l = e -> {
                    if (TransitionEvent.BATCH.equals(e.kind())) {
                        moves.add(e.to());
                    }
                };
                store.addListener(l);
                s2.addListener(l);
                CyclicBarrier together = new CyclicBarrier(2);
                ExecutorService pool = Executors.newFixedThreadPool(2);
                Future<?> fa = pool.submit(() -> {
                    together.await();
                    return store.moves().transition(a, JobState.FAILED, Change.failure("x"));
                });
                Future<?> fb = pool.submit(() -> {
                    together.await();
                    return s2.moves().transition(b, JobState.FAILED, Change.failure("y"));
                });
                fa.get();
                fb.get();
                pool.shutdown();
                assertEquals(BatchState.REPORTING, store.batches().load(bid).state());
                assertEquals(List.of("reporting"), moves, "round " + round);
                store.removeListener(l);
                s2.removeListener(l);
            }
        }
        assertTrue(fsck.check().clean());
    }

    @Test
    void jobCreationInterruptedBetweenChunksResumesWithoutDuplicates() throws Exception {
        QueueStore chunked = new QueueStore(ZK.client(), dir, 2).start();
        String bid = chunked.batches().create(QueueTestSupport.submission("demo_content"));
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            jobs.add(QueueTestSupport.newJob("loc" + i, 5));
        }
        // the process dies right after the first chunk committed
        chunked.probes().set(Probes.Point.AFTER_CHUNK, () -> {
            throw new QueueException("killed between chunks");
        });
        HeldBatch lock = chunked.batches().tryLock(bid, "pending").orElseThrow();
        assertThrows(QueueException.class, () -> chunked.batches().createJobs(lock, jobs));
        chunked.probes().clear();
        chunked.moves().unlock(lock);
        assertEquals(2, chunked.batches().load(bid).status().jobsCreated());
        assertEquals(2, chunked.batches().jobs(bid, BatchRef.PROCESSING).size());

        HeldBatch again = chunked.batches().tryLock(bid, "pending").orElseThrow();
        assertEquals(3, chunked.batches().createJobs(again, jobs).size());
        chunked.moves().transition(again, BatchState.PROCESSING, "jobs created", null, null);
        assertEquals(
                List.of("loc0", "loc1", "loc2", "loc3", "loc4"),
                chunked.jobs().load(chunked.batches().jobs(bid, BatchRef.PROCESSING)).stream()
                        .map(j -> j.configuration().localId())
                        .sorted()
                        .toList());
        assertEquals(5, chunked.jobs().refs(JobState.PENDING).size());
        assertTrue(fsck.check().clean());
    }

    @Test
    void aServerRestartWhileALockIsHeldLeavesNoHalfState() throws Exception {
        String jid = store.batches().jobs(QueueTestSupport.batchWithJobs(store, 1, 5), BatchRef.PROCESSING).get(0);
        HeldJob lock = store.claims().tryLockJob(jid, "w").orElseThrow();
        ZK.server().restart();
        await().atMost(Duration.ofSeconds(30)).until(() -> ZK.client().getZookeeperClient().isConnected());
        // the session survives a short outage, and its lock with it; either way there is no half state
        try {
            assertEquals(
                    JobState.ESTIMATING,
                    store.moves()
                            .transition(lock, JobState.ESTIMATING, Change.because("after restart"))
                            .state());
        } catch (StaleLockException e) {
            assertEquals(JobState.PENDING, store.jobs().load(jid).state());
        }
        assertTrue(fsck.check().clean());
    }
}
