package org.cdlib.mrt.ingestqueue.queue.batches;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.curator.framework.CuratorFramework;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.errors.DepositorLimitException;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.model.Transition;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code ingest.queue.max-open-batches-per-depositor} across two hosts on one ZooKeeper: one
 * depositor's submissions racing on both stop exactly at the limit while another depositor's go
 * through; a batch that leaves the open states, is removed, or is removed behind our back (mrt-zk's
 * cleanup) makes room again.
 */
class DepositorCapTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    static final int LIMIT = 5;

    final Path dir = ZK.dir();
    final List<CuratorFramework> clients = new ArrayList<>();
    final List<QueueStore> hosts = new ArrayList<>();

    @BeforeEach
    void twoHosts() {
        for (int i = 0; i < 2; i++) {
            CuratorFramework c = QueueTestSupport.client(ZK.server());
            clients.add(c);
            QueueStore s = new QueueStore(c, dir).start();
            s.batches().maxOpenPerDepositor(LIMIT);
            hosts.add(s);
        }
    }

    @AfterEach
    void close() {
        clients.forEach(CuratorFramework::close);
    }

    static BatchSubmission by(String submitter) {
        BatchSubmission s = QueueTestSupport.submission("demo_content");
        return new BatchSubmission(
                s.profileName(),
                submitter,
                s.payloadUrl(),
                s.ercWhat(),
                s.ercWho(),
                s.ercWhen(),
                s.ercWhere(),
                s.type(),
                s.submissionMode(),
                s.fileName(),
                s.localIdentifier(),
                s.primaryIdentifier(),
                s.digestType(),
                s.digestValue(),
                s.notification(),
                s.responseForm(),
                s.note(),
                s.submitted(),
                s.dublinCore());
    }

    @Test
    void oneDepositorsRacingSubmissionsOnTwoHostsStopExactlyAtTheLimitAndOthersStillSubmit() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(20);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<String>> dana = new ArrayList<>();
        List<Future<String>> erin = new ArrayList<>();
        try {
            for (int i = 0; i < 16; i++) {
                QueueStore host = hosts.get(i % 2);
                // Merritt's form of the name counts as the same depositor
                dana.add(pool.submit(submit(go, host, i % 4 == 0 ? "dana/Dana Depositor" : "dana")));
            }
            for (int i = 0; i < 4; i++) {
                erin.add(pool.submit(submit(go, hosts.get(i % 2), "erin")));
            }
            go.countDown();
            List<String> made = new ArrayList<>();
            int refused = 0;
            for (Future<String> f : dana) {
                try {
                    made.add(f.get());
                } catch (ExecutionException e) {
                    assertTrue(e.getCause() instanceof DepositorLimitException, String.valueOf(e.getCause()));
                    assertTrue(e.getCause().getMessage().contains("ingest.queue.max-open-batches-per-depositor = 5"),
                            e.getCause().getMessage());
                    refused++;
                }
            }
            assertEquals(LIMIT, made.size(), "exactly the limit was taken on the two hosts together");
            assertEquals(16 - LIMIT, refused);
            for (Future<String> f : erin) {
                f.get(); // another depositor is never refused for dana's batches
            }
            assertEquals(LIMIT + 4, hosts.get(0).batches().counts().get(BatchState.PENDING));
            assertEquals(
                    LIMIT,
                    ZK.client()
                            .checkExists()
                            .forPath(QueuePaths.depositorBatches("dana"))
                            .getNumChildren());

            // removed: room for one more, and only one
            hosts.get(0).batches().remove(made.get(0));
            String again = hosts.get(1).batches().create(by("dana"));
            assertThrows(DepositorLimitException.class, () -> hosts.get(0).batches().create(by("dana")));

            // removed behind our back (mrt-zk's cleanup deletes
            // /batches/BID whole): its entry is stale, never a refusal
            ZK.client().delete().deletingChildrenIfNeeded().forPath(QueuePaths.batch(again));
            hosts.get(0).batches().create(by("dana"));
            assertThrows(DepositorLimitException.class, () -> hosts.get(1).batches().create(by("dana")));
            assertEquals(
                    LIMIT,
                    ZK.client()
                            .checkExists()
                            .forPath(QueuePaths.depositorBatches("dana"))
                            .getNumChildren());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aBatchThatLeavesTheOpenStatesMakesRoom() throws Exception {
        QueueStore host = hosts.get(0);
        List<String> made = new ArrayList<>();
        for (int i = 0; i < LIMIT; i++) {
            made.add(host.batches().create(by("fay")));
        }
        assertThrows(DepositorLimitException.class, () -> host.batches().create(by("fay")));
        var lock = host.batches().tryLock(made.get(0), "operator").orElseThrow();
        var by = Transition.By.WORKER;
        host.batches().move(lock, BatchState.REPORTING, "no jobs to run", null, null, by, false);
        assertEquals(LIMIT, ZK.client().checkExists().forPath(QueuePaths.depositorBatches("fay")).getNumChildren(),
                "reporting is still open");
        host.batches().move(lock, BatchState.FAILED, "reported, jobs failed", null, "failed by the test", by, true);
        host.batches().unlock(lock);
        assertEquals(LIMIT - 1, ZK.client().checkExists().forPath(QueuePaths.depositorBatches("fay")).getNumChildren(),
                "the move out of the open states took its entry with it");
        hosts.get(1).batches().create(by("fay"));
        assertThrows(DepositorLimitException.class, () -> hosts.get(1).batches().create(by("fay")));
    }

    static Callable<String> submit(CountDownLatch go, QueueStore host, String submitter) {
        return () -> {
            go.await();
            return host.batches().create(by(submitter));
        };
    }
}
