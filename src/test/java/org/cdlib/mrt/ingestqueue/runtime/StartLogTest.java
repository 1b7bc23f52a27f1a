package org.cdlib.mrt.ingestqueue.runtime;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.cdlib.mrt.ingestqueue.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A start as an operator reads it: {@code Main} in a JVM of its own, in an empty working directory,
 * logging with the jar's {@code logback.xml} (not the tests' quieter one). A normal start and stop
 * (embedded ZooKeeper, local back-ends) logs no WARN and no ERROR; a start that fails ends with the
 * one line that says why, exit code 1, and nothing after it (no shutdown said to be a SIGTERM), and a
 * ZooKeeper that cannot be reached costs no reconnect WARNs or stack traces before that line.
 */
class StartLogTest {
    static final Path LOGBACK = Path.of("target/classes/logback.xml").toAbsolutePath();

    @TempDir
    Path dir;

    Process main(Path log, String... properties) throws IOException {
        List<String> args = new ArrayList<>(List.of("-Dlogback.configurationFile=" + LOGBACK));
        args.addAll(List.of(properties));
        args.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
        return Jvms.start(dir, log, args);
    }

    static List<String> warnings(List<String> lines) {
        return lines.stream()
                .filter(l -> l.contains(" WARN ") || l.contains(" ERROR ") || l.startsWith("\tat "))
                .toList();
    }

    @Test
    void aNormalStartAndStopLogNoWarnAndNoErrorAndTheDashboardHasItsIcon() throws Exception {
        int http = freePort();
        Path log = dir.resolve("service.log");
        Process p = main(log, "-Dingest.http.port=" + http, "-Dzookeeper.embedded.port=" + freePort());
        try {
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
                    .until(() -> !p.isAlive() || Files.readString(log).contains("routes started"));
            assertTrue(p.isAlive(), Files.readString(log));

            HttpClient client = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + http;
            HttpResponse<String> icon = client.send(HttpRequest.newBuilder(URI.create(base + "/favicon.svg")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, icon.statusCode(), icon.body());
            assertTrue(icon.headers().firstValue("Content-Type").orElse("").startsWith("image/svg+xml"),
                    icon.headers().map().toString());
            for (String page : List.of("/", "/login.html", "/status.html")) {
                String html = client.send(HttpRequest.newBuilder(URI.create(base + page)).build(),
                        HttpResponse.BodyHandlers.ofString()).body();
                assertTrue(html.contains("<link rel=\"icon\" href=\"favicon.svg\""), page + ": " + html);
            }

            p.destroy(); // SIGTERM
            assertTrue(p.waitFor(75, TimeUnit.SECONDS), "still running 75 s after SIGTERM");
        } finally {
            p.destroyForcibly();
        }
        List<String> lines = Files.readAllLines(log);
        assertEquals(List.of(), warnings(lines), String.join("\n", lines));
    }

    @Test
    void aZooKeeperThatCannotBeReachedEndsTheStartInOneLineWithoutReconnectNoise() throws Exception {
        // something listens, and closes every connection at once: the ZooKeeper client tries again and again
        try (ServerSocket notZooKeeper = new ServerSocket(0)) {
            Thread closer = new Thread(() -> {
                while (!notZooKeeper.isClosed()) {
                    try (Socket s = notZooKeeper.accept()) {
                        s.shutdownOutput();
                    } catch (IOException closed) {
                        return;
                    }
                }
            });
            closer.setDaemon(true);
            closer.start();
            String connect = "127.0.0.1:" + notZooKeeper.getLocalPort();
            Path log = dir.resolve("unreachable.log");
            Process p = main(log, "-Dingest.http.port=" + freePort(), "-Dzookeeper.connect=" + connect,
                    "-Dzookeeper.connection-timeout=4000");
            List<String> lines = ended(p, log);
            assertEquals(1, p.exitValue(), String.join("\n", lines));
            assertEquals(List.of(), warnings(lines), String.join("\n", lines));
            String last = lines.get(lines.size() - 1);
            assertTrue(last.startsWith("ingest-queue cannot start: cannot reach ZooKeeper at " + connect
                    + " within 4 s (check zookeeper.connect = " + connect + " (-D)): the last try: "), last);
            assertTrue(last.contains("closed socket"), "the cause the client saw: " + last);
        }
    }

    @Test
    void aFailedStartEndsWithItsReasonAndNothingAfterIt() throws Exception {
        // refused before anything starts; and a bad value, found wherever the start reads it (after the queue
        // opened, it is closed again without a line of its own)
        String[][] cases = {
            {"-Dzookeeper.connect=127.0.0.1:" + freePort(), "zookeeper.connect"},
            {"-Dingest.queue.max-open-batches=lots", "ingest.queue.max-open-batches"}};
        for (String[] c : cases) {
            Path log = dir.resolve(c[1] + ".log");
            Process p = main(log, "-Dingest.http.port=" + freePort(), "-Dzookeeper.embedded.port=" + freePort(), c[0]);
            List<String> lines = ended(p, log);
            String all = String.join("\n", lines);
            assertEquals(1, p.exitValue(), all);
            String last = lines.get(lines.size() - 1);
            assertTrue(last.startsWith("ingest-queue cannot start: ") && last.contains(c[1]), last);
            assertFalse(all.contains("SIGTERM"), "no signal was sent:\n" + all);
            assertEquals(List.of(), warnings(lines), all);
        }
    }

    static List<String> ended(Process p, Path log) throws Exception {
        boolean ended = p.waitFor(60, TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly();
        }
        List<String> lines = Files.readAllLines(log);
        assertTrue(ended, "a failed start still running after 60 s:\n" + String.join("\n", lines));
        return lines;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
