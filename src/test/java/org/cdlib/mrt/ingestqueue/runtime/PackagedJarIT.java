package org.cdlib.mrt.ingestqueue.runtime;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.cdlib.mrt.ingestqueue.api.http.MultipartForm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's first command: the packaged jar, on its own classpath (not the tests'), started in
 * an empty working directory. The suite's other tests run on the test classpath, which carries
 * components (camel-direct came with camel-test) the jar did not; this is where that shows.
 */
class PackagedJarIT {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Path JAR = Path.of(System.getProperty("ingest.jar", "target/ingest-queue.jar"));
    @TempDir
    Path dir;

    /** With the limits the README and the Dockerfile give a single host. */
    Process java(Path log, String... args) throws IOException {
        return Jvms.start(dir, log, List.of(args));
    }

    @Test
    void theDemoBatchCompletesThroughThePackagedJar() throws Exception {
        assertTrue(Files.isRegularFile(JAR), "the jar is built before the integration tests: " + JAR);
        Path log = dir.resolve("demo.log");
        Process p = java(log, "-jar", JAR.toAbsolutePath().toString(), "demo");
        boolean ended = p.waitFor(4, TimeUnit.MINUTES);
        if (!ended) {
            p.destroyForcibly();
        }
        String out = Files.readString(log);
        assertTrue(ended, "the demo did not end within 4 minutes:\n" + out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("notify -> completed"), out);
    }

    @Test
    void theServiceStartsTakesAnUploadToCompletionAndStopsOnSigterm() throws Exception {
        int http = freePort();
        int zookeeper = freePort();
        Path log = dir.resolve("service.log");
        Process p = java(log, "-Dingest.http.port=" + http, "-Dzookeeper.embedded.port=" + zookeeper,
                "-jar", JAR.toAbsolutePath().toString());
        try {
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
            String base = "http://127.0.0.1:" + http;
            HttpRequest health = HttpRequest.newBuilder(URI.create(base + "/api/health"))
                    .timeout(Duration.ofSeconds(5)).build();
            // the port opens when the service is up; a process that ended will not open it
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
                    .until(() -> !p.isAlive() || healthy(client, health));
            HttpResponse<String> up = client.send(health, HttpResponse.BodyHandlers.ofString());
            int status = up.statusCode();
            String body = up.body();
            String out = Files.readString(log);
            assertEquals(200, status, "GET /api/health: " + body + "\n" + out);
            assertTrue(out.contains("routes started"), out);
            assertFalse(out.contains("cannot start"), out);
            for (String[] page :
                    new String[][] {{"/", "<html"}, {"/metrics", "ingest_jobs"}, {"/api/openapi.json", "\"openapi\""}
                    }) {
                HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + page[0])).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(200, r.statusCode(), page[0] + ": " + r.body());
                assertTrue(r.body().contains(page[1]), page[0] + " without " + page[1] + ": " + r.body());
            }

            // a depositor's upload through the Merritt form, to completion
            String password = Files.readString(dir.resolve("data/queue/.secrets/admin-password")).trim();
            String auth = "Basic "
                    + Base64.getEncoder().encodeToString(("admin:" + password).getBytes(StandardCharsets.UTF_8));
            MultipartForm form = MultipartForm.of(
                    Map.of("profile", "demo_content", "type", "file", "responseForm", "json"),
                    "hello.txt", "hello".getBytes(StandardCharsets.UTF_8));
            HttpResponse<String> submitted = client.send(HttpRequest.newBuilder(URI.create(base + "/poster/submit"))
                    .header("Authorization", auth).header("Content-Type", form.contentType())
                    .POST(form.publisher()).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, submitted.statusCode(), submitted.body());
            String bid = submitted.headers().firstValue("BID").orElseThrow();
            HttpRequest batch = HttpRequest.newBuilder(URI.create(base + "/api/batches/" + bid))
                    .header("Authorization", auth)
                    .build();
            String[] last = {""};
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> {
                last[0] = client.send(batch, HttpResponse.BodyHandlers.ofString()).body();
                return List.of("completed", "failed").contains(batchState(last[0]));
            });
            String state = batchState(last[0]);
            String body2 = last[0];
            assertEquals("completed", state, "batch " + bid + ": " + body2 + "\n" + Files.readString(log));

            // the operator's command line from the same jar
            for (String command : new String[] {"status", "fsck", "batches"}) {
                Path cliLog = dir.resolve(command + ".log");
                Process cli = java(
                        cliLog,
                        "-jar",
                        JAR.toAbsolutePath().toString(),
                        command,
                        "--url",
                        base,
                        "--user",
                        "admin:" + password);
                assertTrue(cli.waitFor(60, TimeUnit.SECONDS), command + " did not end");
                assertEquals(0, cli.exitValue(), command + ": " + Files.readString(cliLog));
            }
            String batches = Files.readString(dir.resolve("batches.log"));
            assertTrue(batches.contains(bid) && batches.contains("completed"), batches);

            p.destroy(); // SIGTERM: work in hand ends, the session closes
            assertTrue(p.waitFor(75, TimeUnit.SECONDS), "still running 75 s after SIGTERM:\n" + Files.readString(log));
        } finally {
            p.destroyForcibly();
        }
    }

    static boolean healthy(HttpClient client, HttpRequest health) throws InterruptedException {
        try {
            return client.send(health, HttpResponse.BodyHandlers.ofString()).statusCode() == 200;
        } catch (IOException notYet) {
            return false;
        }
    }

    static String batchState(String batchJson) throws IOException {
        return JSON.readTree(batchJson).path("status").path("status").asText();
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
