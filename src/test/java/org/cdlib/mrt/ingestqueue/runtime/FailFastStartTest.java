package org.cdlib.mrt.ingestqueue.runtime;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A second start on a busy port or data directory fails in a moment with one clear line, not after a wait. */
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
            Exception http = assertThrows(Exception.class, () -> new IngestService(config(dir.resolve("b"), freePort(), web)).start());
            assertTrue(reason(http).contains("the HTTP port 0.0.0.0:" + web + " is in use") && reason(http).contains("ingest.http.port"),
                    reason(http));
            Exception zkPort = assertThrows(Exception.class, () -> new IngestService(config(dir.resolve("c"), zk, freePort())).start());
            assertTrue(reason(zkPort).contains(":" + zk + " is in use") && reason(zkPort).contains("zookeeper.embedded.port"),
                    reason(zkPort));
            Exception data = assertThrows(Exception.class, () -> new IngestService(config(dir.resolve("a"), freePort(), freePort())).start());
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
            assertTrue(reason(missing).contains("the chroot /merritt-typo named in zookeeper.connect does not exist"), reason(missing));
            assertFalse(first.store().calls().exists("/merritt-typo"), "the refused start created nothing");

            first.store().calls().createPersistent("/merritt", new byte[0]);
            c.put("zookeeper.connect", "127.0.0.1:" + zk + "/merritt");
            try (IngestService second = new IngestService(c).start()) {
                assertTrue(first.store().calls().exists("/merritt/batches"), "the queue's nodes made under the chroot");
            }
        }
    }
}
