package org.cdlib.mrt.ingestqueue.runtime;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.WireMockServer;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.state.ConnectionState;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchStatus;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.model.QueueTime;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The queue at production size on a real ZooKeeper whose clients take at most 512 KB a packet
 * (pom.xml): thousands of retained batches and a 100,000-object batch, with every consumer,
 * the API's reads, metrics, fsck and cleanup working and the connection never dropped.
 */
class ScaleTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().withHttp();
    static final WireMockServer http = ZK.http();
    static final ObjectMapper JSON = new ObjectMapper();

    final Path dir = ZK.dir();
    RunningService service;
    QueueStore store;
    final List<ConnectionState> states = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        // one POST /api/cleanup removes 5,000 batches here (44-60 s on a 2-core machine): the connection is
        // not let go as idle meanwhile; what is tested is that cleanup works at this size, not its speed
        service = RunningService.start(ZK.connectString(), dir, Map.of("ingest.http.idle-timeout", "PT5M"));
        store = service.store();
        store.client().getConnectionStateListenable().addListener((c, s) -> states.add(s));
    }

    @AfterEach
    void stop() {
        service.close();
        assertTrue(states.stream().noneMatch(s -> s == ConnectionState.SUSPENDED || s == ConnectionState.LOST),
                "the ZooKeeper connection never dropped: " + states);
    }

    JsonNode api(String method, String path) throws Exception {
        HttpResponse<String> r = service.call(method, path);
        assertEquals(200, r.statusCode(), method + " " + path + ": " + r.body());
        return path.equals("/metrics") ? JSON.createObjectNode().put("text", r.body()) : JSON.readTree(r.body());
    }

    String fileBatch(String name) {
        http.stubFor(get(urlEqualTo("/" + name)).willReturn(aResponse().withBody("x")));
        return store.batches().create(PipelineTest.submission(http.baseUrl() + "/" + name, "file"));
    }

    BatchState awaitEnd(String bid, Duration within) {
        await().atMost(within).until(() -> {
            BatchState s = store.batches().load(bid).state();
            return s == BatchState.COMPLETED || s == BatchState.FAILED;
        });
        return store.batches().load(bid).state();
    }

    /** Writes {@code n} batches completed a month ago straight into ZooKeeper, 50 to a transaction. */
    void retainedBatches(int n) throws Exception {
        byte[] submission = QueueJson.write(PipelineTest.submission("http://example.org/old", "file"));
        byte[] status = QueueJson.write(new BatchStatus(BatchState.COMPLETED.zk(),
                QueueTime.format(Instant.now().minus(Duration.ofDays(30))), 0, null, null, null, null));
        var client = store.client();
        for (int from = 1; from <= n; from += 50) {
            List<CuratorOp> ops = new ArrayList<>();
            for (int i = from; i < from + 50 && i <= n; i++) {
                String bid = QueuePaths.batchId(i);
                ops.add(client.transactionOp().create().forPath(QueuePaths.batch(bid)));
                ops.add(client.transactionOp().create().forPath(QueuePaths.batchSubmission(bid), submission));
                ops.add(client.transactionOp().create().forPath(QueuePaths.batchStatus(bid), status));
                ops.add(client.transactionOp().create().forPath(QueuePaths.batchIndex(BatchState.COMPLETED, bid)));
            }
            client.transaction().forOperations(ops);
        }
        client.setData().forPath(QueuePaths.BATCH_COUNTER, QueueJson.text(n));
    }

    @Test
    void fiveThousandRetainedBatchesLeaveEveryConsumerTheApiFsckAndCleanupWorking() throws Exception {
        retainedBatches(5000);
        String bid = fileBatch("one.txt");
        assertEquals(
                BatchState.COMPLETED, awaitEnd(bid, Duration.ofSeconds(30)), "a new batch goes through every consumer");

        assertEquals(5001, api("GET", "/api/queue").at("/batches/completed").asInt());
        JsonNode page = api("GET", "/api/batches?limit=50");
        assertEquals(50, page.get("batches").size());
        assertEquals(bid, page.at("/batches/0/batch_id").asText(), "newest first");
        JsonNode next = api("GET", page.get("next").asText().replace("/api/batches", "/api/batches"));
        assertEquals(QueuePaths.batchId(4951), next.at("/batches/0/batch_id").asText(), "the next page goes on below");
        assertEquals(10, api("GET", "/api/batches?state=completed&limit=10").get("batches").size());
        assertTrue(api("GET", "/metrics").get("text").asText().contains("ingest_batches"));
        JsonNode fsck = api("GET", "/api/fsck");
        assertTrue(fsck.get("violations").isEmpty(), fsck.toString());

        JsonNode cleaned = api("POST", "/api/cleanup");
        assertEquals(5000, cleaned.get("batches").asInt(), cleaned.toString());
        assertEquals(1, store.batches().counts().get(BatchState.COMPLETED));
        // the new batch is the lowest left: its number, not 5001 (an id drawn and not used leaves a gap below it)
        assertEquals(QueuePaths.batchNumber(bid), store.batches().oldestNumber(),
                "the next cleanup starts after what is gone");
        assertTrue(store.batches().exists(bid));
    }

    @Test
    void aHundredThousandObjectBatchIsCreatedInWindowsAndASmallBatchSubmittedMeanwhileCompletes() {
        StringBuilder m = new StringBuilder("""
            #%checkm_0.7
            #%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-single-file-batch-manifest
            #%fields | nfo:fileUrl | nfo:fileName | mrt:localIdentifier | mrt:title
            """);
        for (int i = 0; i < 100_000; i++) {
            m.append(http.baseUrl()).append("/f/").append(i).append(" | f").append(i).append(".txt | local-").append(i)
                    .append(" | Object ").append(i).append('\n');
        }
        m.append("#%eof\n");
        http.stubFor(get(urlEqualTo("/big.checkm")).willReturn(aResponse().withBody(m.toString())));
        String big = store.batches()
                .create(PipelineTest.submission(http.baseUrl() + "/big.checkm", "single-file-batch-manifest"));

        await().atMost(Duration.ofSeconds(60)).until(() -> store.batches().load(big).status().jobsCreated() >= 5000);
        BatchStatus status = store.batches().load(big).status();
        assertEquals(100_000, status.jobsTotal());
        assertEquals(BatchState.PENDING, store.batches().load(big).state(), "pending until its last job exists");
        await().atMost(Duration.ofSeconds(30)).until(() -> store.batches().load(big).count(BatchRef.COMPLETED) > 0);

        String small = fileBatch("small.txt");
        assertEquals(BatchState.COMPLETED, awaitEnd(small, Duration.ofSeconds(20)), "not stuck behind 100,000 objects");
        Map<JobState, Integer> counts = store.jobs().counts();
        int open = counts.entrySet().stream().filter(e -> e.getKey().batchRef() == BatchRef.PROCESSING)
                .mapToInt(Map.Entry::getValue).sum();
        assertTrue(open <= 5000 + 100, "the big batch keeps at most its window open: " + counts);
        assertTrue(store.batches().load(big).count(BatchRef.PROCESSING) <= 5000);
    }
}
