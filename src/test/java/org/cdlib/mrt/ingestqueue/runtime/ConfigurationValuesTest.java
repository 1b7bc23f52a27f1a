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
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cdlib.mrt.ingestqueue.config.Configuration;
import org.cdlib.mrt.ingestqueue.config.ConfigurationCheck;
import org.cdlib.mrt.ingestqueue.config.ConfigurationKeys;
import org.cdlib.mrt.ingestqueue.config.ValueKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A value of the wrong kind, one kind at a time, set where an operator sets it (the environment, -D, the
 * configuration file, the service's overrides): the start stops before anything is created, in one line that
 * names the key, the value, where it was set and what is accepted, with no stack trace logged at ERROR. A
 * key nobody reads is a warning naming the nearest known key.
 */
class ConfigurationValuesTest {
    @TempDir
    Path dir;

    ListAppender<ILoggingEvent> log;

    @BeforeEach
    void captureLog() {
        log = new ListAppender<>();
        log.start();
        root().addAppender(log);
    }

    @AfterEach
    void releaseLog() {
        root().detachAppender(log);
    }

    static Logger root() {
        return (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    }

    /** Everything the service would create under {@code data}. */
    Map<String, String> overrides(Path data) {
        Map<String, String> c = new HashMap<>();
        c.put("zookeeper.embedded.dir", data.resolve("zookeeper").toString());
        c.put("zookeeper.embedded.port", "0");
        c.put("ingest.http.port", "0");
        c.put("ingest.home", data.resolve("queue").toString());
        c.put("ingest.profiles", data.resolve("profiles").toString());
        c.put("ingest.storage.local.root", data.resolve("storage").toString());
        c.put("ingest.inventory.local.url", "jdbc:h2:file:" + data.resolve("inventory/inventory").toAbsolutePath());
        c.put("ingest.mail.outbox", data.resolve("outbox").toString());
        c.put("camel.main.routes-include-pattern", "file:routes/*.yaml");
        return c;
    }

    /** One value refused: where it is set and what the one line must say. */
    record Refused(String kind, Map<String, String> overrides, Map<String, String> env, Map<String, String> system,
            String file, List<String> says) {
        static Refused overrides(String kind, String key, String value, String... says) {
            return new Refused(kind, Map.of(key, value), Map.of(), Map.of(), null, List.of(says));
        }
    }

    @Test
    void aValueOfTheWrongKindStopsTheStartBeforeAnythingIsCreatedNamingKeyValueOriginAndForm() throws Exception {
        Path conf = Files.createDirectories(dir.resolve("conf"));
        String file = "file " + conf.resolve("application.properties").toAbsolutePath();
        List<Refused> cases = List.of(
                new Refused("duration", Map.of(), Map.of("INGEST_DOWNLOAD_READ_TIMEOUT", "5min"), Map.of(), null,
                        List.of("ingest.download.read-timeout = '5min' (environment INGEST_DOWNLOAD_READ_TIMEOUT)",
                                "accepted: ISO-8601 (PT30S, PT5M, P1D) or whole milliseconds (30000)")),
                new Refused("milliseconds Camel reads from a route's placeholder", Map.of(), Map.of(),
                        Map.of("ingest.fsck.period", "PT10M"), null,
                        List.of("ingest.fsck.period = 'PT10M' (-D): not a whole number",
                                "accepted: whole milliseconds, 0 or more")),
                new Refused("size", Map.of(), Map.of(), Map.of("ingest.api.max-upload", "10GB"), null,
                        List.of("ingest.api.max-upload = '10GB' (-D): not a whole number",
                                "accepted: a whole number of bytes, 1 or more")),
                new Refused("number", Map.of(), Map.of(), Map.of(), "ingest.concurrency.downloading = lots",
                        List.of("ingest.concurrency.downloading = 'lots' (" + file + "): not a whole number",
                                "accepted: a whole number, 1 to 10000")),
                new Refused("number out of range", Map.of(), Map.of(), Map.of(),
                        "ingest.download.min-free-percent = 100",
                        List.of("ingest.download.min-free-percent = '100' (" + file + "): out of range",
                                "accepted: a whole number, 0 to 99")),
                Refused.overrides("port", "ingest.http.port", "99999",
                        "ingest.http.port = '99999' (the service's overrides): out of range",
                        "accepted: a port, 1 to 65535, or 0 for any free port"),
                Refused.overrides("port that may not be 0", "ingest.mail.smtp.port", "0",
                        "ingest.mail.smtp.port = '0' (the service's overrides): out of range",
                        "accepted: a port, 1 to 65535"),
                Refused.overrides("boolean", "ingest.http.enabled", "yes",
                        "ingest.http.enabled = 'yes' (the service's overrides): not true or false",
                        "accepted: true or false"),
                Refused.overrides("URL", "ingest.files.base-url", "ingest-1:8080/files",
                        "ingest.files.base-url = 'ingest-1:8080/files' (the service's overrides)",
                        "accepted: an http:// or https:// URL with a host"),
                Refused.overrides("one of some words", "ingest.storage", "s3",
                        "ingest.storage = 's3' (the service's overrides)", "accepted: local or http"),
                Refused.overrides("JDBC URL", "ingest.history.url", "mysql://db/history",
                        "ingest.history.url = 'mysql://db/history' (the service's overrides)",
                        "accepted: jdbc:h2:"),
                new Refused("connect string with a word for a port", Map.of(), Map.of(),
                        Map.of("zookeeper.connect", "zk1:notaport"), null,
                        List.of("zookeeper.connect = 'zk1:notaport' (-D): 'zk1:notaport' has 'notaport' where a port"
                                + " 1 to 65535 belongs", "accepted: host:port[,host:port…][/chroot]")),
                new Refused("connect string of colons", Map.of(), Map.of("ZOOKEEPER_CONNECT", ":::"), Map.of(), null,
                        List.of("zookeeper.connect = ':::' (environment ZOOKEEPER_CONNECT)",
                                "accepted: host:port[,host:port…][/chroot]")),
                Refused.overrides("connect string with an empty host", "zookeeper.connect", "zk1:2181,,zk3:2181",
                        "zookeeper.connect = 'zk1:2181,,zk3:2181' (the service's overrides): '' names no host"),
                Refused.overrides("addresses", "ingest.fetch.allow", "10.0.0.0/abc",
                        "ingest.fetch.allow = '10.0.0.0/abc' (the service's overrides)",
                        "accepted: addresses, CIDRs (10.20.0.0/16) or host names"),
                Refused.overrides("host", "ingest.mail.smtp.host", "smtp.example.org:25",
                        "ingest.mail.smtp.host = 'smtp.example.org:25' (the service's overrides)",
                        "accepted: a host name or address, without a port"));
        for (Refused r : cases) {
            Path data = dir.resolve("data");
            Map<String, String> c = overrides(data);
            c.putAll(r.overrides());
            Files.writeString(conf.resolve("application.properties"), r.file() == null ? "" : r.file() + "\n");
            c.put(Configuration.CONFIG_DIR, conf.toString());
            log.list.clear();
            Exception e = assertThrows(Exception.class,
                    () -> new IngestService(Configuration.load(c, r.env(), r.system()), Map.of()).start(), r.kind());
            String reason = reason(e);
            for (String said : r.says()) {
                assertTrue(reason.contains(said), r.kind() + ": " + reason);
            }
            assertFalse(reason.contains("\n"), r.kind() + ": one line: " + reason);
            assertFalse(Files.exists(data), r.kind() + ": nothing created under " + data);
            List<ILoggingEvent> errors = log.list.stream().filter(ev -> ev.getLevel() == Level.ERROR).toList();
            assertEquals(List.of(), errors.stream().map(ILoggingEvent::getFormattedMessage).toList(),
                    r.kind() + ": nothing logged at ERROR");
        }
    }

    @Test
    void everyValueRefusedIsNamedInTheOneLine() {
        Map<String, String> c = overrides(dir.resolve("data"));
        c.put("ingest.http.port", "http");
        c.put("ingest.cleanup.retention", "7 days");
        Exception e = assertThrows(Exception.class, () -> new IngestService(c).start());
        assertTrue(reason(e).contains("2 configuration values refused: "), reason(e));
        assertTrue(reason(e).contains("ingest.http.port = 'http'") && reason(e).contains(
                "ingest.cleanup.retention = '7 days'"), reason(e));
        assertFalse(Files.exists(dir.resolve("data")));
    }

    @Test
    void theFormsTheReadmeNamesAreAccepted() {
        Map<String, List<String>> accepted = Map.of(
                "zookeeper.connect", List.of("zk1:2181,zk2:2181,zk3:2181", "zk1:2181/merritt", "zk1", "[::1]:2181",
                        "10.0.0.1:2181, 10.0.0.2:2181/merritt/ingest"),
                "ingest.download.read-timeout", List.of("PT5M", "pt30s", "P1D", "300000", "0"),
                "ingest.fsck.period", List.of("600000", "0"),
                "ingest.api.max-upload", List.of("10737418240"),
                "ingest.http.port", List.of("0", "8080", "65535"),
                "ingest.mail.smtp.port", List.of("1", "587"),
                "ingest.http.enabled", List.of("true", "false", "FALSE"),
                "ingest.files.base-url", List.of("https://ingest.example.org/files", "http://ingest-1:8080/files"),
                "ingest.mail.smtp.host", List.of("smtp.example.org", "10.0.0.5", "::1"),
                "ingest.fetch.allow", List.of("10.20.0.0/16, 192.168.1.7, files.example.org", "*"));
        accepted.forEach((key, values) -> values.forEach(
                v -> ConfigurationKeys.find(key).orElseThrow().kind().read(key, v)));
        assertEquals(Duration.ofSeconds(30), ValueKind.duration().read("k", "pt30s"));
    }

    @Test
    void aSecretIsNotShownWhenItsValueIsRefused() {
        assertEquals("ingest.ezid.password = '(set)': not true or false; accepted: true or false",
                assertThrows(IllegalArgumentException.class,
                        () -> ValueKind.bool().read("ingest.ezid.password", "hunter2")).getMessage());
    }

    @Test
    void aKeyNobodyReadsIsAWarningNamingTheNearestKnownKeyAndTheStartGoesOn() throws Exception {
        Map<String, String> c = overrides(dir.resolve("data"));
        Configuration config = Configuration.load(c, Map.of("INGEST_DOWNLOAD_READTIMEOUT", "PT1M"),
                Map.of("ingest.http.portt", "8081"));
        try (IngestService service = new IngestService(config, Map.of()).start()) {
            assertTrue(service.store() != null);
        }
        List<String> warned = log.list.stream()
                .filter(ev -> ev.getLoggerName().equals(ConfigurationCheck.class.getName()))
                .map(ev -> ev.getLevel() + " " + ev.getFormattedMessage())
                .sorted()
                .toList();
        assertEquals(List.of("WARN configuration INGEST_DOWNLOAD_READTIMEOUT (environment) is no key this service"
                        + " reads, ignored; the nearest known key is INGEST_DOWNLOAD_READ_TIMEOUT"
                        + " (ingest.download.read-timeout)",
                "WARN configuration ingest.http.portt (-D) is no key this service reads, ignored; the nearest"
                        + " known key is ingest.http.port"), warned);
    }

    @Test
    void theShippedConfigurationAndTheImagesEnvironmentWarnOfNothing() {
        Map<String, String> env = Map.of("INGEST_HTTP_PORT", "8080", "ZOOKEEPER_EMBEDDED_DIR", "/data/zookeeper",
                "INGEST_URL", "http://localhost:8080", "INGEST_USER", "ops:secret", "CAMEL_MAIN_NAME", "x");
        ConfigurationCheck.check(Configuration.load(Map.of(), env, Map.of("java.version", "17")));
        assertEquals(List.of(), log.list.stream().map(ILoggingEvent::getFormattedMessage).toList());
    }

    @Test
    void aKeyAnOperatorsOwnRouteReadsIsNoUnknownKey() {
        Configuration config = Configuration.load(Map.of(), Map.of("INGEST_MONITOR_URL", "http://m.example.org"),
                Map.of("ingest.monitor.retries", "3", "ingest.monitr.timeout", "5"));
        ConfigurationCheck.warnUnknown(config, Set.of("ingest.monitor.url", "ingest.monitor.retries"));
        List<String> warned = log.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
        assertEquals(1, warned.size(), warned.toString());
        assertTrue(warned.get(0).startsWith("configuration ingest.monitr.timeout (-D) is no key"), warned.toString());
    }

    static String reason(Exception e) {
        return FailFastStartTest.reason(e);
    }
}
