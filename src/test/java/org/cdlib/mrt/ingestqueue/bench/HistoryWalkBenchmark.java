package org.cdlib.mrt.ingestqueue.bench;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.cdlib.mrt.ingestqueue.fetch.UploadMark;
import org.cdlib.mrt.ingestqueue.history.HistoryStore;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionEvent;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.runtime.IngestService;

/**
 * Issue 44's "memory made true": N objects walked through the routes in batches, the queue in a
 * JVM of its own with the README's heap, ZooKeeper in another (standalone, {@code ZooKeeperServerMain}),
 * the steps no-ops but the batch's report and the cleanup real: each batch is handed over to
 * history (the default H2 file) at its report, and the cleanup removes completed batches once
 * ZooKeeper holds more than {@code ingest.history.keep-jobs} finished jobs or their retention
 * ended. Prints every {@code every} seconds the queue process's RSS (its own {@code /proc}),
 * ZooKeeper's node count and data size ({@code mntr}) and RSS, history's rows and size on disk,
 * jobs/s; then the same after the last hand-over. Asserts nothing.
 *
 * <pre>
 * mvn -o -q -B test-compile
 * java -cp target/test-classes:target/classes:&lt;class path&gt; \
 *     org.cdlib.mrt.ingestqueue.bench.HistoryWalkBenchmark [objects=1000000] [batch=1000] [every=60]
 *   -Dbench.heap=256m (the queue's -Xmx)  -Dbench.zookeeper.heap=1g
 *   -Dbench.keep-jobs=10000  -Dbench.retention=PT2M  -Dbench.backlog=5000 (open jobs submitted ahead)
 *   -Dbench.drain=PT20M (how long the end waits for the cleanup to bring ZooKeeper back to the window)
 * </pre>
 */
public final class HistoryWalkBenchmark {
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("queue")) {
            queue(Path.of(args[1]), args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                    Integer.parseInt(args[5]));
            System.exit(0);
        }
        int objects = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int batch = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        int every = args.length > 2 ? Integer.parseInt(args[2]) : 60;
        Path dir = BenchDirs.temporary("ingest-history-walk");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Process zk = zooKeeper(dir, port);
        Runtime.getRuntime().addShutdownHook(new Thread(zk::destroy));
        String connect = "localhost:" + port;
        Awaitility.await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200))
                .until(() -> ScaleBenchmark.mntr(connect).contains("zk_znode_count"));
        List<String> command = java(System.getProperty("bench.heap", "256m"));
        command.add("-XX:MaxMetaspaceSize=128m");
        command.add("-Dlogback.configurationFile=bench/logback-walk.xml"); // from the class path
        command.add("-Dbench.zookeeper.pid=" + zk.pid());
        System.getProperties().stringPropertyNames().stream()
                .filter(k -> k.startsWith("bench.") || k.startsWith("ingest."))
                .forEach(k -> command.add("-D" + k + "=" + System.getProperty(k)));
        command.addAll(mainClass(HistoryWalkBenchmark.class.getName(), "queue", dir.toString(), connect,
                String.valueOf(objects), String.valueOf(batch), String.valueOf(every)));
        System.out.printf("machine: %d cores; ZooKeeper standalone, pid %d, port %d (-Xmx%s); the queue: %s%n",
                Runtime.getRuntime().availableProcessors(), zk.pid(), port,
                System.getProperty("bench.zookeeper.heap", "1g"), String.join(" ", command.subList(1, 5)));
        Process queue = new ProcessBuilder(command).inheritIO().start();
        Runtime.getRuntime().addShutdownHook(new Thread(queue::destroy));
        int exit = queue.waitFor();
        zk.destroy();
        zk.waitFor();
        System.exit(exit);
    }

    /** A standalone ZooKeeper 3.9 in a JVM of its own, its data in {@code dir/zookeeper}. */
    private static Process zooKeeper(Path dir, int port) throws IOException {
        Path data = Files.createDirectories(dir.resolve("zookeeper"));
        Path cfg = dir.resolve("zoo.cfg");
        // snapshots every 200,000 transactions and an hourly purge keep its disk bounded through an hour's walk
        Files.writeString(cfg, String.join("\n", "tickTime=2000", "dataDir=" + data, "clientPort=" + port,
                "4lw.commands.whitelist=mntr,srvr,ruok", "admin.enableServer=false", "maxClientCnxns=0",
                "snapCount=200000", "autopurge.snapRetainCount=3", "autopurge.purgeInterval=1", ""));
        List<String> command = java(System.getProperty("bench.zookeeper.heap", "1g"));
        command.addAll(mainClass("org.apache.zookeeper.server.ZooKeeperServerMain", cfg.toString()));
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("zookeeper.log").toFile()).start();
    }

    /** A JVM on this one's class path; the caller adds options, then {@link #mainClass}. */
    private static List<String> java(String heap) {
        return new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + heap, "-Djute.maxbuffer=524288"));
    }

    private static List<String> mainClass(String name, String... args) {
        List<String> out = new ArrayList<>(List.of("-cp", System.getProperty("java.class.path"), name));
        out.addAll(List.of(args));
        return out;
    }

    /** The queue's JVM: the service on the external ZooKeeper, batches submitted while open jobs are few. */
    static void queue(Path dir, String connect, int objects, int batch, int every) throws Exception {
        long keepJobs = Long.getLong("bench.keep-jobs", 10_000);
        Duration retention = Duration.parse(System.getProperty("bench.retention", "PT2M"));
        int backlog = Integer.getInteger("bench.backlog", 5000);
        Map<String, String> config = ScaleBenchmark.noOpStepsConfig(dir);
        config.remove("zookeeper.embedded.dir");
        config.remove("zookeeper.embedded.port");
        config.put("zookeeper.connect", connect);
        config.put("ingest.http.enabled", "false");
        config.put("ingest.history.url", "jdbc:h2:file:" + dir.resolve("history").resolve("history"));
        config.put("ingest.history.keep-jobs", String.valueOf(keepJobs));
        config.put("ingest.cleanup.retention", retention.toString());
        config.put("ingest.cleanup.period", "10000");
        config.put("ingest.cleanup.delay", "10000");
        config.put("ingest.mail.outbox", dir.resolve("outbox").toString());
        QueueBenchmark.passThrough(config);
        Map<String, Object> beans = ScaleBenchmark.noOpSteps();
        beans.remove("reportStep"); // the real report: it hands the batch over to history
        beans.remove("cleanupStep"); // the real cleanup: the window by count and by age
        try (IngestService service = new IngestService(config, beans).start()) {
            QueueStore store = service.store();
            HistoryStore history = service.camel().getRegistry().lookupByNameAndType("history", HistoryStore.class);
            AtomicLong done = new AtomicLong();
            store.addListener(e -> {
                if (TransitionEvent.JOB.equals(e.kind()) && "completed".equals(e.to())) {
                    done.incrementAndGet();
                }
            });
            Walk walk = new Walk(dir, store, history, done);
            System.out.printf("%,d objects in batches of %,d, at most %,d open; keep-jobs %,d, retention %s;"
                    + " ZooKeeper before: %s%n", objects, batch, backlog, keepJobs, retention, walk.mntr());
            System.out.printf("%8s %10s %10s %7s %6s %8s %6s %s%n", "seconds", "submitted", "completed", "jobs/s",
                    "heap", "RSS", "HWM", "ZooKeeper: znodes, data, finished jobs, RSS; history: jobs, batches, disk");
            int[] submitted = {0};
            BooleanSupplier topUp = () -> {
                while (submitted[0] < objects && submitted[0] - done.get() < backlog) {
                    int n = Math.min(batch, objects - submitted[0]);
                    try {
                        String bid = ScaleBenchmark.submit(store, "walk-" + submitted[0], submitted[0], n, null);
                        UploadMark.write(store.ingestHome(), store.batches().load(bid).submission().payloadUrl(), bid);
                    } catch (Exception ex) {
                        throw new IllegalStateException(ex);
                    }
                    submitted[0] += n;
                }
                return done.get() >= objects;
            };
            walk.until(topUp, every, Duration.ofHours(3), () -> submitted[0]);
            System.out.printf("walked: %,d objects in %.0f s (%.0f jobs/s)%n", objects, walk.seconds(),
                    objects / walk.seconds());
            // the last hand-overs: the count window, then the retention
            Duration drain = Duration.parse(System.getProperty("bench.drain", "PT20M"));
            walk.until(() -> walk.finishedInZooKeeper() <= keepJobs, every, drain, () -> submitted[0]);
            System.out.printf("after the hand-over by count:%n");
            walk.print(submitted[0]);
            walk.until(() -> walk.finishedInZooKeeper() == 0, every, retention.plus(drain), () -> submitted[0]);
            System.out.printf("after the retention's hand-over:%n");
            walk.print(submitted[0]);
        }
    }

    /** The figures printed as the walk goes. */
    private static final class Walk {
        private final Path dir;
        private final QueueStore store;
        private final HistoryStore history;
        private final AtomicLong done;
        private final long t0 = System.currentTimeMillis();
        private long last = t0;
        private long lastDone;

        Walk(Path dir, QueueStore store, HistoryStore history, AtomicLong done) {
            this.dir = dir;
            this.store = store;
            this.history = history;
            this.done = done;
        }

        double seconds() {
            return (System.currentTimeMillis() - t0) / 1000.0;
        }

        String mntr() {
            return ScaleBenchmark.mntr(store.client().getZookeeperClient().getCurrentConnectionString());
        }

        long finishedInZooKeeper() {
            Map<JobState, Integer> c = store.jobs().counts();
            return (long) c.getOrDefault(JobState.COMPLETED, 0) + c.getOrDefault(JobState.FAILED, 0)
                    + c.getOrDefault(JobState.DELETED, 0);
        }

        /** Until {@code condition} or {@code limit}, a line every {@code every} seconds. */
        void until(BooleanSupplier condition, int every, Duration limit, IntSupplier submitted)
                throws Exception {
            long deadline = System.currentTimeMillis() + limit.toMillis();
            while (System.currentTimeMillis() < deadline) {
                try {
                    Awaitility.await().atMost(Duration.ofSeconds(every)).pollInterval(Duration.ofMillis(200))
                            .until(condition::getAsBoolean);
                    return;
                } catch (ConditionTimeoutException e) {
                    print(submitted.getAsInt()); // one interval over: where the walk stands
                }
            }
            System.out.printf("(not reached in %s)%n", limit);
        }

        void print(int submitted) throws Exception {
            long now = System.currentTimeMillis();
            long completed = done.get();
            Runtime rt = Runtime.getRuntime();
            // /proc/self/status: VmHWM (the peak) comes before VmRSS
            String[] rss = ScaleBenchmark.rss().replaceAll("[^0-9,]", "").split(",");
            long[] h = history.counts();
            System.out.printf("%8.0f %,10d %,10d %7.0f %6d %8s %6s %s, %,d finished%s; history %,d jobs, %,d batches,"
                            + " %.1f MB%n",
                    (now - t0) / 1000.0, submitted, completed,
                    (completed - lastDone) * 1000.0 / Math.max(1, now - last),
                    (rt.totalMemory() - rt.freeMemory()) >> 20, rss.length > 1 ? Long.parseLong(rss[1]) / 1024 + " MB"
                            : "?", Long.parseLong(rss[0]) / 1024 + " MB", mntr(), finishedInZooKeeper(),
                    ScaleBenchmark.zooKeeperRss(), h[1], h[0], ScaleBenchmark.size(dir.resolve("history")) / 1e6);
            last = now;
            lastDone = completed;
        }
    }
}
