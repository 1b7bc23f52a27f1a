package org.cdlib.mrt.ingestqueue.api.submissions;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.cdlib.mrt.ingestqueue.api.http.ApiServiceTest;
import org.cdlib.mrt.ingestqueue.api.http.MultipartForm;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Nothing a depositor sends makes a ZooKeeper write over the packet limit (this JVM's clients and
 * server run with jute.maxbuffer=524288): oversized bodies, fields and manifest cells are refused
 * at the door naming the limit, nothing is created, and the service's ZooKeeper connection never
 * leaves CONNECTED.
 */
class SubmissionLimitsTest extends ApiServiceTest {
    static final int MB_1_5 = 1_572_864;
    @RegisterExtension
    static final WireMockExtension http = WireMockExtension.newInstance()
            .options(WireMockConfiguration.options().dynamicPort()).build();
    static final List<ConnectionState> STATES = new CopyOnWriteArrayList<>();
    static final ConnectionStateListener LISTENER = (client, state) -> STATES.add(state);
    long batchesBefore;

    @BeforeAll
    static void start() throws Exception {
        startService(Map.of("ingest.api.users", "sam:pw-s:submitter"));
        store.client().getConnectionStateListenable().addListener(LISTENER);
    }

    @BeforeEach
    void count() {
        STATES.clear();
        batchesBefore = store.batches().newestNumber();
    }

    @AfterEach
    void connectionNeverDropped() {
        assertTrue(STATES.stream().noneMatch(s -> s == ConnectionState.SUSPENDED || s == ConnectionState.LOST),
                "the ZooKeeper connection changed: " + STATES);
        assertTrue(store.client().getZookeeperClient().isConnected());
    }

    void assertNothingCreated() {
        assertEquals(batchesBefore, store.batches().newestNumber(), "no batch was created");
    }

    static String auth() {
        return "Basic " + Base64.getEncoder().encodeToString("sam:pw-s".getBytes(StandardCharsets.UTF_8));
    }

    static HttpResponse<String> send(String path, String json) throws Exception {
        return post(path, "application/json", HttpRequest.BodyPublishers.ofString(json));
    }

    static HttpResponse<String> post(String path, String contentType, HttpRequest.BodyPublisher body) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60))
                .header("Authorization", auth())
                .header("Content-Type", contentType).POST(body).build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> form(Map<String, String> fields, String fileName, byte[] file) throws Exception {
        return form("/poster/submit", fields, fileName, file);
    }

    static HttpResponse<String> form(String path, Map<String, String> fields, String fileName,
            byte[] file) throws Exception {
        MultipartForm form = MultipartForm.of(fields, fileName, file);
        return post(path, form.contentType(), form.publisher());
    }

    static JsonNode json(HttpResponse<String> r) throws Exception {
        return JSON.readTree(r.body());
    }

    static String error(HttpResponse<String> r, int status) throws Exception {
        assertEquals(status, r.statusCode(), r.body().length() > 500 ? r.body().substring(0, 500) + "..." : r.body());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/json"),
                r.headers().toString());
        return json(r).get("error").asText();
    }

    static List<Path> uploads() throws Exception {
        Path uploads = dir.resolve("queue").resolve("uploads");
        try (Stream<Path> s = Files.list(uploads)) {
            return new ArrayList<>(s.filter(p -> !p.getFileName().toString().equals(".incoming")).toList());
        }
    }

    @Test
    void aJsonBodyOverItsLimitIsRefusedWith413NamingTheLimit() throws Exception {
        byte[] body = ("{\"profile\":\"demo_content\",\"payload_url\":\"http://example.org/a\",\"title\":\""
                + "x".repeat(10 * 1024 * 1024 - 70) + "\"}").getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> r = post("/api/batches", "application/json", HttpRequest.BodyPublishers.ofByteArray(body));
        assertEquals("the body is " + body.length + " bytes; POST /api/batches takes at most 65536 bytes", error(r,
                413));
        // the same sent in chunks, without a Content-Length
        r = post("/api/batches", "application/json", HttpRequest.BodyPublishers.ofInputStream(() ->
                new ByteArrayInputStream(body)));
        assertEquals("the body is more than 65536 bytes; POST /api/batches takes at most 65536 bytes", error(r, 413));
        // a title of 1.5 MB in JSON cannot be under the body limit: 413 too
        r = send("/api/batches", "{\"profile\":\"demo_content\",\"payload_url\":\"http://example.org/a\",\"title\":\""
                + "x".repeat(MB_1_5) + "\"}");
        assertTrue(error(r, 413).contains("takes at most 65536 bytes"), r.body());
        assertNothingCreated();
    }

    @Test
    void aJsonBodyThatIsNotAnObjectIsA400() throws Exception {
        assertEquals("the body is not a JSON object but null: send the submission's fields as one object, "
                + "e.g. {\"profile\": ..., \"payload_url\": ...}", error(send("/api/batches", "null"), 400));
        assertTrue(error(send("/api/batches", "[1, 2]"), 400).startsWith(
                "the body is not a JSON object but a JSON array"));
        assertTrue(error(send("/api/batches", "\"a string\""), 400).startsWith(
                "the body is not a JSON object but a JSON string"));
        assertTrue(error(send("/api/batches", ""), 400).startsWith("the body is not a JSON object but empty"));
        assertTrue(error(send("/api/batches", "{\"profile\": "), 400).startsWith("the body is not a JSON object: "));
        assertTrue(error(form("/api/batches", Map.of("profile", "demo_content"), "a.txt", new byte[100]), 400)
                .startsWith("the body is not a JSON object but empty"), "a form is no JSON body");
        assertNothingCreated();
    }

    @Test
    void aJsonFieldOverItsLimitIsRefusedNamingFieldAndLimit() throws Exception {
        String ok = "{\"profile\":\"demo_content\",\"payload_url\":\"http://example.org/a\"";
        assertEquals("field 'title' is 10000 bytes; the limit is 4096 bytes",
                error(send("/api/batches", ok + ",\"title\":\"" + "x".repeat(10_000) + "\"}"), 400));
        assertEquals("field 'local_identifier' is 8194 bytes; the limit is 4096 bytes",
                error(send("/api/batches", ok + ",\"local_identifier\":\"" + "é".repeat(4097) + "\"}"), 400),
                "UTF-8 bytes");
        assertEquals("field 'payload_url' is 5019 bytes; the limit is 4096 bytes", error(send("/api/batches",
                "{\"profile\":\"demo_content\",\"payload_url\":\"http://example.org/" + "a".repeat(5000) + "\"}"),
                400));
        String dc = "{\"subject\":[\"" + "s".repeat(4000) + "\",\"" + "s".repeat(4000) + "\"],\"description\":\""
                + "d".repeat(9000) + "\"}";
        assertEquals("the Dublin Core fields (dublin_core.*) are 17018 bytes together; the limit is 16384 bytes",
                error(send("/api/batches", ok + ",\"dublin_core\":" + dc + "}"), 400));
        assertNothingCreated();
    }

    @Test
    void aSubmissionWhoseFieldsAreEachAllowedButTogetherTooLargeForANodeIsRefused() throws Exception {
        StringBuilder b = new StringBuilder("{\"profile\":\"demo_content\",\"payload_url\":\"http://example.org/a\"");
        // only fields whose content is free text, so no other check refuses the submission first
        for (String f : List.of("title", "creator", "date", "local_identifier", "note", "submitter")) {
            // the submitter names the user who sends it (sam, as Merritt's user/Display Name)
            b.append(",\"").append(f).append("\":\"").append(f.equals("submitter") ? "sam/" + "v".repeat(3996)
                    : "v".repeat(4000)).append('"');
        }
        b.append(",\"dublin_core\":{\"description\":[\"").append("d".repeat(4000)).append("\",\"")
                .append("e".repeat(4000))
                .append("\",\"").append("f".repeat(4000)).append("\"]}");
        String body = b.append('}').toString();
        assertTrue(body.length() < QueueLimits.JSON_BODY_BYTES);
        String message = error(send("/api/batches", body), 400);
        assertTrue(message.startsWith("the submission is ") && message.contains(
                " bytes once serialized; the limit is 32768 bytes"),
                message);
        assertNothingCreated();
    }

    @Test
    void aMerrittFormFieldOverItsLimitIsRefusedNamingTheFieldAndKeepsNoUpload() throws Exception {
        List<Path> uploadsBefore = uploads();
        Map<String, String> f = new LinkedHashMap<>();
        f.put("profile", "demo_content");
        f.put("type", "file");
        f.put("title", "x".repeat(MB_1_5));
        for (String path : List.of("/poster/submit", "/poster/add", "/poster/update")) {
            assertEquals("field 'title' is 1572864 bytes; the limit is 4096 bytes",
                    error(form(path, f, "hello.txt", "hello".getBytes(StandardCharsets.UTF_8)), 400), path);
        }
        f.put("title", "T");
        f.put("url", "http://example.org/" + "a".repeat(5000));
        assertEquals("field 'url' is 5019 bytes; the limit is 4096 bytes", error(form(f, null, null), 400));
        f.remove("url");
        f.put("DC.description", "d".repeat(10_000));
        f.put("DC.subject", "s".repeat(10_000));
        assertEquals("the Dublin Core fields (DC.*) are 20018 bytes together; the limit is 16384 bytes",
                error(form(f, "hello.txt", "hello".getBytes(StandardCharsets.UTF_8)), 400));
        f.remove("DC.description");
        f.remove("DC.subject");
        // past what Vert.x holds of a field (2 MB), Vert.x refuses it; the message still names the limit
        f.put("note", "n".repeat(3 * 1024 * 1024));
        assertEquals("a form field is larger than 2097152 bytes; a field takes at most 4096 bytes (a URL 4096, "
                + "the Dublin Core fields 16384 together)", error(form(f, "hello.txt",
                "hello".getBytes(StandardCharsets.UTF_8)), 400));
        f.remove("note");
        // an unknown profile with an upload: refused, and the upload is not kept either
        f.put("profile", "nope");
        assertEquals("unknown profile 'nope'", error(form(f, "hello.txt", "hello".getBytes(StandardCharsets.UTF_8)),
                400));
        assertEquals(uploadsBefore, uploads(), "no upload was kept");
        assertNothingCreated();
    }

    @Test
    void aFormFieldOverTwoMegabytesAfterTheFileIsRefusedWith400AndKeepsNoUpload() throws Exception {
        List<Path> uploadsBefore = uploads();
        String boundary = "----after-the-file";
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(("--" + boundary
                + "\r\nContent-Disposition: form-data; name=\"profile\"\r\n\r\ndemo_content\r\n"
                + "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"hello.txt\"\r\n"
                + "Content-Type: application/octet-stream\r\n\r\nhello\r\n"
                + "--" + boundary + "\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\n"
                + "n".repeat(3 * 1024 * 1024)
                + "\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
        HttpResponse<String> r = post("/poster/submit", "multipart/form-data; boundary=" + boundary,
                HttpRequest.BodyPublishers.ofByteArray(body.toByteArray()));
        // which of the two Vert.x reports depends on timing (the field's limit, or the upload it cancels): both say why
        String why = error(r, 400);
        assertTrue(why.equals(
                "a form field is larger than 2097152 bytes; a field takes at most 4096 bytes (a URL 4096, "
                + "the Dublin Core fields 16384 together)")
                || why.equals(
                "the upload was cut off: a form field is larger than 2097152 bytes, or the request ended early; "
                + "nothing was kept"), why);
        assertEquals(uploadsBefore, uploads(), "no upload was kept");
        assertNothingCreated();
    }

    @Test
    void anUploadWhoseFileNameIsNotUtf8IsRefusedAndAUtf8NameIsKeptExactly() throws Exception {
        List<Path> uploadsBefore = uploads();
        HttpResponse<String> r = formWithRawFileName("caf\u00e9.txt".getBytes(StandardCharsets.ISO_8859_1));
        assertTrue(error(r, 400).endsWith("is not UTF-8; send the name in UTF-8 (or give it in the 'filename' field)"),
                r.body());
        assertEquals(uploadsBefore, uploads(), "no upload was kept");
        assertNothingCreated();
        HttpResponse<String> ok = formWithRawFileName("caf\u00e9 \u65e5\u672c.txt".getBytes(StandardCharsets.UTF_8));
        assertEquals(200, ok.statusCode(), ok.body());
        assertEquals("caf\u00e9 \u65e5\u672c.txt", store.batches().load(ok.headers().firstValue("BID").orElseThrow())
                .submission().fileName());
    }

    static HttpResponse<String> formWithRawFileName(byte[] name) throws Exception {
        String boundary = "----raw-name";
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(("--" + boundary
                + "\r\nContent-Disposition: form-data; name=\"profile\"\r\n\r\ndemo_content\r\n"
                + "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"")
                .getBytes(StandardCharsets.UTF_8));
        body.writeBytes(name);
        body.writeBytes(("\"\r\nContent-Type: application/octet-stream\r\n\r\nhello\r\n--" + boundary + "--\r\n")
                .getBytes(StandardCharsets.UTF_8));
        return post("/poster/submit", "multipart/form-data; boundary=" + boundary,
                HttpRequest.BodyPublishers.ofByteArray(body.toByteArray()));
    }

    @Test
    void aBatchManifestRowWithAnOversizedCellFailsTheBatchNamingLineAndCell() throws Exception {
        String m = "#%checkm_0.7\n#%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-batch-manifest\n"
                + "#%fields | nfo:fileUrl | nfo:fileName | mrt:localIdentifier | mrt:title\n"
                + http.baseUrl() + "/a.checkm | a.checkm | loc-a | A\n"
                + http.baseUrl() + "/b.checkm | b.checkm | loc-b | " + "x".repeat(MB_1_5) + "\n"
                + "#%eof\n";
        http.stubFor(get(urlEqualTo("/big-cell.checkm")).willReturn(aResponse().withBody(m)));
        HttpResponse<String> r = send("/api/batches",
                "{\"profile\":\"demo_content\",\"type\":\"batch-manifest\",\"payload_url\":\""
                + http.baseUrl() + "/big-cell.checkm\"}");
        assertEquals(201, r.statusCode(), r.body());
        String bid = r.headers().firstValue("BID").orElseThrow();
        await().atMost(Duration.ofSeconds(30)).until(() -> store.batches().load(bid).state() == BatchState.FAILED);
        Batch b = store.batches().load(bid);
        assertEquals("manifest line 5: cell mrt:title is 1572864 bytes; the limit is 4096 bytes",
                b.status().errorMessage());
        for (BatchRef ref : BatchRef.values()) {
            assertEquals(0, b.count(ref), "no job was created: " + ref);
        }
        store.jobs().counts().forEach((s, n) -> assertEquals(0, n, "no job was created: " + s));
    }
}
