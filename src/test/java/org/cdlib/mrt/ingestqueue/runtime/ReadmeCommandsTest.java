package org.cdlib.mrt.ingestqueue.runtime;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.tomakehurst.wiremock.WireMockServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.cdlib.mrt.ingestqueue.cli.Commands;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.routes.ReadmeBlocks;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The README's command lines against a running service, read from its {@code sh} blocks: each
 * {@code java -jar target/ingest-queue.jar <command>} line (alternatives {@code a | b} and
 * options {@code [--x]} each run) and each {@code curl} line, as written but for the service's
 * address and password. Not run here: the build ({@code mvn}), starting the service and the
 * demo (PackagedJarIT runs the built jar), {@code docker} (no daemon needed for the suite:
 * ContainerFilesTest).
 */
class ReadmeCommandsTest {
    private static final String JAR = "java -jar target/ingest-queue.jar ";

    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().withHttp();
    static final WireMockServer http = ZK.http();
    final Path dir = ZK.dir();
    RunningService service;
    QueueStore store;

    @BeforeEach
    void start() throws Exception {
        service = RunningService.start(
                ZK.connectString(), dir, Map.of("ingest.api.users", "admin:pw-a:admin|submitter, alice:pw-a:admin"));
        store = service.store();
    }

    @AfterEach
    void stop() {
        service.close();
    }

    /**
     * Every line of the README's sh blocks, continuation lines joined, trailing comments dropped; but a block with a
     * note, which another test runs (ReadmeSubmissionsTest).
     */
    static List<String> shellLines() throws Exception {
        List<String> lines = new ArrayList<>();
        for (ReadmeBlocks.Block b : ReadmeBlocks.read().of("sh")) {
            if (b.note() != null) {
                continue;
            }
            String joined = b.text().replaceAll("\\\\\\n\\s*", " ");
            joined.lines()
                    .map(l -> l.replaceFirst("\\s+#\\s.*$", "").strip())
                    .filter(l -> !l.isEmpty())
                    .forEach(lines::add);
        }
        return lines;
    }

    /**
     * A README command line as the argument lists it stands for: {@code a | b} is two, {@code [--x]} without and with.
     */
    static List<String[]> invocations(String line) {
        List<String[]> out = new ArrayList<>();
        String args = line.substring(JAR.length());
        for (String alternative : args.split("\\s+\\|\\s+")) {
            String plain = alternative.replaceAll("\\s*\\[[^]]*]", "").strip();
            out.add(plain.split("\\s+"));
            if (!plain.equals(alternative.strip())) {
                out.add(alternative.replaceAll("[\\[\\]]", "").strip().split("\\s+"));
            }
        }
        return out;
    }

    @Test
    void theReadmesCommandLinesRunAgainstAService() throws Exception {
        // a failed job, requeued while the queue is held: an open, unlocked job for the per-item lines
        http.stubFor(get(urlEqualTo("/a.txt")).willReturn(aResponse().withBody("a")));
        String jid = "jid0000000001";
        service.support().failOnce("downloadStep", jid, "the server said 404");
        String bid = store.batches().create(PipelineTest.submission(http.baseUrl() + "/a.txt", "file"));
        await().atMost(Duration.ofSeconds(30)).until(() -> store.batches().load(bid).state() == BatchState.FAILED);
        assertEquals(200, service.call("POST", "/api/queue/hold").statusCode());
        assertEquals(200, service.call("POST", "/api/jobs/" + jid + "/requeue").statusCode());

        List<String> commands = shellLines().stream().filter(l -> l.startsWith(JAR)).toList();
        assertTrue(commands.size() >= 10, "the README's command lines were not found: " + commands);
        int done = 0;
        List<String> ran = new ArrayList<>();
        for (String line : commands) {
            for (String[] args : invocations(line.replace("jid0000000042", jid).replace("bid0000000042", bid))) {
                if (args[0].equals("demo")) {
                    continue; // DemoTest and PackagedJarIT
                }
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                ByteArrayOutputStream err = new ByteArrayOutputStream();
                int code = Commands.run(
                        args,
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8),
                        Map.of("INGEST_URL", service.base(), "INGEST_USER", "admin:pw-a"));
                String said = String.join(" ", args) + " -> " + code + "\n" + out + err;
                // done, or refused by the service in this queue's state (a job already
                // deleted, the queue already held): never usage, never unreachable
                assertTrue(
                        code == 0
                                || code == 1
                                        && err.toString(StandardCharsets.UTF_8).matches("(?s).*HTTP 40\\d.*"),
                        said);
                done += code == 0 ? 1 : 0;
                ran.add(String.join(" ", args));
            }
        }
        assertTrue(done * 4 >= ran.size() * 3, "most README lines do what they say here: " + done + " of " + ran);
        assertTrue(
                ran.containsAll(List.of(
                        "hold " + jid,
                        "requeue " + bid,
                        "unlock " + jid + " --confirm",
                        "fsck --repair",
                        "release-queue")),
                ran.toString());
    }

    @Test
    void theReadmesCurlLinesSubmitAndRead() throws Exception {
        List<String> curls = shellLines().stream().filter(l -> l.startsWith("curl ")).toList();
        assertEquals(2, curls.size(), curls.toString());
        List<String> answers = new ArrayList<>();
        for (String line : curls) {
            String cmd = line.replace("PASSWORD", "pw-a").replace("http://localhost:8080", service.base());
            Process p = new ProcessBuilder("bash", "-c", "curl -sS " + cmd.substring("curl ".length()))
                    .redirectErrorStream(true)
                    .start();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            String body = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), body);
            answers.add(body);
        }
        assertTrue(answers.get(0).contains("\"bat:batchID\""), answers.get(0));
        assertTrue(answers.get(1).contains("\"jobs\"") && answers.get(1).contains("\"holds\""), answers.get(1));
        String bid = answers.get(0).replaceFirst("(?s).*\"bat:batchID\"\\s*:\\s*\"(bid\\d+)\".*", "$1");
        await().atMost(Duration.ofSeconds(30)).until(() -> store.batches().load(bid).state() == BatchState.COMPLETED);
    }
}
