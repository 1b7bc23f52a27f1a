package org.cdlib.mrt.ingestqueue.runtime;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.WireMockServer;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.StreamSupport;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One damaged node harms no other item: the running service skips the damaged job or batch
 * (counted in /metrics), every other one keeps moving, the API's lists name the damage, and the
 * operator repairs what can be derived or deletes the item through the API.
 */
class DamagedNodesTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().withHttp();
    static final WireMockServer http = ZK.http();
    static final ObjectMapper JSON = new ObjectMapper();
    static final byte[] GARBAGE = "{not json".getBytes(StandardCharsets.UTF_8);

    final Path dir = ZK.dir();
    RunningService service;
    QueueStore store;

    @BeforeEach
    void start() throws Exception {
        service = RunningService.start(ZK.connectString(), dir);
        store = service.store();
    }

    @AfterEach
    void stop() {
        service.close();
    }

    HttpResponse<String> call(String method, String path) throws Exception {
        return service.call(method, path);
    }

    JsonNode ok(String method, String path) throws Exception {
        HttpResponse<String> r = call(method, path);
        assertEquals(200, r.statusCode(), method + " " + path + ": " + r.body());
        return JSON.readTree(r.body());
    }

    String fileBatch(String name) {
        http.stubFor(get(urlEqualTo("/" + name)).willReturn(aResponse().withBody("x")));
        return store.batches().create(PipelineTest.submission(http.baseUrl() + "/" + name, "file"));
    }

    void awaitState(String bid, BatchState state) {
        await().atMost(Duration.ofSeconds(30)).until(() -> store.batches().load(bid).state() == state);
    }

    static List<String> kinds(JsonNode fsck) {
        return StreamSupport.stream(fsck.get("violations").spliterator(), false)
                .map(v -> v.get("kind").asText())
                .sorted()
                .toList();
    }

    @Test
    void aDamagedBatchStatusStopsNothingElseIsNamedInListsAndIsDeletedThroughTheApi() throws Exception {
        String old = fileBatch("old.txt");
        awaitState(old, BatchState.COMPLETED);
        ZK.client().setData().forPath(QueuePaths.batchStatus(old), GARBAGE);

        String fresh = fileBatch("fresh.txt");
        awaitState(fresh, BatchState.COMPLETED);
        assertEquals(2, ok("GET", "/api/queue").at("/batches/completed").asInt(), "counted from the index");
        JsonNode batches = ok("GET", "/api/batches").get("batches");
        assertEquals(fresh, batches.get(0).get("batch_id").asText());
        assertEquals(old, batches.get(1).get("batch_id").asText());
        assertTrue(batches.get(1).get("damaged").asText().contains("status"), batches.toString());
        assertEquals("UP", ok("GET", "/api/health").get("status").asText());
        assertEquals(List.of("corrupt-batch"), kinds(ok("GET", "/api/fsck")));

        ok("POST", "/api/batches/" + old + "/delete");
        assertFalse(store.batches().exists(old));
        assertTrue(kinds(ok("GET", "/api/fsck")).isEmpty());
    }

    @Test
    void aDamagedJobStatusIsSkippedWhileItsSiblingsCompleteAndIsRebuiltFromItsReference() throws Exception {
        store.holds().holdQueue("test");
        String bid = QueueTestSupport.batchWithJobs(store, 3, 5);
        List<String> jids = store.batches().jobs(bid, BatchRef.PROCESSING);
        ZK.client().setData().forPath(QueuePaths.jobStatus(jids.get(0)), GARBAGE);
        store.holds().releaseQueue();

        await().atMost(Duration.ofSeconds(30)).until(() -> store.batches().load(bid).count(BatchRef.COMPLETED) == 2);
        await().atMost(Duration.ofSeconds(10)).until(() -> store.damagedSkips() > 0);
        assertTrue(call("GET", "/metrics").body().contains("ingest_damaged_skips_total"), "counted in /metrics");
        JsonNode listed = ok("GET", "/api/jobs?batch=" + bid).get("jobs");
        assertTrue(listed.get(0).get("damaged").asText().contains("status"), listed.toString());
        assertEquals(BatchState.PROCESSING, store.batches().load(bid).state(), "the damaged job keeps its batch open");

        JsonNode repaired = ok("POST", "/api/fsck/repair");
        assertEquals(List.of("corrupt-job-status"), kinds(repaired));
        assertTrue(repaired.at("/violations/0/repaired").asBoolean(), repaired.toString());
        assertTrue(
                repaired.at("/violations/0/detail").asText().contains("rebuilt as pending"), "from its one reference");
        awaitState(bid, BatchState.COMPLETED);
    }

    @Test
    void aDeletedConfigurationIsReportedNotGuessedAndTheJobIsDeletedThroughTheApi() throws Exception {
        store.holds().holdQueue("test");
        String bid = QueueTestSupport.batchWithJobs(store, 2, 5);
        List<String> jids = store.batches().jobs(bid, BatchRef.PROCESSING);
        ZK.client().delete().forPath(QueuePaths.jobNode(jids.get(1), "configuration"));
        store.holds().releaseQueue();

        await().atMost(Duration.ofSeconds(30)).until(() -> store.batches().load(bid).count(BatchRef.COMPLETED) == 1);
        JsonNode fsck = ok("GET", "/api/fsck");
        assertEquals(List.of("corrupt-job"), kinds(fsck));
        assertTrue(fsck.at("/violations/0/detail").asText().contains("configuration"), fsck.toString());
        HttpResponse<String> read = call("GET", "/api/jobs/" + jids.get(1));
        assertEquals(409, read.statusCode(), "the job is damaged, the service is not");
        assertTrue(read.body().contains("/delete"), "the answer says how to fix it: " + read.body());

        ok("POST", "/api/jobs/" + jids.get(1) + "/delete?confirm=true");
        assertTrue(ZK.client().checkExists().forPath(QueuePaths.job(jids.get(1))) == null);
        awaitState(bid, BatchState.COMPLETED);
        assertTrue(kinds(ok("GET", "/api/fsck")).isEmpty());
    }

    @Test
    void healthIsDownNamingTheConsumerWhileItsScansFailAndUpAgainAfter() throws Exception {
        store.health().scanFailed("zkqueue test", "cannot list /jobs/states/estimating: CONNECTIONLOSS");
        HttpResponse<String> down = call("GET", "/api/health");
        assertEquals(503, down.statusCode());
        JsonNode body = JSON.readTree(down.body());
        assertEquals("DOWN", body.get("status").asText());
        assertTrue(body.at("/consumers_failing/zkqueue test").asText().contains("CONNECTIONLOSS"), down.body());
        store.health().scanSucceeded("zkqueue test");
        assertEquals("UP", ok("GET", "/api/health").get("status").asText());
    }
}
