package org.cdlib.mrt.ingestqueue.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.cdlib.mrt.ingestqueue.api.HttpApi;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.runtime.IngestService;

/**
 * What a batch's page costs while the batch runs: {@code GET /api/batches/<bid>} (counts per
 * state, places and estimates of its open jobs) and the depositor's {@code /api/status/<bid>},
 * asked one after another for a while, on a batch of {@code objects} objects moving through the
 * routes with no-op steps on the embedded default. Prints the latency median, 95th percentile and
 * maximum, and the answer's size. Asserts nothing.
 *
 * <pre>
 * mvn -B -q dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 * mvn -B -q test-compile
 * java -Xmx512m -cp target/test-classes:target/classes:$(cat target/cp.txt) \
 *     org.cdlib.mrt.ingestqueue.bench.BatchViewBenchmark [objects=100000] [seconds=60]
 * </pre>
 */
public final class BatchViewBenchmark {
    public static void main(String[] args) throws Exception {
        System.setProperty("jute.maxbuffer", "524288");
        int objects = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 60;
        System.out.printf(
                "machine: %d cores, java %s%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
        Path dir = BenchDirs.temporary("ingest-batch-view");
        Map<String, String> config = ScaleBenchmark.noOpStepsConfig(dir);
        config.put("ingest.http.port", "0");
        config.put("ingest.api.users", "alice:pw-a:admin|submitter");
        Map<String, Object> beans = ScaleBenchmark.noOpSteps();
        try (IngestService service = new IngestService(config, beans).start()) {
            QueueStore store = service.store();
            String base = "http://127.0.0.1:"
                    + service.camel()
                            .getRegistry()
                            .lookupByNameAndType("httpApi", HttpApi.class)
                            .port();
            String bid = ScaleBenchmark.submit(store, dir, objects);
            Awaitility.await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(50))
                    .until(() -> store.batches().load(bid).status().jobsCreated() >= Math.min(objects, 5000));
            HttpClient http = HttpClient.newHttpClient();
            String auth = "Basic " + Base64.getEncoder().encodeToString("alice:pw-a".getBytes(StandardCharsets.UTF_8));
            List<Long> nanos = new ArrayList<>();
            long bytes = 0;
            long until = System.currentTimeMillis() + seconds * 1000L;
            while (System.currentTimeMillis() < until) {
                long t = System.nanoTime();
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/api/batches/" + bid))
                        .header("Authorization", auth).build(), HttpResponse.BodyHandlers.ofString());
                nanos.add(System.nanoTime() - t);
                bytes = r.body().length();
                if (r.statusCode() != 200) {
                    System.out.println("answered " + r.statusCode() + ": " + r.body());
                }
            }
            Collections.sort(nanos);
            System.out.printf(
                    "%nGET /api/batches/<bid> of a %,d-object batch while it runs (%,d jobs created, %s open): "
                            + "%,d requests in %d s, median %.1f ms, p95 %.1f ms, max %.1f ms, %,d bytes%n",
                    objects,
                    store.batches().load(bid).status().jobsCreated(),
                    store.jobs().counts(),
                    nanos.size(),
                    seconds,
                    nanos.get(nanos.size() / 2) / 1e6,
                    nanos.get(nanos.size() * 95 / 100) / 1e6,
                    nanos.get(nanos.size() - 1) / 1e6,
                    bytes);
        }
        System.exit(0);
    }
}
