package org.cdlib.mrt.ingestqueue.routes;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.exactly;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.moreThanOrExactly;
import static com.github.tomakehurst.wiremock.client.WireMock.ok;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.runtime.IngestService;
import org.cdlib.mrt.ingestqueue.runtime.ServiceTestSupport;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The route snippets of README.md, read from the README: each YAML block is either a quote of a
 * route file ({@code <!-- route quote: storing.yaml -->}, which must be there as written) or an
 * operator's change ({@code <!-- route example N: file, after|before|replace [first]: "line" -->}). The
 * examples of change N are pasted, in the README's order and at the named line's indentation, into
 * a copy of routes/, and the service runs a batch on it with every step real (local OCFL storage,
 * H2 inventory). An example that calls {@code http://….example.org} calls WireMock instead (the
 * operator's own address); a monitor must hear of every job.
 */
class RouteExamplesTest {
    private static final Pattern EXAMPLE =
            Pattern.compile("route example (\\d+): ([\\w.-]+\\.yaml), (after|before|replace)( first)?: \"(.*)\"");
    private static final Pattern QUOTE = Pattern.compile("route quote: ([\\w.-]+\\.yaml)");
    private static final Pattern EXAMPLE_HOST = Pattern.compile("https?://[a-z0-9.-]+\\.example\\.org");

    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().withHttp();
    static final WireMockServer HTTP = ZK.http();
    @RegisterExtension
    final CapturedLogs logs = new CapturedLogs();
    final Path dir = ZK.dir();
    IngestService service;

    /** {@code first}: the anchor line may be there more than once, the first is meant. */
    record Example(int change, String file, String where, boolean first, String anchor, String yaml, int line) {
    }

    @AfterEach
    void stop() {
        if (service != null) {
            service.close();
        }
    }

    static List<Example> examples() throws Exception {
        List<Example> out = new ArrayList<>();
        for (ReadmeBlocks.Block b : ReadmeBlocks.read().of("yaml")) {
            Matcher m = b.note() == null ? null : EXAMPLE.matcher(b.note());
            if (m != null && m.matches()) {
                out.add(new Example(Integer.parseInt(m.group(1)), m.group(2), m.group(3), m.group(4) != null,
                        m.group(5).replace("\\\"", "\""), b.text(),
                        b.line()));
            }
        }
        return out;
    }

    static Stream<Integer> changes() throws Exception {
        return examples().stream().map(Example::change).distinct();
    }

    @Test
    void everyYamlBlockOfTheReadmeIsAQuoteOfTheRoutesOrAnExampleRunHere() throws Exception {
        List<ReadmeBlocks.Block> yaml = ReadmeBlocks.read().of("yaml");
        assertTrue(yaml.size() >= 3, "the README's route snippets were not found: " + yaml);
        for (ReadmeBlocks.Block b : yaml) {
            String note = b.note() == null ? "" : b.note();
            assertTrue(
                    EXAMPLE.matcher(note).matches() || QUOTE.matcher(note).matches(),
                    "README line " + b.line()
                            + ": a YAML block needs a note before it saying what it is (route quote: … or route"
                            + " example N: …), has '"
                            + note + "'");
        }
        assertTrue(
                examples().stream().anyMatch(e -> e.yaml().contains("http://monitor")), "the monitor example is gone");
    }

    @Test
    void theQuotedStepsAreThoseOfTheRouteFiles() throws Exception {
        for (ReadmeBlocks.Block b : ReadmeBlocks.read().of("yaml")) {
            Matcher m = b.note() == null ? null : QUOTE.matcher(b.note());
            if (m == null || !m.matches()) {
                continue;
            }
            String file = String.join("\n", content(Files.readString(Path.of("routes", m.group(1)))));
            String quoted = String.join("\n", content(b.text()));
            assertTrue(file.contains(quoted), "README line " + b.line() + " quotes routes/" + m.group(1)
                    + " but the file no longer has these lines as written:\n" + quoted);
        }
    }

    /**
     * Each change of "Changing the routes", as an operator following the README makes it, runs a batch to completion.
     */
    @ParameterizedTest(name = "change {0}")
    @MethodSource("changes")
    void theExamplesOfAChangeRunThroughABatch(int change) throws Exception {
        Path routes = copyRoutes();
        List<Example> applied = examples().stream().filter(e -> e.change() == change).toList();
        for (Example e : applied) {
            apply(routes.resolve(e.file()), e);
        }
        String pasted = String.join("\n", applied.stream().map(Example::yaml).toList());
        boolean monitor = pasted.contains("monitor");
        boolean retried = pasted.contains("name: repeatable, constant: true");
        // a monitor whose first answer is a 503 when the example has the call retried; 200 otherwise
        HTTP.stubFor(post(urlPathEqualTo("/stored")).inScenario("monitor").whenScenarioStateIs(Scenario.STARTED)
                .willReturn(retried ? aResponse().withStatus(503) : ok()).willSetStateTo("up"));
        HTTP.stubFor(post(urlPathEqualTo("/stored")).inScenario("monitor").whenScenarioStateIs("up").willReturn(ok()));

        QueueStore store = start(routes);
        String bid = submit(store, 3);
        await().atMost(Duration.ofSeconds(90)).until(() -> {
            BatchState s = store.batches().load(bid).state();
            return s == BatchState.COMPLETED || s == BatchState.FAILED;
        });
        List<Job> jobs = store.jobs().load(store.batches().load(bid).jobIds());
        String outcome = String.join(
                "\n",
                jobs.stream()
                        .map(j -> j.id() + " " + j.state() + " " + j.status().errorMessage())
                        .toList());
        assertEquals(BatchState.COMPLETED, store.batches().load(bid).state(), outcome);
        assertEquals(3, jobs.size());
        assertTrue(jobs.stream().allMatch(j -> j.state() == JobState.COMPLETED), outcome);
        assertEquals(List.of(), logs.events().stream().filter(e -> e.getLevel() == Level.ERROR)
                .map(e -> e.getFormattedMessage()).toList(), "no ERROR while the examples ran");
        if (monitor) {
            for (Job j : jobs) {
                String ark = j.identifiers().primary();
                assertNotNull(ark);
                HTTP.verify(retried ? moreThanOrExactly(1)
                        : exactly(1),
                        postRequestedFor(urlEqualTo("/stored?job=" + j.id()))
                                .withRequestBody(equalTo(ark)));
            }
            // jobs storing at once may both be answered the first 503
            long refused = HTTP.getAllServeEvents().stream().filter(s -> s.getResponse().getStatus() == 503).count();
            assertEquals(retried, refused > 0);
            assertEquals(jobs.size() + refused, HTTP.findAll(postRequestedFor(urlPathEqualTo("/stored"))).size(),
                    "one call a job" + (retried ? ", and each call answered 503 sent again" : ""));
            assertTrue(
                    logs.messagesOf("stored").stream().anyMatch(l -> l.startsWith("stored ark:/")),
                    logs.messagesOf("stored").toString());
        }
    }

    /**
     * Pastes the example where its note says, at the indentation of the line named there (which must be there once).
     */
    static void apply(Path file, Example e) throws Exception {
        List<String> lines = new ArrayList<>(Files.readAllLines(file));
        int at = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (ReadmeBlocks.withoutComment(lines.get(i)).equals(e.anchor()) && (at < 0 || !e.first())) {
                assertEquals(
                        -1,
                        at,
                        file.getFileName() + " has '" + e.anchor() + "' more than once: the README must say which");
                at = i;
            }
        }
        assertTrue(
                at >= 0, "README line " + e.line() + ": " + file.getFileName() + " has no line '" + e.anchor() + "'");
        String indent = lines.get(at).substring(0, lines.get(at).length() - lines.get(at).stripLeading().length());
        List<String> pasted = e.yaml().lines().map(l -> l.isBlank() ? l : indent + l).toList();
        switch (e.where()) {
            case "after" -> lines.addAll(at + 1, pasted);
            case "before" -> lines.addAll(at, pasted);
            default -> {
                lines.remove(at);
                lines.addAll(at, pasted);
            }
        }
        String text = String.join("\n", lines) + "\n";
        Matcher host = EXAMPLE_HOST.matcher(text);
        Files.writeString(file, host.replaceAll(HTTP.baseUrl()));
    }

    /** A route text's lines that say something: no comments, no blank lines, no indentation. */
    static List<String> content(String yaml) {
        return yaml.lines().map(ReadmeBlocks::withoutComment).filter(l -> !l.isEmpty()).toList();
    }

    Path copyRoutes() throws Exception {
        Path routes = Files.createDirectories(dir.resolve("routes"));
        try (var files = Files.list(Path.of("routes"))) {
            for (Path f : files.toList()) {
                Files.copy(f, routes.resolve(f.getFileName()));
            }
        }
        return routes;
    }

    QueueStore start(Path routes) throws Exception {
        Path profiles = Files.createDirectories(dir.resolve("profiles"));
        Files.writeString(
                profiles.resolve("demo_content"),
                "ProfileID: demo_content\nCollection.1: ark:/99999/fk4c\nStorageNode: 1\n");
        Map<String, String> config = new HashMap<>(ServiceTestSupport.config(ZK.connectString(), dir));
        config.put("camel.main.routes-include-pattern", "file:" + routes + "/*.yaml"); // every route and step real
        config.remove("camel.main.routes-exclude-pattern");
        config.put("ingest.services.retry-delay", "100");
        config.put("ingest.storage.local.root", dir.resolve("storage").toString());
        config.put(
                "ingest.inventory.local.url",
                "jdbc:h2:file:" + dir.resolve("inventory").toAbsolutePath() + "/inventory");
        config.put("ingest.mail.outbox", dir.resolve("outbox").toString());
        service = new IngestService(config).start();
        return service.store();
    }

    String submit(QueueStore store, int files) {
        StringBuilder rows = new StringBuilder(BatchPendingRouteTest.HEADER);
        for (int i = 0; i < files; i++) {
            HTTP.stubFor(get(urlEqualTo("/f" + i + ".txt")).willReturn(ok("file " + i)));
            rows.append(HTTP.baseUrl()).append("/f").append(i).append(".txt | | | | | f").append(i).append(".txt\n");
        }
        HTTP.stubFor(get(urlEqualTo("/batch.checkm")).willReturn(ok(rows.append("#%eof\n").toString())));
        return store.batches()
                .create(RouteTestSupport.submission(HTTP.baseUrl() + "/batch.checkm", "single-file-batch-manifest"));
    }
}
