package org.cdlib.mrt.ingestqueue.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.cdlib.mrt.ingestqueue.config.StartupException;
import org.cdlib.mrt.ingestqueue.module.QueueModule;
import org.cdlib.mrt.ingestqueue.profile.ProfileDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A route file or a profile that cannot work stops the start before anything is created (no ZooKeeper
 * data, no working directories, no storage, no inventory, no secrets), with one line per problem naming
 * the file, the line, the route and the bad name with what is accepted; never an ERROR with a stack trace.
 */
class RouteCheckTest {
    @TempDir
    Path dir;
    Path routes;
    Path profiles;
    /** Everything a start creates goes under here: it must stay absent. */
    Path data;
    final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    final ListAppender<ILoggingEvent> logs = new ListAppender<>();

    @BeforeEach
    void copyRoutesAndProfiles() throws Exception {
        routes = Files.createDirectories(dir.resolve("routes"));
        try (var files = Files.list(Path.of("routes"))) {
            for (Path f : files.toList()) {
                Files.copy(f, routes.resolve(f.getFileName()));
            }
        }
        profiles = Files.createDirectories(dir.resolve("profiles"));
        Files.copy(Path.of("profiles/demo_content"), profiles.resolve("demo_content"));
        data = dir.resolve("data");
        logs.start();
        root.addAppender(logs);
    }

    @AfterEach
    void detach() {
        root.detachAppender(logs);
    }

    Map<String, String> config() {
        Map<String, String> c = new HashMap<>();
        c.put("camel.main.routes-include-pattern", "file:" + routes + "/*.yaml");
        c.put("ingest.profiles", profiles.toString());
        c.put("zookeeper.embedded.dir", data.resolve("zookeeper").toString());
        c.put("zookeeper.embedded.port", "0");
        c.put("ingest.home", data.resolve("queue").toString());
        c.put("ingest.storage.local.root", data.resolve("storage").toString());
        c.put("ingest.inventory.local.url", "jdbc:h2:file:" + data.resolve("inventory").toAbsolutePath() + "/inv");
        c.put("ingest.mail.outbox", data.resolve("outbox").toString());
        c.put("ingest.http.port", "0");
        return c;
    }

    /** Replaces {@code from} (which must be there once) with {@code to} in the copy of {@code file}. */
    void edit(Path file, String from, String to) throws Exception {
        String text = Files.readString(file);
        assertEquals(text.indexOf(from), text.lastIndexOf(from), file + " has " + from + " once");
        assertTrue(text.contains(from), file + " no longer has " + from);
        Files.writeString(file, text.replace(from, to));
    }

    /** The 1-based line of {@code file} that holds {@code text}. */
    static int lineOf(Path file, String text) throws Exception {
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(text)) {
                return i + 1;
            }
        }
        throw new AssertionError(file + " has no " + text);
    }

    /** The message the refused start gives; nothing was created, nothing logged at ERROR with a trace. */
    String refused() {
        long t0 = System.nanoTime();
        Exception e = assertThrows(Exception.class, () -> new IngestService(config()).start().close());
        long ms = (System.nanoTime() - t0) / 1_000_000;
        String said = reason(e);
        System.out.println("refused start (" + ms + " ms): " + said); // what an operator reads; the figure, not a test
        assertFalse(Files.exists(data), "the refused start created " + data);
        List<ILoggingEvent> traces = logs.list.stream()
                .filter(l -> l.getLevel() == Level.ERROR && l.getThrowableProxy() != null).toList();
        assertEquals(List.of(), traces.stream().map(ILoggingEvent::getFormattedMessage).toList(),
                "no ERROR with a stack trace");
        return said;
    }

    /** What the operator reads (Main prints the message of the service's StartupException). */
    static String reason(Throwable e) {
        Throwable t = e;
        while (!(t instanceof StartupException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage();
    }

    @Test
    void aMisspeltMethodIsNamedWithTheMethodsTheBeanHas() throws Exception {
        Path storing = routes.resolve("storing.yaml");
        edit(storing, "- bean: {ref: storeStep, method: writeManifest}",
                "- bean: {ref: storeStep, method: writeManifestt}");
        String said = refused();
        assertTrue(said.contains(storing + " line " + lineOf(storing, "writeManifestt") + " (route job-storing): bean"
                + " storeStep has no method writeManifestt; its methods: "), said);
        assertTrue(said.contains(", writeManifest"), said);
        // the README's example is this very line
        List<String> readme = Files.readAllLines(Path.of("README.md"));
        String example = readme.get(readme.indexOf("<!-- route check example -->") + 2);
        assertEquals(example.replace("routes/storing.yaml", storing.toString()), said);
    }

    @Test
    void anUnknownBeanIsNamedWithTheNearestAndAllTheBeans() throws Exception {
        Path storing = routes.resolve("storing.yaml");
        edit(storing, "- bean: {ref: storeStep, method: keepVersion}", "- bean: {ref: storStep, method: keepVersion}");
        String said = refused();
        assertTrue(said.contains(storing + " line " + lineOf(storing, "storStep") + " (route job-storing): no bean"
                + " storStep; did you mean storeStep?; the beans: "), said);
        assertTrue(said.contains("batchPendingStep"), said);
    }

    @Test
    void anUnknownNodeIdIsNamedWithTheStepMeant() throws Exception {
        Path cleanup = routes.resolve("cleanup.yaml");
        edit(cleanup, "        - process:\n            ref: cleanupStep\n",
                "        - lgo: \"cleaning up\"\n        - process:\n            ref: cleanupStep\n");
        String said = refused();
        assertTrue(said.contains(cleanup + " line " + lineOf(cleanup, "lgo") + " (route cleanup): unknown node id lgo;"
                + " did you mean log?"), said);
    }

    @Test
    void aYamlSyntaxErrorIsNamedWithItsLine() throws Exception {
        Path storing = routes.resolve("storing.yaml");
        edit(storing, "    id: storage-add\n", "    id: storage-add\n   steps: [unclosed\n");
        String said = refused();
        assertTrue(said.contains(storing + " line " + lineOf(storing, "[unclosed")
                + " (route storage-add): not valid YAML"), said);
    }

    @Test
    void anUnknownEndpointSchemeIsNamedWithTheSchemesThereAre() throws Exception {
        Path storing = routes.resolve("storing.yaml");
        edit(storing, "- to: direct:storage-version", "- to: drect:storage-version");
        String said = refused();
        assertTrue(said.contains(storing + " line " + lineOf(storing, "drect:") + " (route job-storing): unknown"
                + " endpoint scheme drect in drect:storage-version; did you mean direct?; the schemes: "), said);
        assertTrue(said.contains("zkqueue") && said.contains("http"), said);
    }

    @Test
    void anUnclosedPlaceholderIsNamed() throws Exception {
        Path storing = routes.resolve("storing.yaml");
        edit(storing, "\"{{ingest.concurrency.storing:2}}\"", "\"{{ingest.concurrency.storing:2}\"");
        String said = refused();
        assertTrue(said.contains(storing + " line " + lineOf(storing, "storing:2}\"") + " (route job-storing):"
                + " unclosed placeholder in \"{{ingest.concurrency.storing:2}\""), said);
    }

    @Test
    void aProcessorRefThatIsNoProcessorIsNamed() throws Exception {
        Path estimating = routes.resolve("estimating.yaml");
        edit(estimating, "ref: estimateStep", "ref: storeStep");
        String said = refused();
        assertTrue(said.contains(estimating + " line " + lineOf(estimating, "ref: storeStep") + " (route"
                + " job-estimating): process names bean storeStep, a StoreStep, which is no Processor"), said);
    }

    @Test
    void aBadProfileIsNamedWithItsFileAndLine() throws Exception {
        Files.writeString(profiles.resolve("bad_profile"), "ProfileID: bad_profile\nPriority 5\n");
        String said = refused();
        assertTrue(said.contains(profiles.resolve("bad_profile") + " line 2: expected 'Key: value', got 'Priority 5'"
                + " (ingest.profiles)"), said);
    }

    @Test
    void everyProblemOfEveryFileIsOneLine() throws Exception {
        Path storing = routes.resolve("storing.yaml");
        edit(storing, "method: writeManifest}", "method: writeManifestt}");
        edit(storing, "ref: storeStep, method: keepVersion}", "ref: storStep, method: keepVersion}");
        edit(routes.resolve("recording.yaml"), "- to: direct:inventory-record", "- to: drect:inventory-record");
        String said = refused();
        assertTrue(said.startsWith("3 problems in the route files and profiles:\n"), said);
        assertEquals(4, said.lines().count(), said);
    }

    @Test
    void theShippedRoutesAndProfilesPass() throws Exception {
        KnownBeans beans = KnownBeans.of(ServiceLoader.load(QueueModule.class), StartChecks.SERVICE_BEANS, Map.of());
        assertEquals(List.of(), RouteCheck.problems("file:routes/*.yaml", null, beans));
        assertEquals(List.of(), RouteCheck.problems("classpath:routes/*.yaml", null, beans), "the jar's copies");
        assertEquals(List.of(), ProfileDirectory.problems(Path.of("profiles")));
    }
}
