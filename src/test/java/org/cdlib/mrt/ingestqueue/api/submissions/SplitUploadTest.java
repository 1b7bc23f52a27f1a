package org.cdlib.mrt.ingestqueue.api.submissions;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.cdlib.mrt.ingestqueue.api.http.ApiServiceTest;
import org.cdlib.mrt.ingestqueue.api.http.MultipartForm;
import org.cdlib.mrt.ingestqueue.api.http.RawHttp;
import org.cdlib.mrt.ingestqueue.api.http.SplitBody;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An uploaded file is kept byte for byte as the depositor sent it, however the network split the body: a cut
 * between the CR and the LF before the closing boundary adds no CR to the file (netty#12729), and a file that
 * really ends in CR keeps it.
 */
class SplitUploadTest extends ApiServiceTest {

    @BeforeAll
    static void start() throws Exception {
        startService(Map.of("ingest.api.users", "sam:pw-s:submitter"));
        store.holds().holdQueue("test"); // the uploads are looked at, not run
    }

    @ParameterizedTest
    @ValueSource(strings = {"a plain text file\n", "its last line ends in CR\r", "\r", "\r\n\r", "no line end"})
    void theKeptFileIsTheSentFile(String content) throws Exception {
        byte[] sent = content.getBytes(StandardCharsets.UTF_8);
        RawHttp a = SplitBody.post(base, "/poster/submit", "sam", "pw-s", MultipartForm.of(
                Map.of("profile", "demo_content", "responseForm", "json", "type", "file"), "notes.txt", sent));
        assertEquals(200, a.status(), a.body());
        JsonNode state = JSON.readTree(a.body()).get("bat:batchState");
        Path kept = Path.of(URI.create(store.batches().load(state.get("bat:batchID").asText()).submission()
                .payloadUrl()));
        byte[] stored = Files.readAllBytes(kept);
        assertEquals(sent.length, stored.length, "the kept file's size");
        assertArrayEquals(sha256(sent), sha256(stored), "the kept file's SHA-256");
        await().atMost(Duration.ofSeconds(30)).until(SplitUploadTest::nothingIncoming);
    }

    @Test
    void aRefusedUploadLeavesNothingBehind() throws Exception {
        RawHttp a = SplitBody.post(base, "/poster/submit", "sam", "pw-s", MultipartForm.of(
                Map.of("profile", "no_such_profile", "responseForm", "json"), "notes.txt", "text\r".getBytes(
                StandardCharsets.UTF_8)));
        assertEquals(400, a.status(), a.body());
        await().atMost(Duration.ofSeconds(30)).until(SplitUploadTest::nothingIncoming);
    }

    /** The temporary folder holds neither a body being decoded nor an upload not kept. */
    private static boolean nothingIncoming() throws Exception {
        try (Stream<Path> left = Files.list(store.ingestHome().resolve("uploads").resolve(".incoming"))) {
            return left.findAny().isEmpty();
        }
    }

    private static byte[] sha256(byte[] data) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(data);
    }
}
