package org.cdlib.mrt.ingestqueue.queue.batches;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueFullException;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.NewJob;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The open-jobs and open-batches caps held exactly while hosts create at once: three stores on
 * three clients (three sessions, as three hosts) on one real ZooKeeper, their calls released
 * together by a latch. Nothing closes a job or batch during a race here, so the count at its end
 * is the highest it reached.
 */
class OpenCapsTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    static final int ROUNDS = 8;

    final Path dir = ZK.dir();
    final List<CuratorFramework> clients = new ArrayList<>();
    final List<QueueStore> hosts = new ArrayList<>();

    @BeforeEach
    void threeHosts() {
        for (int i = 0; i < 3; i++) {
            CuratorFramework c = QueueTestSupport.client(ZK.server());
            clients.add(c);
            // two jobs a transaction: a window takes several, so creators interleave inside windows too
            hosts.add(new QueueStore(c, dir, 2).start());
        }
    }

    @AfterEach
    void close() {
        clients.forEach(CuratorFramework::close);
    }

    @Test
    void threeHostsCreatingAWindowEachAtOnceStopExactlyAtTheCap() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            fresh();
            // a cap of 10 fits one window of 6 and part of another; 18 jobs are asked for
            List<HeldBatch> locks = batches(6, 6, 6);
            List<List<String>> made =
                    race(List.of(create(0, locks, 6, 10), create(1, locks, 6, 10), create(2, locks, 6, 10)));
            assertEquals(10, made.stream().mapToInt(List::size).sum(), "round " + round + ": " + sizes(made));
            assertEquals(10, hosts.get(0).jobs().openCount(), "round " + round);
            assertCreatedAsCounted(locks, made);
        }
    }

    @Test
    void unequalBatchesAtOnceFillWhatIsLeftExactlyAndGoOnWhenJobsFinish() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            fresh();
            String earlier = QueueTestSupport.batchWithJobs(hosts.get(0), 3, 5);
            List<HeldBatch> locks = batches(2, 5, 9);
            List<List<String>> made =
                    race(List.of(create(0, locks, 2, 12), create(1, locks, 5, 12), create(2, locks, 9, 12)));
            assertEquals(
                    9, made.stream().mapToInt(List::size).sum(), "the 9 places the earlier batch left: " + sizes(made));
            assertEquals(12, hosts.get(0).jobs().openCount());
            assertCreatedAsCounted(locks, made);

            // the earlier batch's jobs finish: their 3 places are taken at once again, and no more
            for (String jid : hosts.get(0).batches().jobs(earlier, BatchRef.PROCESSING)) {
                QueueTestSupport.walk(hosts.get(0), jid, QueueTestSupport.pipelineTo(JobState.COMPLETED));
            }
            List<List<String>> more = race(List.of(createRest(0, locks, 2, 12), createRest(1, locks, 5, 12),
                    createRest(2, locks, 9, 12)));
            assertEquals(3, more.stream().mapToInt(List::size).sum(), "sizes " + sizes(more));
            assertEquals(12, hosts.get(0).jobs().openCount());
            assertEquals(12, hosts.get(0).jobs().count(JobState.PENDING));
            assertEquals(3, hosts.get(0).jobs().count(JobState.COMPLETED));
            assertCreatedAsCounted(locks, List.of(List.of(), List.of(), List.of()));
        }
        ConsistencyCheck.Report fsck = new ConsistencyCheck(hosts.get(0)).check();
        assertTrue(fsck.clean(), fsck.toString());
    }

    @Test
    void whatFitsIsAllCreatedWhateverTheRace() throws Exception {
        List<HeldBatch> locks = batches(1, 2, 3);
        List<List<String>> made =
                race(List.of(create(0, locks, 1, 10), create(1, locks, 2, 10), create(2, locks, 3, 10)));
        assertEquals(List.of(1, 2, 3), sizes(made), "a creator that lost the gate counts again and still fits");
        assertEquals(6, hosts.get(0).jobs().openCount());
        assertCreatedAsCounted(locks, made);
    }

    @Test
    void severalSubmittersOnThreeHostsAtOnceNeverPassTheOpenBatchCap() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            fresh();
            hosts.get(0).batches().create(QueueTestSupport.submission("demo_content"));
            hosts.forEach(h -> h.batches().maxOpen(4));
            List<Callable<Object>> submitters = new ArrayList<>();
            for (int i = 0; i < 9; i++) {
                QueueStore host = hosts.get(i % 3);
                submitters.add(() -> submitOrRefusal(host));
            }
            List<Object> answers = race(submitters);
            assertEquals(
                    3, answers.stream().filter(String.class::isInstance).count(), "round " + round + ": " + answers);
            answers.stream()
                    .filter(a -> !(a instanceof String))
                    .forEach(a -> assertInstanceOf(QueueFullException.class, a));
            assertEquals(4, openBatches());

            // one batch closes: exactly one of the next racers gets its place
            String first = hosts.get(0).batches().ids(BatchState.PENDING).get(0);
            HeldBatch lock = hosts.get(0).batches().tryLock(first, "test").orElseThrow();
            hosts.get(0).moves().transition(lock, BatchState.REPORTING, "nothing to run", null, "refused");
            HeldBatch reporting = hosts.get(0).batches().tryLock(first, "test").orElseThrow();
            hosts.get(0).moves().transition(reporting, BatchState.FAILED, "reported", null, null);
            answers = race(submitters.subList(0, 6));
            assertEquals(
                    1, answers.stream().filter(String.class::isInstance).count(), "round " + round + ": " + answers);
            assertEquals(4, openBatches());
        }
    }

    /** Wipes the queue and starts every host on the empty tree: each round is a race from nothing. */
    void fresh() throws Exception {
        QueueTestSupport.wipe(ZK.client());
        hosts.forEach(QueueStore::start);
        hosts.forEach(h -> h.batches().maxOpen(10_000));
    }

    /** Submits one batch per size on host i (host i % 3) and locks it there, as that host's batch-pending worker. */
    List<HeldBatch> batches(int... sizes) {
        List<HeldBatch> locks = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) {
            QueueStore host = hosts.get(i % 3);
            String bid = host.batches().create(QueueTestSupport.submission("demo_content"));
            locks.add(host.batches().tryLock(bid, "pending-" + i).orElseThrow());
        }
        return locks;
    }

    /** Host i creates batch i's whole window of {@code size} under {@code cap}. */
    Callable<List<String>> create(int i, List<HeldBatch> locks, int size, int cap) {
        return () -> hosts.get(i % 3)
                .batches()
                .createMoreJobs(locks.get(i), jobs(locks.get(i).bid(), 0, size), size, cap);
    }

    /** Host i goes on with batch i from the jobs it already has, as a later pass of the step does. */
    Callable<List<String>> createRest(int i, List<HeldBatch> locks, int size, int cap) {
        return () -> {
            int done = locks.get(i).batch().status().jobsCreated();
            return hosts.get(i % 3)
                    .batches()
                    .createMoreJobs(locks.get(i), jobs(locks.get(i).bid(), done, size), size, cap);
        };
    }

    static List<NewJob> jobs(String bid, int from, int to) {
        List<NewJob> jobs = new ArrayList<>();
        for (int n = from; n < to; n++) {
            jobs.add(QueueTestSupport.newJob(bid + "-" + n, 5));
        }
        return jobs;
    }

    /**
     * Each batch's status and batch-processing folder name exactly the jobs its creator was told it made, each once.
     */
    void assertCreatedAsCounted(List<HeldBatch> locks, List<List<String>> made) {
        QueueStore reader = hosts.get(0);
        List<String> all = new ArrayList<>();
        for (int i = 0; i < locks.size(); i++) {
            String bid = locks.get(i).bid();
            List<String> refs = reader.batches().jobs(bid, BatchRef.PROCESSING);
            assertEquals(refs.size(), reader.batches().load(bid).status().jobsCreated(), bid);
            assertEquals(refs.size(), locks.get(i).batch().status().jobsCreated(), bid + " as its creator knows it");
            assertTrue(refs.containsAll(made.get(i)), bid);
            for (Job job : reader.jobs().load(refs)) {
                assertTrue(job.configuration().localId().startsWith(bid + "-"), job.id());
            }
            all.addAll(refs);
        }
        assertEquals(all.size(), new HashSet<>(all).size(), "no job id twice");
    }

    static List<Integer> sizes(List<List<String>> made) {
        return made.stream().map(List::size).toList();
    }

    Object submitOrRefusal(QueueStore host) {
        try {
            return host.batches().create(QueueTestSupport.submission("demo_content"));
        } catch (QueueFullException e) {
            return e;
        }
    }

    int openBatches() {
        var counts = hosts.get(0).batches().counts();
        return BatchState.OPEN.stream().mapToInt(s -> counts.getOrDefault(s, 0)).sum();
    }

    /** Runs every task on its own thread, released together by a latch; their results in order (bounded wait). */
    static <T> List<T> race(List<Callable<T>> tasks) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(tasks.size());
        try {
            CountDownLatch ready = new CountDownLatch(tasks.size());
            CountDownLatch go = new CountDownLatch(1);
            List<Future<T>> running = new ArrayList<>();
            for (Callable<T> task : tasks) {
                running.add(pool.submit(() -> {
                    ready.countDown();
                    go.await();
                    return task.call();
                }));
            }
            assertTrue(ready.await(10, TimeUnit.SECONDS), "every racer started");
            go.countDown();
            List<T> out = new ArrayList<>();
            for (Future<T> f : running) {
                try {
                    out.add(f.get(30, TimeUnit.SECONDS));
                } catch (ExecutionException e) {
                    throw new AssertionError("a racer failed: " + e.getCause(), e.getCause());
                }
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }
}
