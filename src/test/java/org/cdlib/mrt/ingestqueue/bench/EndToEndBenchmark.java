package org.cdlib.mrt.ingestqueue.bench;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.curator.test.TestingServer;
import org.cdlib.mrt.ingestqueue.queue.BatchState;
import org.cdlib.mrt.ingestqueue.queue.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.runtime.IngestService;
import org.cdlib.mrt.ingestqueue.runtime.ServiceTestSupport;

/**
 * The service with every route and step real — downloads from a local HTTP server, the local
 * minter, OCFL storage, the H2 inventory, the routes' calls between them — walking one batch of N
 * one-file objects from submission to completed. Run after {@code mvn -B -o test-compile}:
 * {@code java -cp target/test-classes:target/classes:$(cat target/cp.txt) -Djute.maxbuffer=524288
 * org.cdlib.mrt.ingestqueue.bench.EndToEndBenchmark 1000}. Prints figures; asserts nothing.
 */
public final class EndToEndBenchmark {
    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        Path dir = Files.createTempDirectory("ingest-e2e");
        HttpServer files = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        StringBuilder manifest = new StringBuilder("#%checkm_0.7\n"
                + "#%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-single-file-batch-manifest\n"
                + "#%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileLastModified | nfo:fileName\n");
        String base = "http://127.0.0.1:%d";
        files.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(8));
        files.createContext("/", ex -> {
            byte[] body = ex.getRequestURI().getPath().equals("/batch.checkm") ? manifest.toString().getBytes(StandardCharsets.UTF_8)
                    : ("object " + ex.getRequestURI().getPath() + "\n").getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, "HEAD".equals(ex.getRequestMethod()) ? -1 : body.length);
            if (!"HEAD".equals(ex.getRequestMethod())) {
                ex.getResponseBody().write(body);
            }
            ex.close();
        });
        files.start();
        base = base.formatted(files.getAddress().getPort());
        for (int i = 0; i < n; i++) {
            manifest.append(base).append("/f").append(i).append(".txt | | | | | f").append(i).append(".txt\n");
        }
        manifest.append("#%eof\n");
        try (TestingServer zk = new TestingServer(true)) {
            Map<String, String> config = new HashMap<>(ServiceTestSupport.config(zk.getConnectString(), dir));
            config.put("camel.main.routes-include-pattern", "file:routes/*.yaml"); // every route real
            config.remove("camel.main.routes-exclude-pattern");
            config.put("ingest.storage.local.root", dir.resolve("storage").toString());
            config.put("ingest.inventory.local.url", "jdbc:h2:file:" + dir.resolve("inventory").toAbsolutePath() + "/inv");
            config.put("ingest.mail.outbox", dir.resolve("outbox").toString());
            try (IngestService service = new IngestService(config).start()) {
                QueueStore store = service.store();
                long t0 = System.nanoTime();
                String bid = store.createBatch(new BatchSubmission("demo_content", "bench", base + "/batch.checkm", "t", "w",
                        null, null, "single-file-batch-manifest", "add", null, null, null, null, null, null, "json", null,
                        java.time.Instant.now().toString(), Map.of()));
                long deadline = System.currentTimeMillis() + 600_000;
                BatchState s;
                while ((s = store.loadBatch(bid).state()) != BatchState.COMPLETED && s != BatchState.FAILED
                        && System.currentTimeMillis() < deadline) {
                    Thread.sleep(50); // a benchmark's poll of the outcome, not synchronisation
                }
                double secs = (System.nanoTime() - t0) / 1e9;
                System.out.printf("end to end: %d one-file objects, batch %s in %.1f s = %.1f jobs/s (%d cores)%n", n, s, secs,
                        n / secs, Runtime.getRuntime().availableProcessors());
            }
        } finally {
            files.stop(0);
        }
        System.exit(0);
    }
}
