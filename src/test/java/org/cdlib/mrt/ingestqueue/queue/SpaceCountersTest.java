package org.cdlib.mrt.ingestqueue.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.awaitility.Awaitility;
import org.cdlib.mrt.ingestqueue.queue.fsck.SpaceCheck;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.Probes;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.cdlib.mrt.ingestqueue.testing.ZooKeeperRelay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The disk reservation counters under several writers: they must say exactly what the jobs in
 * downloading need, however the pipelined transactions of one process and the writes of other
 * hosts interleave. Sizes are unequal, so a lost or doubled increment shows.
 */
class SpaceCountersTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    final Path home = ZK.dir();
    final List<CuratorFramework> clients = new ArrayList<>();

    @AfterEach
    void close() {
        clients.forEach(CuratorFramework::close);
    }

    QueueStore host() {
        CuratorFramework c = QueueTestSupport.client(ZK.server());
        clients.add(c);
        return QueueTestSupport.store(c, home);
    }

    /** The jobs of a new batch, each walked to provisioning with its size. */
    static List<String> provisioned(QueueStore store, long... sizes) {
        String bid = QueueTestSupport.batchWithJobs(store, sizes.length, 5);
        List<String> jids = new ArrayList<>(store.batches().jobs(bid, BatchRef.PROCESSING));
        Collections.sort(jids);
        for (int i = 0; i < jids.size(); i++) {
            QueueTestSupport.walk(store, jids.get(i), JobState.ESTIMATING);
            HeldJob l = store.claims()
                    .claim(JobState.ESTIMATING, store.jobs().load(jids.get(i)).refName(), "t")
                    .orElseThrow();
            store.moves().transition(l, JobState.PROVISIONING, Change.because("estimated").withSpaceNeeded(sizes[i]));
        }
        return jids;
    }

    static void move(QueueStore store, String jid, JobState from, JobState to) {
        HeldJob l = store.claims().claim(from, store.jobs().load(jid).refName(), "t").orElseThrow();
        store.moves().transition(l, to, Change.because("test"));
    }

    /**
     * The ABA, step by step: this process's transaction A is built on counts another host has
     * already changed, so it fails; B, pipelined behind it on A's counts, expects the version
     * that other host's write left. B must fail too and be built again: else it applies on counts
     * that never were, A's bytes are counted twice and the other host's not at all.
     */
    @Test
    void aTransactionPipelinedBehindAFailedOneNeverAppliesOnAnotherHostsWrite() throws Exception {
        QueueStore p1 = host();
        QueueStore p2 = host();
        List<String> jids = provisioned(p1, 7, 1_000, 20, 300); // W, X, Y, Z
        move(p1, jids.get(0), JobState.PROVISIONING, JobState.DOWNLOADING); // p1 now builds on what it wrote
        // another host's write: p1's counts are stale
        move(p2, jids.get(3), JobState.PROVISIONING, JobState.DOWNLOADING);

        CountDownLatch aSent = new CountDownLatch(1);
        CountDownLatch bDone = new CountDownLatch(1);
        AtomicBoolean first = new AtomicBoolean(true);
        p1.probes().set(Probes.Point.AFTER_SEND, () -> {
            if (first.getAndSet(false)) {
                aSent.countDown();
                await(bDone); // A's answer is not looked at until B is through
            }
        });
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<?> a = pool.submit(() -> move(p1, jids.get(1), JobState.PROVISIONING, JobState.DOWNLOADING));
            assertTrue(aSent.await(60, TimeUnit.SECONDS));
            Future<?> b = pool.submit(() -> move(p1, jids.get(2), JobState.PROVISIONING, JobState.DOWNLOADING));
            b.get(60, TimeUnit.SECONDS);
            bDone.countDown();
            a.get(60, TimeUnit.SECONDS);
        } finally {
            bDone.countDown();
            pool.shutdownNow();
            p1.probes().clear();
        }
        assertEquals(7 + 1_000 + 20 + 300, p2.jobs().spaceReserved().bytes());
        assertEquals(Optional.empty(), SpaceCheck.run(p2, false));
    }

    /**
     * A lost connection with three counter transactions of one process on their way: the first
     * (z) applied, its answer lost; the next two (a, then b built on a's counts) never reached the
     * server. z's read-back says applied, so the counts are read again, and another thread's c is
     * built on them and applies before a is dealt with: c expects the same chain version a did.
     * Were a sent again it would fail as c's twin, and b, sent again behind it, would match c's
     * chain and apply on a's counts, which never were (a counted twice, c lost). Both are built
     * again from the counts instead.
     */
    @Test
    void pipelinedTransactionsLostWithTheirConnectionAreBuiltAgainNotSentAgain() throws Exception {
        try (ZooKeeperRelay relay = new ZooKeeperRelay(ZK.server().getPort())) {
            CuratorFramework c = QueueTestSupport.client(relay.connectString(), 30_000);
            clients.add(c);
            QueueStore p1 = QueueTestSupport.store(c, home);
            List<String> jids = provisioned(p1, 1_000, 20_000, 300_000, 4_000_000, 50_000_000); // z, a, b, c, w
            List<HeldJob> locks = new ArrayList<>();
            for (String jid : jids) {
                locks.add(p1.claims().claim(JobState.PROVISIONING, p1.jobs().load(jid).refName(), "t").orElseThrow());
            }
            // the counts are known: z reads nothing before it sends
            p1.moves().transition(locks.get(4), JobState.DOWNLOADING, Change.because("w"));
            QueueStore observer = host();
            AtomicInteger sends = new AtomicInteger();
            p1.probes().set(Probes.Point.AFTER_SEND, sends::incrementAndGet);
            CountDownLatch cDone = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                relay.holdAnswers(); // z applies, its answer is lost
                Future<?> z = pool.submit(
                        () -> p1.moves().transition(locks.get(0), JobState.DOWNLOADING, Change.because("z")));
                await(() -> observer.jobs().load(jids.get(0)).state() == JobState.DOWNLOADING);
                relay.holdRequests(); // a and b never reach the server
                Future<?> a = pool.submit(
                        () -> p1.moves().transition(locks.get(1), JobState.DOWNLOADING, Change.because("a")));
                await(() -> sends.get() == 2);
                Future<?> b = pool.submit(
                        () -> p1.moves().transition(locks.get(2), JobState.DOWNLOADING, Change.because("b")));
                await(() -> sends.get() == 3);
                String aStatus = QueuePaths.jobStatus(jids.get(1));
                String bStatus = QueuePaths.jobStatus(jids.get(2));
                p1.probes().setNotApplied(ops -> {
                    if (ops.stream().noneMatch(op -> op.getPath().equals(aStatus) || op.getPath().equals(bStatus))) {
                        return;
                    }
                    if (ops.stream().anyMatch(op -> op.getPath().equals(aStatus))) {
                        // z read back as applied: the counts are read again
                        await(() -> p1.spaceCounters().guess() == null);
                        pool.submit(() -> {
                            p1.moves().transition(locks.get(3), JobState.DOWNLOADING, Change.because("c"));
                            cDone.countDown();
                        });
                    }
                    await(cDone); // c is built on the counts read again, and applies first
                });
                relay.cut();
                z.get(60, TimeUnit.SECONDS);
                a.get(60, TimeUnit.SECONDS);
                b.get(60, TimeUnit.SECONDS);
                assertTrue(cDone.await(60, TimeUnit.SECONDS));
            } finally {
                p1.probes().clear();
                pool.shutdownNow();
            }
            assertEquals(1_000 + 20_000 + 300_000 + 4_000_000 + 50_000_000, observer.jobs().spaceReserved().bytes());
            assertEquals(Optional.empty(), SpaceCheck.run(observer, false));
        }
    }

    private static void await(Callable<Boolean> condition) {
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(condition);
    }

    /** Three hosts, six threads each, 150 jobs of unequal sizes moving in and out of downloading at once. */
    @Test
    void threeHostsMovingUnequalJobsLeaveTheCountersExact() throws Exception {
        List<QueueStore> hosts = List.of(host(), host(), host());
        Random random = new Random(27);
        long[] sizes = new long[150];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = 1 + random.nextInt(250_000);
        }
        List<String> jids = provisioned(hosts.get(0), sizes);
        Map<String, Long> size = new HashMap<>();
        for (int i = 0; i < sizes.length; i++) {
            size.put(jids.get(i), sizes[i]);
        }
        List<String> leaving = jids.subList(0, 100); // these go on to processing; the rest stay in downloading
        runOnAll(hosts, jids, JobState.PROVISIONING, JobState.DOWNLOADING);
        assertEquals(
                size.values().stream().mapToLong(Long::longValue).sum(),
                hosts.get(1).jobs().spaceReserved().bytes());
        runOnAll(hosts, leaving, JobState.DOWNLOADING, JobState.PROCESSING);
        long stay = jids.subList(100, 150).stream().mapToLong(size::get).sum();
        assertEquals(stay, hosts.get(2).jobs().spaceReserved().bytes());
        assertEquals(Optional.empty(), SpaceCheck.run(hosts.get(0), false));
    }

    /** Every job moved once, by whichever of 18 workers on three hosts claims it first. */
    private static void runOnAll(List<QueueStore> hosts, List<String> jids, JobState from, JobState to)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(18);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Integer>> moved = new ArrayList<>();
        for (int t = 0; t < 18; t++) {
            QueueStore store = hosts.get(t % 3);
            List<String> order = new ArrayList<>(jids);
            Collections.shuffle(order, new Random(t));
            moved.add(pool.submit(() -> {
                start.await();
                int n = 0;
                for (String jid : order) {
                    Optional<HeldJob> l = store.claims().claim(from, QueuePaths.refName(5, jid), "t");
                    if (l.isPresent()) {
                        store.moves().transition(l.get(), to, Change.because("race"));
                        n++;
                    }
                }
                return n;
            }));
        }
        start.countDown();
        int total = 0;
        for (Future<Integer> f : moved) {
            total += f.get(5, TimeUnit.MINUTES);
        }
        pool.shutdown();
        assertEquals(jids.size(), total, "every job moved exactly once");
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
