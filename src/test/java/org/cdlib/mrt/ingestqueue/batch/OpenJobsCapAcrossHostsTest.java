package org.cdlib.mrt.ingestqueue.batch;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.tomakehurst.wiremock.WireMockServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.apache.curator.framework.CuratorFramework;
import org.cdlib.mrt.ingestqueue.camel.BatchExchange;
import org.cdlib.mrt.ingestqueue.fetch.AddressPolicy;
import org.cdlib.mrt.ingestqueue.fetch.FetchSettings;
import org.cdlib.mrt.ingestqueue.fetch.Fetcher;
import org.cdlib.mrt.ingestqueue.profile.ProfileDirectory;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Batch Pending on three hosts at once (three stores on three ZooKeeper clients, a step each),
 * each filling the window of its own batch, against a queue cap that fits fewer jobs than they
 * ask for: the queue never holds more open jobs than the cap, and every batch still gets each of
 * its jobs exactly once as jobs finish.
 */
class OpenJobsCapAcrossHostsTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().withHttp();
    static final WireMockServer http = ZK.http();
    static final int WINDOW = 6;
    static final int CAP = 10;

    final Path dir = ZK.dir();
    final List<CuratorFramework> clients = new ArrayList<>();
    final List<QueueStore> hosts = new ArrayList<>();
    final List<BatchPendingStep> steps = new ArrayList<>();
    CamelContext camel;

    @BeforeEach
    void threeHosts() throws Exception {
        Path profiles = Files.createDirectories(dir.resolve("profiles"));
        Files.writeString(
                profiles.resolve("demo_content"),
                "ProfileID: demo_content\nCollection.1: ark:/99999/fk4demo\nStorageNode: 7777\n");
        for (int i = 0; i < 3; i++) {
            CuratorFramework c = QueueTestSupport.client(ZK.server());
            clients.add(c);
            QueueStore host = new QueueStore(c, dir.resolve("queue"), 2).start();
            hosts.add(host);
            steps.add(new BatchPendingStep(host, new ProfileDirectory(profiles), new Fetcher(FetchSettings.defaults()
                    .withAllow(AddressPolicy.LOOPBACK).withRetries(0, Duration.ZERO), dir.resolve("queue")),
                    WINDOW, CAP, 1_000, 1L << 20));
        }
        camel = new DefaultCamelContext();
    }

    @AfterEach
    void close() {
        clients.forEach(CuratorFramework::close);
    }

    @Test
    void threeHostsFillingWindowsOfUnequalBatchesAtOnceNeverPassTheQueuesCap() throws Exception {
        int[] rows = {6, 4, 9};
        List<String> bids = new ArrayList<>();
        for (int i = 0; i < rows.length; i++) {
            bids.add(hosts.get(i).batches().create(BatchPendingStepTest.submission("demo_content", manifest(i, rows[i]),
                    "batch-manifest")));
        }
        QueueStore reader = hosts.get(0);
        int passes = 0;
        while (!reader.batches().ids(BatchState.PENDING).isEmpty()) {
            assertTrue(++passes <= 6, "every job created within 6 passes");
            raceOnePass(bids);
            int open = reader.jobs().openCount();
            assertTrue(open <= CAP, "pass " + passes + ": " + open + " open jobs, the cap is " + CAP);
            if (passes == 1) {
                assertEquals(CAP, open, "16 asked for (6 + 4 + 6 in the windows): exactly the cap is created");
            }
            QueueTestSupport.walkToCompleted(reader, 2); // jobs finish: room for the next pass
        }
        List<String> all = new ArrayList<>();
        for (int i = 0; i < rows.length; i++) {
            List<String> jids = reader.batches().jobs(bids.get(i), BatchRef.COMPLETED);
            List<String> localIds = reader.jobs().load(jids).stream()
                    .map(Job::configuration)
                    .map(c -> c.localId())
                    .sorted()
                    .toList();
            List<String> expected = new ArrayList<>();
            for (int r = 0; r < rows[i]; r++) {
                expected.add("b" + i + "-" + r);
            }
            assertEquals(expected.stream().sorted().toList(), localIds, bids.get(i) + ": each row once");
            all.addAll(jids);
        }
        assertEquals(19, all.stream().distinct().count());
        assertTrue(new ConsistencyCheck(reader).check().clean());
    }

    /**
     * Each host takes its own batch and runs the step on it, all released together by a latch; then moves or lets go.
     */
    void raceOnePass(List<String> bids) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(bids.size());
        try {
            CountDownLatch ready = new CountDownLatch(bids.size());
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> running = new ArrayList<>();
            for (int i = 0; i < bids.size(); i++) {
                QueueStore host = hosts.get(i);
                BatchPendingStep step = steps.get(i);
                String bid = bids.get(i);
                if (host.batches().load(bid).state() != BatchState.PENDING) {
                    ready.countDown();
                    continue;
                }
                running.add(pool.submit(() -> {
                    // a lock let go in the previous pass may still be on its way out
                    HeldBatch lock = await().atMost(Duration.ofSeconds(10))
                            .until(() -> host.batches().tryLock(bid, "pending"), Optional::isPresent)
                            .orElseThrow();
                    ready.countDown();
                    go.await();
                    Exchange ex = new DefaultExchange(camel);
                    BatchExchange.put(ex, lock);
                    step.process(ex);
                    if (BatchExchange.next(ex) == BatchState.PROCESSING) {
                        host.moves().transition(lock, BatchState.PROCESSING, "jobs created", null, null);
                    } else {
                        host.moves().unlock(lock);
                    }
                    return null;
                }));
            }
            assertTrue(ready.await(20, TimeUnit.SECONDS), "every host holds its batch");
            go.countDown();
            for (Future<?> f : running) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** A batch manifest of {@code rows} objects, local ids {@code b<i>-<row>}. */
    String manifest(int i, int rows) {
        StringBuilder m = new StringBuilder(
                        "#%checkm_0.7\n#%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-batch-manifest\n")
                .append(BatchPendingStepTest.FIELDS);
        for (int r = 0; r < rows; r++) {
            m.append("http://example.org/b").append(i).append('-').append(r).append(".checkm | | | | | o.checkm | | b")
                    .append(i).append('-').append(r).append(" | | | \n");
        }
        m.append("#%eof\n");
        String path = "/cap-" + i + ".checkm";
        http.stubFor(get(urlEqualTo(path)).willReturn(aResponse().withBody(m.toString())));
        return http.baseUrl() + path;
    }
}
