package org.cdlib.mrt.ingestqueue.bench;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.apache.camel.Processor;
import org.apache.curator.test.TestingServer;
import org.cdlib.mrt.ingestqueue.figures.BatchProgress;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionEvent;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.runtime.IngestService;
import org.slf4j.LoggerFactory;

/**
 * The estimates against what happened: scenarios replayed on the real queue (an in-process
 * ZooKeeper, the service's own consumers and workers, 4 a state on each host) whose steps take
 * times this benchmark controls: downloading GETs a WireMock payload server that answers after
 * 300–500 ms (the bottleneck), the other steps take 20–150 ms. Batches are made by the real
 * Batch Pending from manifests, so their priority is by size (≤ 100 objects 05, ≤ 1,000 07).
 * Scenarios, in order on one queue (the estimates' measured error carries over, as in a service
 * that has run): a warm-up, steady (one batch of 200), a burst then idle (150, then 20 s idle,
 * then 60), a slow payload server (3× slower, 60), two priority classes (200, then 60 submitted 3 s
 * later), a held collection (80 submitted under a hold, released after 5 s), and 3 hosts (two more
 * services on the same ZooKeeper: a warm-up batch of 200 not counted, as the first host had, then
 * 200). A batch's progress is asked every 500 ms ({@link BatchProgress}, as the pages ask); at
 * the first answer past each tenth of the batch done (10% … 90%) the estimate is kept (its basis
 * printed at 10%), and after the batch ends it is compared with the batch's actual end
 * (its last job's completion): the error on the remaining time ({@code estimated / actual - 1}),
 * the error on the whole time since submission, and whether the range held the end. Asserts nothing.
 *
 * <pre>
 * mvn -B -q dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 * mvn -B -q test-compile
 * java -Xmx1g -cp target/test-classes:target/classes:$(cat target/cp.txt) \
 *     org.cdlib.mrt.ingestqueue.bench.EstimateBenchmark
 * </pre>
 */
public final class EstimateBenchmark {
    private static final long POLL_MS = 500;
    private static final Map<String, Long> LAST_COMPLETED = new ConcurrentHashMap<>();
    private static final List<double[]> ALL = new ArrayList<>();
    private static WireMockServer payloads;
    private static Path dir;
    private static int objectsMade;

    private EstimateBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("jute.maxbuffer", "524288");
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
        System.out.printf("machine: %d cores, java %s%n", Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"));
        dir = BenchDirs.temporary("ingest-estimates");
        payloads = new WireMockServer(WireMockConfiguration.options().dynamicPort().containerThreads(40));
        payloads.start();
        payloadDelay(300, 500);
        List<IngestService> services = new ArrayList<>();
        try (TestingServer zk = new TestingServer(true)) {
            try {
                scenarios(zk, services);
            } finally {
                for (int i = services.size() - 1; i >= 0; i--) {
                    services.get(i).close(); // before their ZooKeeper
                }
            }
        } finally {
            payloads.stop();
        }
        System.exit(0);
    }

    private static void scenarios(TestingServer zk, List<IngestService> services) throws Exception {
        services.add(service(zk, 0));
        QueueStore store = services.get(0).store();
        BatchProgress progress = new BatchProgress(store, Clock.systemUTC());

        System.out.println("\nwarm-up (not counted): 2 batches of 60");
        run(store, progress, "warm-up", false, () -> List.of(submit(store, 60)));
        run(store, progress, "warm-up", false, () -> List.of(submit(store, 60)));

        run(store, progress, "steady: one batch of 200", true, () -> List.of(submit(store, 200)));

        run(store, progress, "a burst (150), then idle", false, () -> List.of(submit(store, 150)));
        idle(Duration.ofSeconds(20));
        run(store, progress, "after the burst and 20 s idle: 60", true, () -> List.of(submit(store, 60)));

        payloadDelay(900, 1500);
        run(store, progress, "a slow payload server (3x): 60", true, () -> List.of(submit(store, 60)));
        payloadDelay(300, 500);

        run(store, progress, "two priority classes: 200, then 60 submitted 3 s later", true, () -> {
            String big = submit(store, 200);
            idle(Duration.ofSeconds(3));
            return List.of(big, submit(store, 60));
        });

        AdminActions admin = new AdminActions(store, Clock.systemUTC());
        admin.holds().holdCollection("demo_content", "bench");
        run(store, progress, "a held collection: 80, released after 5 s", true, () -> {
            String bid = submit(store, 80);
            long until = System.currentTimeMillis() + 5000;
            int polls = 0;
            int held = 0;
            while (System.currentTimeMillis() < until) {
                Map<String, Object> p = progress.of(store.batches().load(bid));
                polls++;
                held += p.get("estimated_completion") == null && String.valueOf(p.get("hold_note"))
                        .startsWith("collection demo_content is on hold") ? 1 : 0;
                idle(Duration.ofMillis(POLL_MS));
            }
            System.out.printf("  while held: %d of %d answers had no estimate and named the hold%n", held, polls);
            admin.holds().releaseCollection("demo_content", "bench");
            admin.holds().releaseCollectionJobs("demo_content", "bench");
            return List.of(bid);
        });

        services.add(service(zk, 1));
        services.add(service(zk, 2));
        idle(Duration.ofSeconds(6)); // the new hosts publish their workers
        // as the first host had: what three hosts let go is measured on a batch of their own first
        run(store, progress, "3 hosts, warm-up (not counted): 200", false, () -> List.of(submit(store, 200)));
        run(store, progress, "3 hosts: 200", true, () -> List.of(submit(store, 200)));

        summary();
    }

    /** The service as the benchmark runs it: stand-in steps of known times, 4 workers a state, no HTTP. */
    private static IngestService service(TestingServer zk, int n) throws Exception {
        Map<String, String> config = ScaleBenchmark.noOpStepsConfig(dir.resolve("host-" + n));
        config.remove("zookeeper.embedded.dir");
        config.remove("zookeeper.embedded.port");
        config.put("zookeeper.connect", zk.getConnectString());
        config.put("ingest.http.enabled", "false");
        if (n > 0) {
            // one queue: the manifests are under the first host's home
            config.put("ingest.home", dir.resolve("host-0").resolve("queue").toString());
        }
        Map<String, Object> beans = ScaleBenchmark.noOpSteps();
        beans.put("estimateStep", sleeps(20, 60));
        beans.put("provisionStep", sleeps(20, 60));
        beans.put("downloadStep", download());
        beans.put("processStep", sleeps(100, 200));
        beans.put("storeStep", sleeps(60, 140));
        beans.put("recordStep", sleeps(20, 60));
        beans.put("notifyStep", sleeps(20, 60));
        IngestService service = new IngestService(config, beans).start();
        service.store().addListener(EstimateBenchmark::heard);
        return service;
    }

    private static void heard(TransitionEvent e) {
        if (TransitionEvent.JOB.equals(e.kind()) && "completed".equals(e.to()) && e.batchId() != null) {
            LAST_COMPLETED.merge(e.batchId(), e.at().toEpochMilli(), Math::max);
        }
    }

    /** A step that takes from {@code lo} to {@code hi} ms (the simulated work of a step). */
    private static Processor sleeps(int lo, int hi) {
        return e -> Thread.sleep(ThreadLocalRandom.current().nextInt(lo, hi + 1));
    }

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    /** Downloading: one GET of the payload server, as slow as it is set to answer. */
    private static Processor download() {
        return e -> {
            HttpResponse<Void> r = HTTP.send(HttpRequest.newBuilder(URI.create(payloads.baseUrl() + "/payload/x"))
                    .build(), HttpResponse.BodyHandlers.discarding());
            if (r.statusCode() != 200) {
                throw new IllegalStateException("payload server answered " + r.statusCode());
            }
        };
    }

    private static void payloadDelay(int lo, int hi) {
        payloads.resetMappings();
        payloads.stubFor(get(urlPathMatching("/payload/.*")).willReturn(aResponse().withStatus(200).withBody("x")
                .withUniformRandomDelay(lo, hi)));
    }

    private static String submit(QueueStore store, int objects) {
        try {
            String bid = ScaleBenchmark.submit(store, "b" + objectsMade, objectsMade, objects, null);
            objectsMade += objects;
            return bid;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void idle(Duration d) {
        try {
            Thread.sleep(d.toMillis()); // a scenario's own time: the queue idles (not a wait on a condition)
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** An estimate kept at a tenth of a batch: when, what it said, and when the batch was submitted. */
    private record Kept(int tenth, long at, long mid, long earliest, long latest, long submitted) {
    }

    /** Submits the scenario's batches, asks their progress until all ended, and prints each one's estimates. */
    private static void run(QueueStore store, BatchProgress progress, String name, boolean counted,
            Supplier<List<String>> scenario) {
        System.out.println("\n" + name);
        long submitted = System.currentTimeMillis();
        List<String> bids = scenario.get();
        Map<String, List<Kept>> kept = new HashMap<>();
        Map<String, Long> submittedAt = new HashMap<>();
        bids.forEach(b -> submittedAt.put(b, store.batches().load(b).createdAt()));
        List<String> open = new ArrayList<>(bids);
        long deadline = submitted + Duration.ofMinutes(5).toMillis();
        while (!open.isEmpty() && System.currentTimeMillis() < deadline) {
            for (String bid : List.copyOf(open)) {
                Batch b = store.batches().load(bid);
                Map<String, Object> p = progress.of(b);
                Integer total = b.status().jobsTotal();
                int ended = b.count(BatchRef.COMPLETED) + b.count(BatchRef.FAILED);
                if (total != null && total > 0 && ended >= total) {
                    open.remove(bid);
                    continue;
                }
                int tenth = total == null || total == 0 ? 0 : ended * 10 / total;
                List<Kept> mine = kept.computeIfAbsent(bid, k -> new ArrayList<>());
                boolean known = mine.stream().anyMatch(k -> k.tenth() == tenth);
                if (tenth == 1 && !known && p.get("estimate_basis") != null) {
                    System.out.println("  at 10%: " + p.get("estimate_basis"));
                }
                if (tenth >= 1 && !known && p.get("estimated_completion") != null) {
                    @SuppressWarnings("unchecked")
                    Map<String, String> range = (Map<String, String>) p.get("estimate_range");
                    mine.add(new Kept(tenth, System.currentTimeMillis(), ms(p.get("estimated_completion")),
                            ms(range.get("earliest")), ms(range.get("latest")), submittedAt.get(bid)));
                } else if (tenth >= 1 && !known) {
                    System.out.printf("  %s at %d0%%: no estimate: %s%n", bid, tenth, p.get("estimate_note"));
                    mine.add(new Kept(tenth, 0, 0, 0, 0, 0));
                }
            }
            idle(Duration.ofMillis(POLL_MS));
        }
        for (String bid : bids) {
            progress.of(store.batches().load(bid)); // seen finished: its estimates' error is measured
            long end = LAST_COMPLETED.getOrDefault(bid, System.currentTimeMillis());
            System.out.printf("  %s (%d objects): %.1f s from submission to its last job's completion%n", bid,
                    store.batches().load(bid).status().jobsTotal(), (end - submittedAt.get(bid)) / 1000.0);
            System.out.println("    done  left(actual)  left(estimated)  error(left)  error(whole)  range held");
            for (Kept k : kept.getOrDefault(bid, List.of())) {
                if (k.at() == 0) {
                    continue;
                }
                double actual = (end - k.at()) / 1000.0;
                double estimated = (k.mid() - k.at()) / 1000.0;
                double errorLeft = estimated / actual - 1;
                double errorWhole = (double) (k.mid() - k.submitted()) / (end - k.submitted()) - 1;
                boolean held = k.earliest() <= end && end <= k.latest();
                System.out.printf("    %3d%%  %9.1f s  %12.1f s  %+10.0f%%  %+11.0f%%  %s (%.1f … %.1f s)%n",
                        k.tenth() * 10, actual, estimated, errorLeft * 100, errorWhole * 100, held ? "yes" : "NO",
                        (k.earliest() - k.at()) / 1000.0, (k.latest() - k.at()) / 1000.0);
                if (counted) {
                    ALL.add(new double[] {errorLeft, errorWhole, held ? 1 : 0});
                }
            }
        }
    }

    private static long ms(Object iso) {
        return Instant.parse((String) iso).toEpochMilli();
    }

    private static void summary() {
        int n = ALL.size();
        long leftIn25 = ALL.stream().filter(e -> Math.abs(e[0]) <= 0.25).count();
        long wholeIn25 = ALL.stream().filter(e -> Math.abs(e[1]) <= 0.25).count();
        long held = ALL.stream().filter(e -> e[2] == 1).count();
        double worstLeft = ALL.stream().mapToDouble(e -> Math.abs(e[0])).max().orElse(0);
        double worstWhole = ALL.stream().mapToDouble(e -> Math.abs(e[1])).max().orElse(0);
        System.out.printf("%nall scenarios: %d estimates (10%%-90%% done); within ±25%% of the actual: %d on the "
                + "remaining time (worst %.0f%%), %d on the whole time since submission (worst %.0f%%); the range "
                + "held the actual end %d times (%.0f%%)%n", n, leftIn25, worstLeft * 100, wholeIn25,
                worstWhole * 100, held, n == 0 ? 0 : 100.0 * held / n);
    }
}
