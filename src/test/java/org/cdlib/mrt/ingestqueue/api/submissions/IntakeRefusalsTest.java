package org.cdlib.mrt.ingestqueue.api.submissions;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.cdlib.mrt.ingestqueue.api.http.ApiServiceTest;
import org.cdlib.mrt.ingestqueue.api.http.MultipartForm;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionEvent;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.Probes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a refused submission leaves (no file, no batch), a busy batch counter's answer (503 with
 * Retry-After), the upload quota of the user a poster names, and the refusals at the door of a
 * submission mode the queue does not run and of a file name no file system keeps.
 */
class IntakeRefusalsTest extends ApiServiceTest {
    static final long QUOTA = 100_000;

    @BeforeAll
    static void start() throws Exception {
        startService(Map.of("ingest.api.users", "sam:pw-s:submitter, ui:pw-ui:poster",
                "ingest.api.max-upload-per-user", String.valueOf(QUOTA)));
    }

    /** Every batch submitted while a test runs. */
    final List<String> submitted = new CopyOnWriteArrayList<>();
    final Consumer<TransitionEvent> listener = e -> {
        if (TransitionEvent.BATCH.equals(e.kind()) && e.from() == null) {
            submitted.add(e.id());
        }
    };

    @BeforeEach
    void listen() {
        store.addListener(listener);
    }

    @AfterEach
    void noHook() {
        store.probes().clear();
        store.removeListener(listener);
    }

    static String auth(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    static HttpResponse<String> post(String auth, String path, String contentType,
            HttpRequest.BodyPublisher body) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60))
                .header("Authorization", auth)
                .header("Content-Type", contentType).POST(body).build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> upload(String auth, Map<String, String> fields, String fileName,
            int bytes) throws Exception {
        MultipartForm form = MultipartForm.of(fields, fileName, "x".repeat(bytes).getBytes(StandardCharsets.UTF_8));
        return post(auth, "/poster/submit", form.contentType(), form.publisher());
    }

    static HttpResponse<String> json(String body) throws Exception {
        return post(auth("sam", "pw-s"), "/api/batches", "application/json", HttpRequest.BodyPublishers.ofString(body));
    }

    static Map<String, String> fields(String submitter) {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("profile", "demo_content");
        f.put("type", "file");
        f.put("responseForm", "json");
        if (submitter != null) {
            f.put("submitter", submitter);
        }
        return f;
    }

    static String error(HttpResponse<String> r, int status) throws Exception {
        assertEquals(status, r.statusCode(), r.body());
        return JSON.readTree(r.body()).get("error").asText();
    }

    /** Every file under the uploads directory, the incoming bodies among them. */
    static long uploadedFiles() throws Exception {
        Path uploads = dir.resolve("queue").resolve("uploads");
        if (!Files.exists(uploads)) {
            return 0;
        }
        try (Stream<Path> all = Files.walk(uploads)) {
            return all.filter(Files::isRegularFile).count();
        }
    }

    static List<String> uploadDirs() throws Exception {
        Path uploads = dir.resolve("queue").resolve("uploads");
        if (!Files.exists(uploads)) {
            return List.of();
        }
        try (Stream<Path> dirs = Files.list(uploads)) {
            return dirs.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** Another submission passes the batch counter before every try of this one. */
    static void counterAlwaysTaken() {
        store.probes().set(Probes.Point.BEFORE_COUNTER_PASS, () -> {
            try {
                byte[] data = store.client().getData().forPath(QueuePaths.BATCH_COUNTER);
                store.client().setData().forPath(QueuePaths.BATCH_COUNTER, data);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void aBusyBatchCounterAnswers503WithRetryAfterAndCreatesNothing() throws Exception {
        counterAlwaysTaken();
        HttpResponse<String> r = json("{\"profile\":\"demo_content\",\"payload_url\":\"http://example.org/a.txt\"}");
        assertEquals("cannot create batch: other submissions passed the batch counter 60 times in a row; submit again",
                error(r, 503));
        assertEquals("2", r.headers().firstValue("Retry-After").orElse(null), r.headers().toString());
        assertEquals(List.of(), submitted, "no batch was created");
        store.probes().clear();
        assertEquals(201, json("{\"profile\":\"demo_content\",\"payload_url\":\"http://example.org/a.txt\"}")
                .statusCode());
    }

    @Test
    void aRefusedUploadKeepsNoFile() throws Exception {
        long before = uploadedFiles();
        List<String> dirsBefore = uploadDirs();
        // refused at the door: an unknown profile
        Map<String, String> unknown = fields(null);
        unknown.put("profile", "no_such_profile");
        assertEquals("unknown profile 'no_such_profile'", error(upload(auth("sam", "pw-s"), unknown, "a.txt", 100),
                400));
        await().atMost(Duration.ofSeconds(10)).until(() -> uploadedFiles() == before);
        // refused by the queue once the upload was kept: the batch counter busy
        counterAlwaysTaken();
        HttpResponse<String> r = upload(auth("sam", "pw-s"), fields(null), "b.txt", 100);
        assertTrue(error(r, 503).contains("passed the batch counter"), r.body());
        assertEquals("2", r.headers().firstValue("Retry-After").orElse(null));
        await().atMost(Duration.ofSeconds(10)).until(() -> uploadedFiles() == before);
        assertEquals(dirsBefore, uploadDirs(), "no upload directory is left either");
    }

    @Test
    void aFileNameLongerThanAFileSystemKeepsIsA400NamingTheFieldAndTheLimit() throws Exception {
        long before = uploadedFiles();
        String name = "n".repeat(296) + ".txt";
        String why = error(upload(auth("sam", "pw-s"), fields(null), name, 10), 400);
        assertTrue(why.startsWith("field 'file': the file name 'nnnn") && why.endsWith("is 300 bytes; a file name "
                + "(each part between '/') may have at most 255 bytes"), why);
        assertFalse(why.contains(dir.toString()) || why.contains("uploads"), "no path of the service's: " + why);
        await().atMost(Duration.ofSeconds(10)).until(() -> uploadedFiles() == before);
        // the same name in the form's filename field, and in the JSON body
        Map<String, String> named = fields(null);
        named.put("filename", name);
        assertTrue(error(upload(auth("sam", "pw-s"), named, "short.txt", 10), 400).startsWith("field 'filename': "));
        assertTrue(error(json(
                "{\"profile\":\"demo_content\",\"payload_url\":\"http://example.org/a.txt\",\"file_name\":\""
                + name + "\"}"), 400).startsWith("field 'file_name': "));
        await().atMost(Duration.ofSeconds(10)).until(() -> uploadedFiles() == before);
    }

    @Test
    void submissionModeDeleteIsRefusedNamingTheFieldAndTheAcceptedValues() throws Exception {
        String why = error(json("{\"profile\":\"demo_content\",\"payload_url\":\"http://example.org/a.txt\","
                + "\"submission_mode\":\"delete\"}"), 400);
        assertEquals(
                "field 'submission_mode' is 'delete'; the accepted values are add and update (to delete files from an "
                + "object, submit an update whose payload holds mrt-delete.txt listing them)", why);
        assertEquals(List.of(), submitted, "no batch was created");
        HttpResponse<String> update = json("{\"profile\":\"demo_content\",\"payload_url\":\"http://example.org/a.txt\","
                + "\"submission_mode\":\"Update\"}");
        assertEquals(201, update.statusCode(), update.body());
        String bid = update.headers().firstValue("BID").orElseThrow();
        assertEquals("update", store.batches().load(bid).submission().submissionMode());
    }

    @Test
    void aPostersUploadsCountForEachUserItNamesNotForThePostersAccount() throws Exception {
        String ui = auth("ui", "pw-ui");
        // 60,000 bytes for alice, then 60,000 for bob: each has an allowance of their own
        HttpResponse<String> alice = upload(ui, fields("alice/Alice Adams"), "a.txt", 60_000);
        assertEquals(200, alice.statusCode(), alice.body());
        HttpResponse<String> bob = upload(ui, fields("bob"), "b.txt", 60_000);
        assertEquals(200, bob.statusCode(), bob.body());
        // alice's second 60,000 bytes pass her own 100,000
        long before = uploadedFiles();
        String why = error(upload(ui, fields("alice"), "c.txt", 60_000), 413);
        assertEquals(
                "user 'alice' (for whom 'ui' posts) may upload 100000 bytes per PT24H "
                + "(ingest.api.max-upload-per-user); "
                + "40000 bytes are left and this upload is 60000 bytes", why);
        await().atMost(Duration.ofSeconds(10)).until(() -> uploadedFiles() == before);
        assertEquals(2, submitted.size());
    }
}
