package org.cdlib.mrt.ingestqueue.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.camel.ZkQueueEndpoint;
import org.cdlib.mrt.ingestqueue.config.Configuration;
import org.cdlib.mrt.ingestqueue.config.StartupException;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * The service's overrides over the environment over -D over the configuration directory's
 * application.properties over the jar's copy: each adjacent pair on a started service, with keys
 * the routes and the start itself read ({@code ingest.concurrency.*}, {@code zookeeper.connect}).
 */
class ConfigurationPrecedenceTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();

    final Path dir = ZK.dir();

    ListAppender<ILoggingEvent> log;

    @BeforeEach
    void captureLog() {
        log = new ListAppender<>();
        log.start();
        ((Logger) LoggerFactory.getLogger(Configuration.class)).addAppender(log);
    }

    @AfterEach
    void releaseLog() {
        ((Logger) LoggerFactory.getLogger(Configuration.class)).detachAppender(log);
    }

    Map<String, String> overrides() {
        Map<String, String> c = new HashMap<>();
        c.put("zookeeper.embedded.dir", dir.resolve("embedded-zookeeper").toString());
        c.put("zookeeper.embedded.port", "0");
        c.put("ingest.http.port", "0");
        c.put("ingest.home", dir.resolve("queue").toString());
        c.put("ingest.profiles", dir.resolve("profiles").toString());
        c.put("ingest.storage.local.root", dir.resolve("storage").toString());
        c.put("ingest.inventory.local.url", "jdbc:h2:mem:cp" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        c.put("ingest.mail.outbox", dir.resolve("outbox").toString());
        c.put("camel.main.routes-include-pattern", "file:routes/*.yaml");
        return c;
    }

    Path configDir(String... lines) throws Exception {
        Path conf = Files.createDirectories(dir.resolve("conf"));
        Files.write(conf.resolve("application.properties"), List.of(lines));
        return conf;
    }

    static int concurrency(IngestService service, String route) {
        return ((ZkQueueEndpoint) service.camel().getRoute(route).getEndpoint()).getConcurrency();
    }

    String logged(String key) {
        return log.list.stream()
                .map(ILoggingEvent::getFormattedMessage)
                .filter(m -> m.startsWith("configuration " + key + " ="))
                .findFirst()
                .orElse("(no line for " + key + ")");
    }

    @Test
    void eachSourceWinsOverTheOneBelowItOnAStartedService() throws Exception {
        int dead = FailFastStartTest.freePort();
        Path conf = configDir(
                "ingest.concurrency.pending = 3", // the jar's copy says 16
                "ingest.concurrency.estimating = 5",
                "camel.main.shutdown-timeout = 30", // camel-main's own options follow the same order
                "zookeeper.connect = 127.0.0.1:" + dead); // the environment's wins: this one is never tried
        Map<String, String> system = Map.of(
                Configuration.CONFIG_DIR, conf.toString(),
                "ingest.concurrency.estimating", "6",
                "ingest.concurrency.provisioning", "7",
                "camel.main.shutdown-timeout", "45",
                "zookeeper.connect", "127.0.0.1:" + dead);
        Map<String, String> env = Map.of(
                "INGEST_CONCURRENCY_PROVISIONING", "9",
                "INGEST_CONCURRENCY_DOWNLOADING", "11",
                "ZOOKEEPER_CONNECT", ZK.connectString(),
                "INGEST_API_USERS", "ops:plain-s3cret:admin",
                "PATH", "/not/configuration");
        Map<String, String> overrides = overrides();
        overrides.put("ingest.concurrency.downloading", "12");

        try (IngestService service = new IngestService(Configuration.load(overrides, env, system), Map.of()).start()) {
            assertEquals(16, concurrency(service, "job-storing"), "the jar's copy over the routes' own default (2)");
            assertEquals(3, concurrency(service, "job-pending"), "the file over the jar's copy");
            assertEquals(6, concurrency(service, "job-estimating"), "-D over the file");
            assertEquals(9, concurrency(service, "job-provisioning"), "the environment over -D");
            assertEquals(12, concurrency(service, "job-downloading"), "the service's overrides over the environment");
            assertEquals(
                    45,
                    service.camel().getShutdownStrategy().getTimeout(),
                    "-D over the file for camel-main's options");

            assertNotNull(ZK.client().checkExists().forPath("/batches"), "the queue is on the environment's ZooKeeper");
            assertFalse(Files.exists(dir.resolve("embedded-zookeeper")), "no embedded ZooKeeper was started");

            assertTrue(
                    logged("ingest.concurrency.pending")
                            .endsWith("= 3 (file "
                                    + conf.resolve("application.properties").toAbsolutePath() + ")"),
                    logged("ingest.concurrency.pending"));
            assertEquals("configuration ingest.concurrency.storing = 16 (jar application.properties)",
                    logged("ingest.concurrency.storing"));
            assertEquals(
                    "configuration ingest.concurrency.estimating = 6 (-D)", logged("ingest.concurrency.estimating"));
            assertEquals(
                    "configuration ingest.concurrency.provisioning = 9 (environment INGEST_CONCURRENCY_PROVISIONING)",
                    logged("ingest.concurrency.provisioning"));
            assertEquals("configuration zookeeper.connect = " + ZK.connectString()
                    + " (environment ZOOKEEPER_CONNECT)", logged("zookeeper.connect"));
            assertEquals("configuration ingest.concurrency.downloading = 12 (the service's overrides)",
                    logged("ingest.concurrency.downloading"));
            assertEquals("configuration INGEST_API_USERS = (set) (environment)", logged("INGEST_API_USERS"));
            assertTrue(log.list.stream().noneMatch(e -> e.getFormattedMessage().contains("plain-s3cret")
                    || e.getFormattedMessage().contains("/not/configuration")), "no secret, no other variable logged");
        }
    }

    /** The defect as measured: the working directory's zookeeper.connect was ignored for an embedded server. */
    @Test
    void theConfigurationFilesZooKeeperIsUsedNotAnEmbeddedOne() throws Exception {
        Path conf = configDir("zookeeper.connect = " + ZK.connectString(), "ingest.concurrency.pending = 4");
        Map<String, String> overrides = overrides();
        overrides.put(Configuration.CONFIG_DIR, conf.toString());
        try (IngestService service =
                new IngestService(Configuration.load(overrides, Map.of(), Map.of()), Map.of()).start()) {
            assertNotNull(ZK.client().checkExists().forPath("/batches"), "the queue is on the file's ZooKeeper");
            assertFalse(Files.exists(dir.resolve("embedded-zookeeper")), "no embedded ZooKeeper was started");
            assertEquals(4, concurrency(service, "job-pending"));
        }
    }

    @Test
    void secretsAndPasswordsInUrlsAreNotShown() {
        Configuration c = Configuration.load(
                Map.of(
                        "ingest.inventory.local.password", "pw1",
                        "ingest.files.signing-key", "k".repeat(20),
                        "ingest.inventory.local.url", "jdbc:postgresql://db:5432/ingest?user=u&password=pw2",
                        "ingest.inventory.url", "https://u:pw3@inventory.example.org/inv"),
                Map.of("INGEST_MAIL_SMTP_PASSWORD", "pw4"),
                Map.of());
        String all = c.settings().values().toString();
        for (String secret : List.of("pw1", "kkkk", "pw2", "pw3", "pw4")) {
            assertFalse(all.contains(secret), secret + " in " + all);
        }
        assertTrue(all.contains("https://u:(set)@inventory.example.org/inv"), all);
        assertTrue(all.contains("INGEST_MAIL_SMTP_PASSWORD = (set) (environment)"), all);
    }

    @Test
    void aNamedConfigurationDirectoryWithoutTheFileStopsTheStart() {
        Exception e = Assertions.assertThrows(
                StartupException.class,
                () -> Configuration.load(
                        Map.of(),
                        Map.of("INGEST_CONFIG_DIR", dir.resolve("nowhere").toString()),
                        Map.of()));
        assertTrue(e.getMessage().contains("no application.properties in " + dir.resolve("nowhere"))
                && e.getMessage().contains("environment INGEST_CONFIG_DIR"), e.getMessage());
    }
}
