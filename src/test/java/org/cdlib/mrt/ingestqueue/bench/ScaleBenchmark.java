package org.cdlib.mrt.ingestqueue.bench;

import java.io.BufferedWriter;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.camel.Processor;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.cdlib.mrt.ingestqueue.camel.BatchExchange;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionEvent;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.NewJob;
import org.cdlib.mrt.ingestqueue.runtime.IngestService;

/**
 * A batch of a million objects on the embedded default (in-process ZooKeeper, routes with no-op
 * steps), clients at half the default packet limit. Prints: the manifest's check and first
 * window, the steady rate and what a whole walk would take at it, claim + transition cost with
 * 1k / 100k / 1M objects queued, ZooKeeper's data size and the process's RSS. Asserts nothing.
 *
 * <pre>
 * mvn -B -q dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 * mvn -B -q test-compile
 * java -Xmx512m -cp target/test-classes:target/classes:$(cat target/cp.txt) \
 *     org.cdlib.mrt.ingestqueue.bench.ScaleBenchmark [objects=1000000] [steady-seconds=120]
 * java -Xmx512m -cp ... org.cdlib.mrt.ingestqueue.bench.ScaleBenchmark walk [objects=1000000] [print-every-seconds=60]
 * java -Xmx12g -Dbench.report=true -cp ... ScaleBenchmark walk 1000000 60  (the batch's real report ends the walk)
 * java -Xmx512m -Dbench.zookeeper=localhost:2191 -Dbench.zookeeper.pid=N -cp ... ScaleBenchmark walk ...
 *     (a ZooKeeper of its own)
 * </pre>
 */
public final class ScaleBenchmark {
    public static void main(String[] args) throws Exception {
        System.setProperty("jute.maxbuffer", "524288");
        if (args.length > 0 && args[0].equals("walk")) {
            walk(
                    args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000,
                    args.length > 2 ? Integer.parseInt(args[2]) : 60);
            System.exit(0);
        }
        int objects = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int steady = args.length > 1 ? Integer.parseInt(args[1]) : 120;
        System.out.printf("machine: %d cores, java %s, max heap %d MB%n", Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"), Runtime.getRuntime().maxMemory() >> 20);
        Path dir = BenchDirs.temporary("ingest-scale");
        Map<String, String> config = noOpStepsConfig(dir);
        config.put("ingest.http.enabled", "false");
        Map<String, Object> beans = noOpSteps();
        claimCost(dir, objects);
        try (IngestService service = new IngestService(config, beans).start()) {
            QueueStore store = service.store();
            String big = submit(store, dir, objects);
            long t0 = System.currentTimeMillis();
            Awaitility.await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(20))
                    .until(() -> store.batches().load(big).status().jobsCreated() > 0);
            Batch b = store.batches().load(big);
            System.out.printf(
                    "%n%,d-object batch manifest (%.1f MB): checked whole and first window of %,d jobs created in %.1f"
                            + " s%n",
                    objects,
                    Files.size(store.ingestHome()
                                    .resolve("uploads")
                                    .resolve("bench-" + objects)
                                    .resolve("batch.checkm"))
                            / 1e6,
                    b.status().jobsCreated(),
                    (System.currentTimeMillis() - t0) / 1000.0);
            int before = completed(store, big);
            t0 = System.currentTimeMillis();
            Thread.sleep(steady * 1000L); // the measuring window itself, not a wait for something
            int done = completed(store, big) - before;
            double rate = done / (steady * 1.0);
            System.out.printf("%nsteady state, the %,d-object batch through the routes (no-op steps, concurrency 4): "
                    + "%,d jobs completed in %d s = %.0f jobs/s -> the whole batch in about %.1f h at this rate%n",
                    objects, done, steady, rate, rate == 0 ? 0 : objects / rate / 3600);
            System.out.printf("  open jobs now: %s%n", store.jobs().counts());
            System.out.printf("  ZooKeeper: %s%n", mntr(service));
            System.out.printf("  ZooKeeper data directory on disk: %.1f MB%n", size(dir.resolve("zookeeper")) / 1e6);
            System.out.printf("  process RSS (service + embedded ZooKeeper): %s%n", rss());
            System.out.printf("  elapsed %.0f s%n", (System.currentTimeMillis() - t0) / 1000.0);
        }
        System.exit(0);
    }

    /**
     * {@code walk}: the whole batch to its end through the routes (no-op steps), printing every
     * {@code every} seconds the jobs completed, jobs/s, ZooKeeper's node count and data size, the
     * JVM's heap in use and the process's RSS; then the batch report's counts and the znodes the
     * finished batch keeps per job.
     */
    static void walk(int objects, int every) throws Exception {
        Path dir = BenchDirs.temporary("ingest-walk");
        Map<String, String> config = noOpStepsConfig(dir);
        config.put("ingest.http.enabled", "false");
        // -Dbench.zookeeper=host:port[/chroot] (-Dbench.zookeeper.pid=N): the service beside a ZooKeeper of its own
        // process, as in production, so the service's RSS is its own (and the server's is printed from its /proc)
        String external = System.getProperty("bench.zookeeper", "");
        if (!external.isEmpty()) {
            config.put("zookeeper.connect", external);
        }
        // -Dbench.report=true: the batch's real report (its counting
        // walk, the listed jobs, the mail to the outbox) ends the walk
        boolean report = Boolean.getBoolean("bench.report");
        Map<String, Object> beans = noOpSteps();
        if (report) {
            beans.remove("reportStep");
            config.put("ingest.mail.outbox", dir.resolve("outbox").toString());
        }
        try (IngestService service = new IngestService(config, beans).start()) {
            QueueStore store = service.store();
            String empty = mntr(service);
            long[] reporting = new long[2];
            store.addListener(e -> {
                if (!TransitionEvent.JOB.equals(e.kind())) {
                    if ("reporting".equals(e.to())) {
                        reporting[0] = System.currentTimeMillis();
                    } else if ("completed".equals(e.to()) || "failed".equals(e.to())) {
                        reporting[1] = System.currentTimeMillis();
                    }
                }
            });
            String bid = submit(store, dir, objects, report ? "bench@example.org" : null);
            long t0 = System.currentTimeMillis();
            long last = t0;
            int lastDone = 0;
            System.out.printf("walk of %,d objects; ZooKeeper before the batch: %s%n", objects, empty);
            System.out.printf("%8s %10s %8s %8s %s%n", "seconds", "completed", "jobs/s", "heap MB", "ZooKeeper; RSS");
            boolean done = false;
            while (!done) {
                try {
                    Awaitility.await().atMost(Duration.ofSeconds(every)).pollInterval(Duration.ofMillis(500))
                            .until(() -> store.batches().load(bid).state() == BatchState.COMPLETED);
                    done = true;
                } catch (ConditionTimeoutException e) {
                    // one interval over: print where the walk stands
                }
                long now = System.currentTimeMillis();
                int completed = completed(store, bid);
                Runtime rt = Runtime.getRuntime();
                System.out.printf(
                        "%8.0f %,10d %8.0f %8d %s; %s%s%n",
                        (now - t0) / 1000.0,
                        completed,
                        (completed - lastDone) * 1000.0 / Math.max(1, now - last),
                        (rt.totalMemory() - rt.freeMemory()) >> 20,
                        mntr(service),
                        rss(),
                        zooKeeperRss());
                last = now;
                lastDone = completed;
            }
            Batch b = store.batches().load(bid);
            long ms = Math.max(1, System.currentTimeMillis() - t0);
            // the no-op report step writes no status report: the counts
            // are the batch's references, which the report counts
            System.out.printf(
                    "%nbatch %s %s in %.0f s (%.0f jobs/s): %,d jobs, %,d completed, %,d failed, %,d open%n",
                    bid,
                    b.state().wire(),
                    ms / 1000.0,
                    objects * 1000.0 / ms,
                    b.jobCount(),
                    b.count(BatchRef.COMPLETED),
                    b.count(BatchRef.FAILED),
                    b.count(BatchRef.PROCESSING));
            if (report) {
                Runtime rt = Runtime.getRuntime();
                System.out.printf(
                        "its report: %.1f s from the last job's end to the batch's end; heap in use after it %d MB;"
                                + " %s%n",
                        (reporting[1] - reporting[0]) / 1000.0,
                        (rt.totalMemory() - rt.freeMemory()) >> 20,
                        b.statusReport() == null
                                ? "no status report"
                                : "status report: " + b.statusReport().successfulCount()
                                        + " completed, " + b.statusReport().failedCount() + " failed, "
                                        + b.statusReport().successfulJobs().size() + " jobs listed");
                try (var mails = Files.list(dir.resolve("outbox"))) {
                    for (Path m : mails.sorted().toList()) {
                        System.out.printf("  mail %s: %,d bytes%n", m.getFileName(), Files.size(m));
                    }
                }
            }
            long added = znodes(mntr(service)) - znodes(empty);
            System.out.printf(
                    "the finished batch keeps %,d znodes: %.2f per job (ZooKeeper %s)%n",
                    added, added / (double) objects, mntr(service));
        }
    }

    /** zk_znode_count from a {@link #mntr} line; -1 when it has none. */
    static long znodes(String mntr) {
        Matcher m = Pattern.compile("zk_znode_count=(\\d+)").matcher(mntr);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    /**
     * The embedded default with the routes that call outside services replaced by the tests' stand-ins, concurrency 4.
     */
    static Map<String, String> noOpStepsConfig(Path dir) {
        Map<String, String> config = new HashMap<>();
        config.put("zookeeper.embedded.dir", dir.resolve("zookeeper").toString());
        config.put("zookeeper.embedded.port", "0");
        config.put("ingest.home", dir.resolve("queue").toString());
        config.put("ingest.profiles", dir.resolve("profiles").toString());
        config.put(
                "camel.main.routes-include-pattern",
                "file:routes/*.yaml,file:src/test/resources/stand-in-routes/*.yaml");
        config.put(
                "camel.main.routes-exclude-pattern",
                "**/processing.yaml,**/storing.yaml,**/recording.yaml,**/notify.yaml");
        for (String s : List.of(
                "estimating",
                "provisioning",
                "downloading",
                "processing",
                "storing",
                "recording",
                "notify",
                "pending")) {
            config.put("ingest.concurrency." + s, "4");
        }
        return config;
    }

    /** Steps that do nothing; a batch's report completes it. */
    static Map<String, Object> noOpSteps() {
        Map<String, Object> beans = new HashMap<>();
        Processor noop = e -> { };
        for (String b : List.of(
                "estimateStep",
                "provisionStep",
                "downloadStep",
                "processStep",
                "storeStep",
                "recordStep",
                "notifyStep",
                "completeStep",
                "queuedMailStep",
                "cleanupStep",
                "reportingSweep",
                "consistencySweep")) {
            beans.put(b, noop);
        }
        beans.put("reportStep", (Processor) e -> BatchExchange.next(e, BatchState.COMPLETED, "bench"));
        return beans;
    }

    static String submit(QueueStore store, Path dir, int objects) throws Exception {
        return submit(store, dir, objects, null);
    }

    static String submit(QueueStore store, Path dir, int objects, String notification) throws Exception {
        return submit(store, "bench-" + objects, 0, objects, notification);
    }

    /** A batch of objects {@code first} .. {@code first + objects - 1}, its manifest under {@code uploads/<name>}. */
    static String submit(QueueStore store, String name, int first, int objects, String notification)
            throws Exception {
        Path upload = Files.createDirectories(store.ingestHome().resolve("uploads").resolve(name));
        Path manifest = upload.resolve("batch.checkm");
        try (BufferedWriter w = Files.newBufferedWriter(manifest, StandardCharsets.UTF_8)) {
            w.write("#%checkm_0.7\n"
                    + "#%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-single-file-batch-manifest\n"
                    + "#%fields | nfo:fileUrl | nfo:fileName | mrt:localIdentifier | mrt:title\n");
            for (int i = first; i < first + objects; i++) {
                w.write("http://bench.invalid/f/" + i + " | f" + i + ".txt | local-" + i + " | Object " + i + "\n");
            }
            w.write("#%eof\n");
        }
        return store.batches()
                .create(new BatchSubmission(
                        "demo_content",
                        "bench",
                        manifest.toUri().toString(),
                        null,
                        null,
                        null,
                        null,
                        "single-file-batch-manifest",
                        "add",
                        null,
                        null,
                        null,
                        null,
                        null,
                        notification,
                        "json",
                        null,
                        null,
                        null));
    }

    /**
     * Claim + transition cost as the queue holds 1k, 100k and {@code objects} objects: each batch
     * is created as Batch Pending creates it (its id run reserved, a window of 5,000 jobs made).
     */
    static void claimCost(Path dir, int objects) throws Exception {
        System.out.printf("%nclaim + transition (pending -> estimating, one worker, 500 jobs), store level:%n");
        try (TestingServer zk = new TestingServer(true);
             CuratorFramework c = QueueBenchmark.client(zk.getConnectString())) {
            QueueStore store = new QueueStore(c, dir.resolve("claims")).start();
            for (int queued : new int[] {1_000, 100_000, objects}) {
                String bid = store.batches().create(QueueBenchmark.submission());
                HeldBatch lock = store.batches().tryLock(bid, "bench").orElseThrow();
                List<NewJob> window = new ArrayList<>();
                for (int i = 0; i < Math.min(queued, 5000); i++) {
                    window.add(new NewJob(
                            new JobConfiguration(
                                    null,
                                    "demo_content",
                                    "bench",
                                    "http://localhost/" + i,
                                    "file",
                                    null,
                                    null,
                                    null,
                                    null,
                                    null,
                                    null,
                                    null,
                                    null,
                                    null,
                                    null,
                                    null,
                                    null,
                                    null),
                            new Identifiers(null, List.of()),
                            5));
                }
                store.batches().createMoreJobs(lock, window, queued);
                store.moves().unlock(lock);
                double ms = claimAndMove(store, 500);
                System.out.printf(
                        "  %,9d objects queued (%,d jobs created, %,d in pending): %.2f ms per claim + transition%n",
                        queued,
                        store.batches().load(bid).status().jobsCreated(),
                        store.jobs().counts().get(JobState.PENDING),
                        ms);
            }
        }
    }

    /** Claims and moves {@code n} pending jobs one after another, as one worker does; ms per job. */
    static double claimAndMove(QueueStore store, int n) {
        List<String> refs = new ArrayList<>(store.jobs().refs(JobState.PENDING));
        long t = System.nanoTime();
        int moved = 0;
        for (String ref : refs) {
            if (moved == n) {
                break;
            }
            Optional<HeldJob> lock = store.claims().claim(JobState.PENDING, ref, "bench");
            if (lock.isPresent()) {
                store.moves().transition(lock.get(), JobState.ESTIMATING, Change.because("bench"));
                moved++;
            }
        }
        return (System.nanoTime() - t) / 1e6 / Math.max(1, moved);
    }

    static int completed(QueueStore store, String bid) {
        return bid == null ? 0 : store.batches().load(bid).count(BatchRef.COMPLETED);
    }

    static String mntr(IngestService service) {
        return mntr(service.store().client().getZookeeperClient().getCurrentConnectionString());
    }

    /** ZooKeeper's node count and data size, from the first server of {@code connect}. */
    static String mntr(String connect) {
        String[] hp = connect.split(",")[0].split(":");
        try (Socket s = new Socket(hp[0], Integer.parseInt(hp[1]))) {
            OutputStream out = s.getOutputStream();
            out.write("mntr".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            String text = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            StringBuilder b = new StringBuilder();
            for (String line : text.split("\n")) {
                if (line.startsWith("zk_znode_count") || line.startsWith("zk_approximate_data_size")) {
                    b.append(line.replace('\t', '=')).append(' ');
                }
            }
            return b.toString().trim();
        } catch (Exception e) {
            return "mntr not available: " + e.getMessage();
        }
    }

    static long size(Path dir) throws Exception {
        try (var walk = Files.walk(dir)) {
            return walk.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    /** The external ZooKeeper's RSS ({@code -Dbench.zookeeper.pid}), or nothing. */
    static String zooKeeperRss() throws Exception {
        String pid = System.getProperty("bench.zookeeper.pid", "");
        if (pid.isEmpty()) {
            return "";
        }
        return "; ZooKeeper's process: " + Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream()
                .filter(l -> l.startsWith("VmRSS")).map(l -> l.replaceAll("\\s+", " ")).findFirst().orElse("?");
    }

    static String rss() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS") || line.startsWith("VmHWM")) {
                return Files.readAllLines(Path.of("/proc/self/status")).stream()
                        .filter(l -> l.startsWith("VmRSS") || l.startsWith("VmHWM")).map(l -> l.replaceAll("\\s+", " "))
                        .reduce((a, c) -> a + ", " + c).orElse("");
            }
        }
        return "unknown";
    }
}
