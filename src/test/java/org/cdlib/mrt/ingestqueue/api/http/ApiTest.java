package org.cdlib.mrt.ingestqueue.api.http;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.cdlib.mrt.ingestqueue.api.HttpApi;
import org.cdlib.mrt.ingestqueue.objects.FileUrlSigner;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The HTTP API over real HTTP, on the running service with a real ZooKeeper. */
class ApiTest extends ApiServiceTest {
    @RegisterExtension
    static final WireMockExtension http = WireMockExtension.newInstance()
            .options(WireMockConfiguration.options().dynamicPort()).build();

    @BeforeAll
    static void start() throws Exception {
        startService(Map.of("ingest.api.users", "alice:pw-a:admin|submitter, sam:pw-s:submitter, rita:pw-r",
                "ingest.api.max-upload", "100000"));
        store.holds().holdQueue("test"); // nothing moves: the API is tested on still batches
    }

    static String auth(String user, String pw) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + pw).getBytes(StandardCharsets.UTF_8));
    }

    static HttpResponse<String> send(String method, String path, String user, String body,
            String contentType) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body));
        if (user != null) {
            b.header("Authorization", auth(user, Map.of("alice", "pw-a", "sam", "pw-s", "rita", "pw-r").get(user)));
        }
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> multipart(String path, String user, Map<String, String> fields, String fileName,
            byte[] file)
            throws Exception {
        MultipartForm form = MultipartForm.of(fields, fileName, file);
        return CLIENT.send(HttpRequest.newBuilder(URI.create(base + path))
                .header("Authorization", auth(user, Map.of("alice", "pw-a", "sam", "pw-s", "rita", "pw-r").get(user)))
                .header("Content-Type", form.contentType())
                .POST(form.publisher()).build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode json(HttpResponse<String> r) throws Exception {
        return JSON.readTree(r.body());
    }

    @Test
    void aMerrittFormWithAnUploadedFileCreatesTheBatchAndAnswersInXml() throws Exception {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("profile", "demo_content");
        f.put("type", "file");
        f.put("submitter", "sam/Sam Depositor");
        f.put("title", "A title");
        f.put("creator", "A. Creator");
        f.put("localIdentifier", "loc-77");
        f.put("digestType", "md5");
        f.put("digestValue", "5d41402abc4b2a76b9719d911017c592");
        f.put("DC.subject", "maps; roads");
        f.put("unknownField", "ignored");
        HttpResponse<String> r = multipart("/poster/submit", "sam", f, "hello.txt",
                "hello".getBytes(StandardCharsets.UTF_8));
        assertEquals(200, r.statusCode(), r.body());
        String bid = r.headers().firstValue("BID").orElseThrow();
        assertTrue(r.body().contains("<bat:batchID>" + bid + "</bat:batchID>") && r.body().contains("QUEUED"),
                r.body());
        Batch b = store.batches().load(bid);
        assertEquals("sam/Sam Depositor", b.submission().submitter());
        assertEquals("hello.txt", b.submission().fileName());
        assertEquals("loc-77", b.submission().localIdentifier());
        assertEquals(List.of("maps; roads"), b.submission().dublinCore().get("subject"));
        Path kept = Path.of(URI.create(b.submission().payloadUrl()));
        assertTrue(kept.startsWith(dir.resolve("queue").resolve("uploads").toAbsolutePath()), kept.toString());
        assertEquals("hello", Files.readString(kept));
    }

    @Test
    void aFormWithAManifestUrlAnswersJsonWhenAsked() throws Exception {
        http.stubFor(get(urlEqualTo("/m.checkm")).willReturn(aResponse().withBody("#%checkm_0.7\n")));
        HttpResponse<String> r = multipart("/poster/submit", "alice", Map.of("profile", "demo_content", "type",
                "batch-manifest", "url", http.baseUrl() + "/m.checkm", "responseForm", "json"), null, null);
        assertEquals(200, r.statusCode(), r.body());
        JsonNode state = json(r).get("bat:batchState");
        assertEquals(r.headers().firstValue("BID").orElseThrow(), state.get("bat:batchID").asText());
        assertEquals("batch-manifest", store.batches().load(state.get("bat:batchID").asText()).submission().type());
    }

    @Test
    void badSubmissionsAreRefusedNamingTheProblemAndCreateNothing() throws Exception {
        long before = store.batches().newestNumber();
        HttpResponse<String> r = multipart("/poster/submit", "sam", Map.of("profile", "nope", "type", "file"), "a.txt",
                new byte[] {1});
        assertEquals(400, r.statusCode());
        assertEquals("unknown profile 'nope'", json(r).get("error").asText());
        r = multipart("/poster/submit", "sam", Map.of("profile", "demo_content", "url", "ftp://x/y"), null, null);
        assertEquals(400, r.statusCode());
        assertTrue(json(r).get("error").asText().contains("only http and https"), r.body());
        r = multipart("/poster/submit", "sam", Map.of("profile", "demo_content", "type", "tarball", "url",
                "http://x/y"), null, null);
        assertTrue(json(r).get("error").asText().contains("unknown type 'tarball'"), r.body());
        r = multipart("/poster/submit", "sam", Map.of("profile", "demo_content"), null, null);
        assertTrue(json(r).get("error").asText().contains("neither a 'file' upload nor a 'url'"), r.body());
        r = multipart("/poster/submit", "sam", Map.of("profile", "demo_content"), "big.bin", new byte[200_000]);
        assertEquals(413, r.statusCode(), r.body());
        r = send("POST", "/api/batches", "sam", "{not json", "application/json");
        assertEquals(400, r.statusCode());
        assertEquals(before, store.batches().newestNumber(), "nothing was created");
    }

    @Test
    void rolesDecideWhoMaySubmitReadAndAct() throws Exception {
        assertEquals(401, send("GET", "/api/queue", null, null, null).statusCode());
        assertTrue(send("GET", "/api/queue", null, null, null).headers().firstValue("WWW-Authenticate").orElse("")
                .startsWith("Basic"));
        assertEquals(200, send("GET", "/api/queue", "rita", null, null).statusCode());
        assertEquals(403, send("POST", "/api/queue/hold", "sam", null, null).statusCode());
        assertEquals(403, send("POST", "/api/batches", "rita", "{}", "application/json").statusCode());
        HttpResponse<String> wrongPassword = CLIENT.send(HttpRequest.newBuilder(URI.create(base + "/api/queue"))
                .header("Authorization", auth("alice", "guess")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(401, wrongPassword.statusCode());
        assertEquals(200, send("GET", "/api/health", null, null, null).statusCode(), "health is public");
    }

    @Test
    void readsShowEveryNodeAndAdminActionsAnswer409With404AndAllowedActions() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 2, 5);
        JsonNode b = json(send("GET", "/api/batches/" + bid, "rita", null, null));
        assertEquals(2, b.get("jobs").get("total").asInt());
        assertEquals(2, b.get("job_states").get("pending").asInt());
        JsonNode jobs = json(send("GET", "/api/jobs?batch=" + bid + "&state=pending&limit=1", "rita", null,
                null)).get("jobs");
        assertEquals(1, jobs.size());
        String jid = jobs.get(0).get("job_id").asText();
        JsonNode job = json(send("GET", "/api/jobs/" + jid, "rita", null, null));
        assertEquals("pending", job.get("status").get("status").asText());
        assertEquals(0, job.get("status").get("retry_count").asInt());
        assertTrue(job.has("identifiers") && job.has("configuration") && job.has("space_needed"));

        HttpResponse<String> r = send("POST", "/api/jobs/" + jid + "/requeue", "alice", null, null);
        assertEquals(409, r.statusCode());
        assertTrue(json(r).get("error").asText().contains("is pending, not failed"), r.body());
        assertTrue(json(r).get("allowed").toString().contains("held (hold)"), r.body());
        assertEquals(404, send("POST", "/api/jobs/jid0000099999/hold", "alice", null, null).statusCode());
        assertEquals(404, send("GET", "/api/batches/bid0000099999", "alice", null, null).statusCode());
        assertEquals(400, send("GET", "/api/jobs?state=sleeping", "alice", null, null).statusCode());
        assertEquals(400, send("GET", "/api/jobs?state=pending&limit=lots", "alice", null, null).statusCode());
        assertEquals(400, send("GET", "/api/jobs", "alice", null, null).statusCode());

        assertEquals("held", json(send("POST", "/api/jobs/" + jid + "/hold", "alice", null,
                null)).get("status").get("status").asText());
        HttpResponse<String> del = send("POST", "/api/jobs/" + jid + "/delete", "alice", null, null);
        assertEquals(409, del.statusCode());
        assertTrue(json(del).get("error").asText().contains("confirm"), del.body());
        assertEquals(200, send("POST", "/api/jobs/" + jid + "/delete?confirm=true", "alice", null, null).statusCode());
        assertEquals(404, send("GET", "/api/jobs/" + jid, "alice", null, null).statusCode());

        JsonNode q = json(send("GET", "/api/queue", "rita", null, null));
        assertTrue(q.get("holds").get("queue").asBoolean());
        assertEquals(200, send("GET", "/api/fsck", "alice", null, null).statusCode());
        assertTrue(json(send("GET", "/api/fsck", "alice", null, null)).get("violations").isEmpty());
    }

    @Test
    void theJsonSubmissionCreatesABatch() throws Exception {
        HttpResponse<String> r = send("POST", "/api/batches", "sam", "{\"profile\":\"demo_content\",\"type\":\"file\","
                + "\"payload_url\":\"http://example.org/a.txt\",\"title\":\"T\"}", "application/json");
        assertEquals(201, r.statusCode(), r.body());
        String bid = r.headers().firstValue("BID").orElseThrow();
        assertEquals("/api/batches/" + bid, r.headers().firstValue("Location").orElseThrow());
        assertEquals(BatchState.PENDING, store.batches().load(bid).state());
        assertEquals("T", store.batches().load(bid).submission().ercWhat());
    }

    @Test
    void theOpenApiDocumentListsExactlyTheRoutes() throws Exception {
        JsonNode doc = json(send("GET", "/api/openapi.json", null, null, null));
        Set<String> documented = new TreeSet<>();
        doc.get("paths").fields().forEachRemaining(p -> p.getValue().fieldNames()
                .forEachRemaining(m -> documented.add(m.toUpperCase() + " " + p.getKey())));
        Set<String> served = new TreeSet<>();
        for (Endpoint e : service.camel().getRegistry().lookupByNameAndType("httpApi",
                HttpApi.class).endpoints()) {
            served.add(e.method() + " " + e.openApiPath().replace("/*", "/{path}"));
        }
        assertEquals(served, documented);
    }

    @Test
    void healthAndMetricsReportTheQueue() throws Exception {
        JsonNode h = json(send("GET", "/api/health", null, null, null));
        assertEquals("UP", h.get("status").asText());
        assertEquals("connected", h.get("zookeeper").asText());
        assertTrue(h.get("disk").get("usable_bytes").asLong() > 0);
        QueueTestSupport.batchWithJobs(store, 1, 5);
        String metrics = send("GET", "/metrics", null, null, null).body();
        assertTrue(metrics.contains("ingest_jobs{state=\"pending\"}"), metrics);
        assertTrue(metrics.contains("ingest_jobs{state=\"storing\"}"), metrics);
        assertTrue(metrics.contains("ingest_workers_capacity{queue=\"job/storing\"}"), metrics);
        assertTrue(json(send("GET", "/api/queue", "rita", null, null)).get("jobs").has("storing"),
                "counted with the others");
        assertTrue(metrics.contains("ingest_transitions_total{"), metrics);
        // the open jobs as the tiles count them (README, glossary)
        for (String as : List.of("active", "waiting", "held")) {
            assertTrue(metrics.contains("ingest_jobs_open{as=\"" + as + "\"}"), metrics);
        }
        // per-state utilisation: workers busy, capacity, busy time
        assertTrue(metrics.contains("ingest_workers_capacity{queue=\"job/pending\"}"), metrics);
        assertTrue(metrics.contains("ingest_workers_busy_seconds_total{queue=\"job/pending\"}"), metrics);
    }

    @Test
    void filesAreServedFromWorkingDirectoriesAndNothingOutside() throws Exception {
        Path f = dir.resolve("queue/bid0000000001/jid0000000001/producer/a b.txt");
        Files.createDirectories(f.getParent());
        Files.writeString(f, "content");
        // only a signed URL (as the storage manifest names it) or a storage user's credentials open a working file
        HttpResponse<String> unsigned = send("GET", "/files/bid0000000001/jid0000000001/producer/a%20b.txt", null, null,
                null);
        assertEquals(403, unsigned.statusCode(), unsigned.body());
        assertTrue(json(unsigned).get("error").asText().contains("needs a signed URL"), unsigned.body());
        HttpResponse<String> r = send("GET", signed("/files/bid0000000001/jid0000000001/producer/a%20b.txt"), null,
                null, null);
        assertEquals(200, r.statusCode(), r.body());
        assertEquals("content", r.body());
        assertEquals(404, send("GET", signed("/files/bid0000000001/jid0000000001/.download/complete.jsonl"), null, null,
                null).statusCode());
        int escape = send("GET", signed("/files/bid0000000001/jid0000000001/producer/..%2F..%2F..%2Fsecret"), null,
                null, null).statusCode();
        assertTrue(escape == 400 || escape == 404, "escape answered " + escape);
    }

    /** {@code path} signed as the storage manifest of a job in this service's ingest home would sign it. */
    static String signed(String path) {
        String url = FileUrlSigner.signIfServed(dir.resolve("queue/bid0000000001/jid0000000001"),
                base + path);
        assertTrue(url.contains("&signature="), url);
        return url.substring(base.length());
    }
}
