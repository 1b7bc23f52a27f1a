package org.cdlib.mrt.ingestqueue.runtime;

import ch.qos.logback.classic.Level;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.cdlib.mrt.ingestqueue.fetch.AddressPolicy;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionEvent;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.slf4j.LoggerFactory;

/**
 * {@code java -jar ingest-queue.jar demo [key=value ...]}: ingests the bundled batch manifest of
 * three objects, whose files this process serves on localhost, through a fresh queue in a
 * temporary directory. Prints each transition and the batch report; exit status 0 when the
 * batch completed.
 */
public final class Demo {
    static final List<String> FILES = List.of("batch.checkm", "object-dragon.checkm", "object-letters.checkm",
            "object-notes.checkm", "dragon.txt", "dragon.csv", "letters-1.txt", "notes.html");

    private Demo() {
    }

    public static int run(String[] args) throws Exception {
        return run(Files.createTempDirectory("ingest-demo"), parse(args), Duration.ofMinutes(5), System.out);
    }

    static int run(Path dir, Map<String, String> extra, Duration timeout, PrintStream out) throws Exception {
        HttpServer files = serve();
        String base = "http://127.0.0.1:" + files.getAddress().getPort() + "/demo";
        Map<String, String> config = new LinkedHashMap<>();
        config.put("zookeeper.embedded.dir", dir.resolve("zookeeper").toString());
        config.put("zookeeper.embedded.port", "0");
        config.put("ingest.home", dir.resolve("queue").toString());
        config.put("ingest.profiles", dir.resolve("profiles").toString());
        config.put("ingest.storage.local.root", dir.resolve("storage").toString());
        config.put(
                "ingest.inventory.local.url",
                "jdbc:h2:file:" + dir.resolve("inventory").toAbsolutePath() + "/inventory");
        config.put("ingest.mail.outbox", dir.resolve("outbox").toString());
        config.put("ingest.http.enabled", "false"); // nothing to log in to: the demo talks to the queue directly
        config.put("ingest.fetch.allow", AddressPolicy.LOOPBACK); // the demo serves its files on localhost
        config.putAll(extra);
        // the demo prints each transition itself, once, readably; the service's own transition log would repeat it
        // (and the service's other INFO lines are for operators of a running service: the demo shows warnings only)
        Map<ch.qos.logback.classic.Logger, Level> levels = new HashMap<>();
        for (String name : List.of(org.slf4j.Logger.ROOT_LOGGER_NAME, "org.apache.camel", "org.cdlib")) {
            if (LoggerFactory.getLogger(name) instanceof ch.qos.logback.classic.Logger l) {
                levels.put(l, l.getLevel());
                l.setLevel(Level.WARN);
            }
        }
        out.println("demo: queue, storage, inventory and mail outbox under " + dir.toAbsolutePath());
        CompletableFuture<BatchState> finished = new CompletableFuture<>();
        try (IngestService service = new IngestService(config)) {
            service.start();
            var store = service.store();
            var bid = new AtomicReference<String>();
            store.addListener(e -> {
                if (e.from() != null) { // creations are announced by the submission line
                    out.printf(
                            "  %-5s %s%s: %s -> %s (%s)%n",
                            e.kind(),
                            e.id(),
                            e.kind().equals(TransitionEvent.JOB) ? " of " + e.batchId() : "",
                            e.from(),
                            e.to(),
                            e.reason());
                }
                if (e.kind().equals(TransitionEvent.BATCH)
                        && e.id().equals(bid.get())
                        && (e.to().equals("completed") || e.to().equals("failed"))) {
                    finished.complete(BatchState.fromWire(e.to()));
                }
            });
            bid.set(store.batches().create(new BatchSubmission("demo_content", "demo", base + "/batch.checkm",
                        "Demo objects", "ingest-queue demo", null, null, "batch-manifest", "add", "batch.checkm",
                        null, null, null, null, null, "json", "the bundled demo batch",
                        Instant.now().toString(), null)));
            out.println("demo: submitted batch " + bid.get() + " (" + base + "/batch.checkm)");
            BatchState end;
            try {
                end = finished.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                Batch b = store.batches().load(bid.get());
                out.println("demo: batch " + bid.get() + " did not finish within " + timeout + "; it is " + b.state());
                return 1;
            }
            Batch batch = store.batches().load(bid.get());
            out.println("demo: batch " + bid.get() + " " + end);
            out.println(new String(QueueJson.write(batch.statusReport()), StandardCharsets.UTF_8));
            for (var job : store.jobs().load(batch.jobIds())) {
                out.printf("demo: %s %s -> %s%n", job.id(), job.configuration().payloadUrl().replace(base + "/", ""),
                        job.identifiers().primary());
            }
            out.println("demo: objects in the OCFL store "
                    + dir.resolve("storage").toAbsolutePath() + ", recorded in the H2 " + "inventory "
                    + dir.resolve("inventory").toAbsolutePath() + ", report mail in "
                    + dir.resolve("outbox").toAbsolutePath());
            return end == BatchState.COMPLETED ? 0 : 1;
        } finally {
            files.stop(0);
            levels.forEach(ch.qos.logback.classic.Logger::setLevel);
        }
    }

    /** Serves the bundled demo files on localhost; manifests name this server in their URLs. */
    public static HttpServer serve() throws IOException {
        // the JDK server sends headers and body as two writes; with Nagle on, each response waits ~40 ms
        // for the client's delayed ACK (read when the first server starts)
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/demo/", exchange -> {
            String name = exchange.getRequestURI().getPath().substring("/demo/".length());
            byte[] body = null;
            if (FILES.contains(name)) {
                try (InputStream in = Demo.class.getResourceAsStream("/demo/" + name)) {
                    body = in.readAllBytes();
                }
                if (name.endsWith(".checkm")) {
                    String base = "http://127.0.0.1:" + server.getAddress().getPort() + "/demo";
                    body = new String(body, StandardCharsets.UTF_8)
                            .replace("{base}", base)
                            .getBytes(StandardCharsets.UTF_8);
                }
            }
            if (body == null) {
                exchange.sendResponseHeaders(404, -1);
            } else {
                exchange.getResponseHeaders().set("Content-Length", Integer.toString(body.length));
                boolean head = exchange.getRequestMethod().equals("HEAD");
                exchange.sendResponseHeaders(200, head ? -1 : body.length);
                if (!head) {
                    exchange.getResponseBody().write(body);
                }
            }
            exchange.close();
        });
        server.start();
        return server;
    }

    private static Map<String, String> parse(String[] args) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String a : args) {
            int eq = a.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("demo arguments are key=value, got '" + a + "'");
            }
            m.put(a.substring(0, eq), a.substring(eq + 1));
        }
        return m;
    }
}
