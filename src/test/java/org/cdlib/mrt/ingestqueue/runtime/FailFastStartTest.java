package org.cdlib.mrt.ingestqueue.runtime;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.config.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A second start on a busy port or data directory, or a set outside service that cannot be used, fails
 * in a moment with one clear line, not after a wait and never by falling back to an embedded or local one.
 */
class FailFastStartTest {
    @TempDir
    Path dir;

    static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    Map<String, String> config(Path data, int zkPort, int httpPort) {
        Map<String, String> c = new HashMap<>();
        c.put("zookeeper.embedded.dir", data.resolve("zookeeper").toString());
        c.put("zookeeper.embedded.port", String.valueOf(zkPort));
        c.put("ingest.http.port", String.valueOf(httpPort));
        c.put("ingest.home", data.resolve("queue").toString());
        c.put("ingest.profiles", dir.resolve("profiles").toString());
        c.put("ingest.storage.local.root", data.resolve("storage").toString());
        c.put("ingest.inventory.local.url", "jdbc:h2:mem:ff" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        c.put("camel.main.routes-include-pattern", "file:routes/*.yaml");
        return c;
    }

    static String reason(Exception e) {
        Throwable t = e;
        StringBuilder b = new StringBuilder();
        while (t != null) {
            b.append(t.getMessage()).append(" | ");
            t = t.getCause();
        }
        return b.toString();
    }

    @Test
    void aBusyHttpPortOrZooKeeperPortOrDataDirectoryStopsTheStartAtOnceNamingIt() throws Exception {
        int zk = freePort();
        int web = freePort();
        try (IngestService first = new IngestService(config(dir.resolve("a"), zk, web)).start()) {
            long t0 = System.nanoTime();
            Exception http = assertThrows(
                    Exception.class, () -> new IngestService(config(dir.resolve("b"), freePort(), web)).start());
            assertTrue(
                    reason(http).contains("the HTTP port 0.0.0.0:" + web + " is in use")
                            && reason(http).contains("ingest.http.port"),
                    reason(http));
            Exception zkPort = assertThrows(
                    Exception.class, () -> new IngestService(config(dir.resolve("c"), zk, freePort())).start());
            assertTrue(
                    reason(zkPort).contains(":" + zk + " is in use")
                            && reason(zkPort).contains("zookeeper.embedded.port"),
                    reason(zkPort));
            Exception data = assertThrows(
                    Exception.class, () -> new IngestService(config(dir.resolve("a"), freePort(), freePort())).start());
            assertTrue(reason(data).contains("is in use by another ingest-queue"), reason(data));
            long seconds = (System.nanoTime() - t0) / 1_000_000_000L;
            assertTrue(seconds < 20, "three refused starts took " + seconds + " s");
        }
    }

    @Test
    void aChrootThatDoesNotExistStopsTheStartNamingIt() throws Exception {
        int zk = freePort();
        try (IngestService first = new IngestService(config(dir.resolve("a"), zk, freePort())).start()) {
            Map<String, String> c = config(dir.resolve("b"), 0, freePort());
            c.remove("zookeeper.embedded.dir");
            c.remove("zookeeper.embedded.port");
            c.put("zookeeper.connect", "127.0.0.1:" + zk + "/merritt-typo");
            Exception missing = assertThrows(Exception.class, () -> new IngestService(c).start());
            assertTrue(
                    reason(missing).contains("the chroot /merritt-typo named in zookeeper.connect does not exist"),
                    reason(missing));
            assertFalse(first.store().calls().exists("/merritt-typo"), "the refused start created nothing");

            first.store().calls().createPersistent("/merritt", new byte[0]);
            c.put("zookeeper.connect", "127.0.0.1:" + zk + "/merritt");
            try (IngestService second = new IngestService(c).start()) {
                assertTrue(first.store().calls().exists("/merritt/batches"), "the queue's nodes made under the chroot");
            }
        }
    }

    /** One start that must be refused: its configuration and what the refusal must say. */
    record Refused(String what, Map<String, String> overrides, Map<String, String> env, Map<String, String> system,
            List<String> says) {
    }

    @Test
    void aSetOutsideServiceThatCannotBeUsedStopsTheStartNamingTheKeyNeverAStandIn() throws Exception {
        int closed = freePort(); // nothing listens here once the probe socket is closed
        Path conf = Files.createDirectories(dir.resolve("conf"));
        Files.writeString(conf.resolve("application.properties"), "ingest.mail.smtp.host =\n");
        String file = conf.resolve("application.properties").toAbsolutePath().toString();
        List<Refused> cases = List.of(
                new Refused(
                        "a blank ZooKeeper in the environment",
                        Map.of(),
                        Map.of("ZOOKEEPER_CONNECT", " "),
                        Map.of(),
                        List.of("zookeeper.connect (environment ZOOKEEPER_CONNECT) is set but empty")),
                new Refused(
                        "a malformed port",
                        Map.of("zookeeper.connect", "127.0.0.1:21x81"),
                        Map.of(),
                        Map.of(),
                        List.of("zookeeper.connect = '127.0.0.1:21x81' (the service's overrides): '127.0.0.1:21x81'"
                                + " has '21x81' where a port 1 to 65535 belongs")),
                new Refused(
                        "a host that does not resolve",
                        Map.of(),
                        Map.of(),
                        Map.of("zookeeper.connect", "zk1.no-such-host.invalid:2181"),
                        List.of("zookeeper.connect (-D) names the host 'zk1.no-such-host.invalid', which does not"
                                + " resolve")),
                new Refused(
                        "nothing listening",
                        Map.of(),
                        Map.of("ZOOKEEPER_CONNECT", "127.0.0.1:" + closed),
                        Map.of(),
                        List.of(
                                "zookeeper.connect (environment ZOOKEEPER_CONNECT) names no server that answers",
                                "nothing listening at 127.0.0.1:" + closed)),
                new Refused(
                        "an inventory URL of an unknown scheme",
                        Map.of("ingest.inventory", "http", "ingest.inventory.url", "ftp://127.0.0.1/inv"),
                        Map.of(),
                        Map.of(),
                        List.of("ingest.inventory.url = 'ftp://127.0.0.1/inv' (the service's overrides): not an http"
                                + " or https URL")),
                new Refused(
                        "an inventory nobody answers for",
                        Map.of("ingest.inventory", "http"),
                        Map.of("INGEST_INVENTORY_URL", "http://127.0.0.1:" + closed + "/inv"),
                        Map.of(),
                        List.of(
                                "ingest.inventory.url (environment INGEST_INVENTORY_URL) names a service that does not"
                                        + " answer",
                                "127.0.0.1:" + closed)),
                new Refused(
                        "an inventory URL the local inventory would silently stand in for",
                        Map.of(),
                        Map.of("INGEST_INVENTORY_URL", "http://127.0.0.1:" + closed + "/inv"),
                        Map.of(),
                        List.of("ingest.inventory.url (environment INGEST_INVENTORY_URL) is set but ingest.inventory"
                                + " is local")),
                new Refused(
                        "a database server nobody answers for",
                        Map.of("ingest.inventory.local.url", "jdbc:postgresql://127.0.0.1:" + closed + "/ingest"),
                        Map.of(),
                        Map.of(),
                        List.of("ingest.inventory.local.url (the service's overrides) names no database server that"
                                + " answers")),
                new Refused(
                        "a history database that is not a JDBC URL the service speaks",
                        Map.of("ingest.history.url", "mysql://db/history"),
                        Map.of(),
                        Map.of(),
                        List.of("ingest.history.url = 'mysql://db/history' (the service's overrides): not an H2 or"
                                + " PostgreSQL JDBC URL")),
                new Refused(
                        "a blank SMTP host in the configuration file",
                        Map.of(Configuration.CONFIG_DIR, conf.toString()),
                        Map.of(),
                        Map.of(),
                        List.of("ingest.mail.smtp.host (file " + file + ") is set but empty")),
                new Refused(
                        "an SMTP server nobody answers for",
                        Map.of("ingest.mail.smtp.host", "127.0.0.1"),
                        Map.of(),
                        Map.of("ingest.mail.smtp.port", String.valueOf(closed)),
                        List.of(
                                "ingest.mail.smtp.host (the service's overrides) names a service that does not answer",
                                "127.0.0.1:" + closed)),
                new Refused(
                        "a blank storage choice",
                        Map.of(),
                        Map.of(),
                        Map.of("ingest.storage", ""),
                        List.of("ingest.storage (-D) is set but empty")),
                new Refused(
                        "an unknown storage",
                        Map.of("ingest.storage", "s3"),
                        Map.of(),
                        Map.of(),
                        List.of("ingest.storage = 's3' (the service's overrides)", "accepted: local or http")));
        long t0 = System.nanoTime();
        for (Refused r : cases) {
            Path data = dir.resolve("refused");
            Map<String, String> c = config(data, freePort(), freePort());
            c.putAll(r.overrides());
            Exception e = assertThrows(Exception.class,
                    () -> new IngestService(Configuration.load(c, r.env(), r.system()), Map.of()).start(), r.what());
            for (String said : r.says()) {
                assertTrue(reason(e).contains(said), r.what() + ": " + reason(e));
            }
            assertFalse(Files.exists(data.resolve("zookeeper")), r.what() + ": no embedded ZooKeeper was started");
            assertFalse(Files.exists(data.resolve("queue")), r.what() + ": nothing was created");
        }
        long seconds = (System.nanoTime() - t0) / 1_000_000_000L;
        assertTrue(seconds < 30, cases.size() + " refused starts took " + seconds + " s");
    }
}
