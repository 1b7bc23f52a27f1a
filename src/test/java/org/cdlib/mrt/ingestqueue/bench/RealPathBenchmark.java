package org.cdlib.mrt.ingestqueue.bench;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import com.sun.net.httpserver.HttpServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.cdlib.mrt.ingestqueue.api.HttpApi;
import org.cdlib.mrt.ingestqueue.camel.StepObserver;
import org.cdlib.mrt.ingestqueue.fetch.AddressPolicy;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionEvent;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.runtime.IngestService;
import org.slf4j.LoggerFactory;

/**
 * The real service path: the service on its embedded default (in-process ZooKeeper unless
 * {@code bench.zookeeper} names one; the routes' own concurrency defaults) with its real steps and
 * local back-ends (OCFL storage, H2 inventory, local minter), N one-file objects served by a local
 * JDK HTTP server, submitted as one single-file batch manifest. Prints jobs/s from submission to
 * the batch's completion (after warm-up batches of {@code bench.warmup} objects, default N, until the JIT's
 * compiler takes under 5% of a batch's CPU, as in a service that has run for a while), the CPU per
 * job split into compiler, GC and the rest ({@link ThreadCpu}) and, per state, where a job's time went:
 * waiting (for a worker, the claim and the transition's commit) and working (the route's own run), p50 / p90.
 * Run with {@code mvn -B -Pbench test-compile -Dbench.mode=real -Dbench.jobs=1000} ({@code
 * -Dbench.tally=true}: against an in-process server behind {@link ZooKeeperTally}, which prints the requests
 * per job by type and path; {@code -Dbench.http=true}: the measured batch is submitted through the service's
 * own HTTP API, {@code POST /api/batches}, and timed from that request to the batch's completion, its report
 * included, the warm-up batches submitted the same way; {@code -Dbench.repeat=K}: K measured batches, the
 * median against the probe; {@code -Dbench.files=DIR}: the working directories, OCFL and H2 in DIR (another
 * filesystem), ZooKeeper's files where they were; {@code -Dbench.threads=true}: the measured batch's CPU and
 * context switches by kind of thread, {@link ThreadGroups}). After the measured batch the ceiling probe
 * ({@link CeilingProbe}: the same number of jobs, 7 pipelined multis each) runs against the same server {@code
 * -Dbench.probes} times (3), and the service's rate is printed as a share of the median. Asserts nothing.
 */
final class RealPathBenchmark {
    /** With {@code -Dbench.tally=true}: counts the measured batch's ZooKeeper requests. */
    static ZooKeeperTally tally;

    private RealPathBenchmark() {
    }

    static void run(Path dir, int n, String zookeeper) throws Exception {
        Map<String, byte[]> manifests = new ConcurrentHashMap<>();
        HttpServer http = ObjectFiles.serve(manifests);
        String base = "http://127.0.0.1:" + http.getAddress().getPort();
        int warmup = Integer.getInteger("bench.warmup", n);
        Map<String, String> config = new HashMap<>();
        if (zookeeper != null) {
            config.put("zookeeper.connect", zookeeper);
        } else {
            config.put("zookeeper.embedded.dir", dir.resolve("zookeeper").toString());
            config.put("zookeeper.embedded.port", "0");
        }
        // the queue's working directories and the local back-ends'
        // files, where -Dbench.files puts them (ZooKeeper's stay in dir)
        Path files = System.getProperty("bench.files") == null
                ? dir
                : BenchDirs.temporary(Path.of(System.getProperty("bench.files")), "files");
        config.put("ingest.home", files.resolve("queue").toString());
        config.put("ingest.profiles", files.resolve("profiles").toString());
        config.put("ingest.storage.local.root", files.resolve("storage").toString());
        config.put(
                "ingest.inventory.local.url",
                "jdbc:h2:file:" + files.resolve("inventory").toAbsolutePath() + "/inventory");
        config.put("ingest.mail.outbox", files.resolve("outbox").toString());
        boolean viaHttp = Boolean.getBoolean("bench.http");
        if (viaHttp) {
            config.put("ingest.http.port", "0");
            config.put("ingest.api.users", "bench:bench-pw:admin|submitter");
        } else {
            config.put("ingest.http.enabled", "false");
        }
        config.put("ingest.fetch.allow", AddressPolicy.LOOPBACK);
        config.put("camel.main.routes-include-pattern", "file:routes/*.yaml");
        QueueBenchmark.passThrough(config);
        Map<String, long[]> entered = new ConcurrentHashMap<>();
        Map<String, Long> work = new ConcurrentHashMap<>();
        StepObserver observer = new StepObserver() {
            @Override
            public void stepEnded(String queue, Duration took, boolean failed) {
            }

            @Override
            public void stepEnded(String queue, String id, Duration took, boolean failed) {
                work.merge(queue + " " + id, took.toNanos(), Long::sum); // a job that stayed runs its step again
            }
        };
        AtomicReference<String> bid = new AtomicReference<>("none");
        AtomicReference<CompletableFuture<String>> done = new AtomicReference<>(new CompletableFuture<>());
        int states = JobState.values().length;
        try (IngestService service = new IngestService(config, Map.of("benchObserver", observer))) {
            quiet();
            service.start();
            QueueStore store = service.store();
            store.addListener(e -> {
                if (!e.batchId().equals(bid.get())) {
                    return;
                }
                if (TransitionEvent.JOB.equals(e.kind())) {
                    entered.computeIfAbsent(e.id(), k -> new long[states])[
                                    JobState.fromWire(e.to()).ordinal()] =
                            System.nanoTime();
                } else if ("completed".equals(e.to()) || "failed".equals(e.to())) {
                    done.get().complete(e.to());
                }
            });
            System.out.printf("%nreal service path (%d one-file objects from a local HTTP server, %s, "
                    + "OCFL + H2 + local minter)%n", n, zookeeper == null ? "embedded default" : "external ZooKeeper");
            if (warmup > 0) {
                // a service runs for days: the first batches after a start also pay for class loading and the JIT
                ThreadCpu.warmUp(warmup, "objects", round -> {
                    manifests.put("/warmup" + round + ".checkm", manifest(base, warmup));
                    long w0 = System.nanoTime();
                    synchronized (bid) {
                        // the path measured below is the one warmed: an HTTP submission's handlers are compiled too
                        bid.set(viaHttp ? submitOverHttp(service, base + "/warmup" + round + ".checkm")
                                : store.batches().create(submission(base, "warmup" + round + ".checkm")));
                    }
                    done.get().get(30, TimeUnit.MINUTES);
                    done.set(new CompletableFuture<>());
                    entered.clear();
                    work.clear();
                    return (System.nanoTime() - w0) / 1e9;
                });
            }
            // one batch moves by ±20 % on a shared host: -Dbench.repeat measures several, each with its own local ids
            int repeat = Math.max(1, Integer.getInteger("bench.repeat", 1));
            List<Double> rates = new ArrayList<>();
            for (int run = 1; run <= repeat; run++) {
                String manifest = run == 1 ? "batch.checkm" : "batch" + run + ".checkm";
                manifests.put("/" + manifest, manifest(base, n));
                entered.clear();
                work.clear();
                long ops0 = store.operations();
                LocalTime from = LocalTime.now();
                if (tally != null) {
                    tally.reset();
                }
                long cpu0 = QueueBenchmark.processCpuNanos();
                ThreadCpu threads0 = ThreadCpu.now();
                ThreadGroups kinds0 = Boolean.getBoolean("bench.threads") ? ThreadGroups.now() : null;
                long t0 = System.nanoTime();
                synchronized (bid) {
                    bid.set(
                            viaHttp
                                    ? submitOverHttp(service, base + "/" + manifest)
                                    : store.batches().create(submission(base, manifest)));
                }
                String end = done.get().get(30, TimeUnit.MINUTES);
                done.set(new CompletableFuture<>());
                double s = (System.nanoTime() - t0) / 1e9;
                // the window to cut a flight recording of the whole run to (jfr print shows local times)
                System.out.printf("  measured from %s to %s%n", from, LocalTime.now());
                System.out.printf(
                        "  %s batch, submission to batch %s: %.2f s = %.0f jobs/s (%s)%n",
                        warmup > 0 || run > 1 ? "the next" : "first",
                        end,
                        s,
                        n / s,
                        zookeeper == null ? "in-process ZooKeeper" : "ZooKeeper " + zookeeper);
                System.out.printf(
                        "  ZooKeeper operations per job (through the queue layer; each op of a multi counts): %.1f%n",
                        (store.operations() - ops0) / (double) n);
                System.out.printf(
                        "  process CPU per job (the local back-ends and the in-process ZooKeeper server included):"
                                + " %.1f ms%n",
                        (QueueBenchmark.processCpuNanos() - cpu0) / 1e6 / n);
                System.out.printf("    of it: %s%n", ThreadCpu.now().since(threads0).perJob(n));
                if (kinds0 != null) {
                    ThreadGroups.now().printSince(kinds0, n);
                }
                if (tally != null) {
                    tally.print(n);
                }
                rates.add(n / s);
            }
            Collections.sort(rates);
            double rate = rates.get(rates.size() / 2);
            // one probe moved by a third between runs on this host
            // (1,002-1,871 jobs/s): the median of a few, its range shown
            int probes = Integer.getInteger("bench.probes", 3);
            double[] found = new double[probes];
            for (int i = 0; i < probes; i++) {
                found[i] = CeilingProbe.run(store.client(), n, 64) / (CeilingProbe.STATES - 1);
            }
            Arrays.sort(found);
            double ceiling = found[probes / 2];
            System.out.printf(
                    "  ceiling probe against the same server: %.0f jobs/s (median of %d, %.0f to %.0f); the service%s: "
                            + "%.2f of it%n",
                    ceiling,
                    probes,
                    found[0],
                    found[probes - 1],
                    viaHttp ? " through its HTTP API (submission and report included)" : "",
                    rate / ceiling);
            if (repeat > 1) {
                System.out.printf(
                        "  the median of %d measured batches, %.0f jobs/s (%.0f to %.0f); each against the probe: %s%n",
                        repeat,
                        rate,
                        rates.get(0),
                        rates.get(repeat - 1),
                        rates.stream()
                                .map(r -> String.format("%.2f", r / ceiling))
                                .toList());
            }
            System.out.printf(
                    "  jobs failed: %d%n",
                    entered.values().stream()
                            .filter(t -> t[JobState.FAILED.ordinal()] > 0)
                            .count());
            System.out.printf("  %-13s %10s %10s %10s %10s   (ms; wait = time in the state not spent in its route)%n",
                    "state", "wait p50", "wait p90", "work p50", "work p90");
            for (JobState st = JobState.PENDING; st != JobState.COMPLETED; st = st.successor()) {
                List<Long> waits = new ArrayList<>();
                List<Long> works = new ArrayList<>();
                for (Map.Entry<String, long[]> e : entered.entrySet()) {
                    long in = e.getValue()[st.ordinal()];
                    long out = e.getValue()[st.successor().ordinal()];
                    if (in == 0 || out == 0) {
                        continue;
                    }
                    long w = work.getOrDefault("job/" + st.wire() + " " + e.getKey(), 0L);
                    works.add(w);
                    waits.add(Math.max(0, out - in - w));
                }
                Collections.sort(waits);
                Collections.sort(works);
                System.out.printf("  %-13s %10.1f %10.1f %10.1f %10.1f%n", st.wire(), QueueBenchmark.pct(waits, 50),
                        QueueBenchmark.pct(waits, 90), QueueBenchmark.pct(works, 50), QueueBenchmark.pct(works, 90));
            }
        } finally {
            http.stop(0);
        }
    }

    /** {@code POST /api/batches} as a depositor's client sends it; the batch id the service answers. */
    private static String submitOverHttp(IngestService service, String manifestUrl) throws Exception {
        int port = service.camel().getRegistry().lookupByNameAndType("httpApi", HttpApi.class).port();
        String body = "{\"profile\":\"demo_content\",\"type\":\"single-file-batch-manifest\",\"payload_url\":\""
                + manifestUrl + "\",\"title\":\"Bench objects\"}";
        HttpResponse<String> r = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/batches"))
                                .header(
                                        "Authorization",
                                        "Basic "
                                                + Base64.getEncoder()
                                                        .encodeToString(
                                                                "bench:bench-pw".getBytes(StandardCharsets.UTF_8)))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 201) {
            throw new IllegalStateException("POST /api/batches answered " + r.statusCode() + ": " + r.body());
        }
        return r.headers().firstValue("BID").orElseThrow();
    }

    private static BatchSubmission submission(String base, String manifest) {
        return new BatchSubmission("demo_content", "bench", base + "/" + manifest, "Bench objects", "bench", null, null,
                "single-file-batch-manifest", "add", manifest, null, null, null, null, null, "json", null,
                Instant.now().toString(), null);
    }

    static byte[] manifest(String base, int n) {
        StringBuilder m = new StringBuilder("""
            #%checkm_0.7
            #%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-single-file-batch-manifest
            #%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileLastModified \
            | nfo:fileName | mrt:primaryIdentifier | mrt:localIdentifier | mrt:creator | mrt:title | mrt:date
            """);
        for (int i = 0; i < n; i++) {
            m.append(base)
                    .append("/f")
                    .append(i)
                    .append(".txt | | | | | f")
                    .append(i)
                    .append(".txt | | bench-")
                    .append(System.nanoTime())
                    .append('-')
                    .append(i)
                    .append(" | A. Author | Title ")
                    .append(i)
                    .append(" | 2026\n");
        }
        return m.append("#%eof\n").toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The service logs every transition at INFO; a thousand jobs' worth would drown the figures. */
    private static void quiet() {
        if (LoggerFactory.getLogger("org.cdlib") instanceof Logger l) {
            l.setLevel(Level.WARN);
        }
        if (LoggerFactory.getLogger("org.apache") instanceof Logger l) {
            l.setLevel(Level.WARN);
        }
    }
}
