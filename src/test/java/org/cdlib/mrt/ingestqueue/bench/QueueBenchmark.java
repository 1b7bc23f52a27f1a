package org.cdlib.mrt.ingestqueue.bench;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.camel.Processor;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.cdlib.mrt.ingestqueue.camel.BatchExchange;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionEvent;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.model.NewJob;
import org.cdlib.mrt.ingestqueue.runtime.IngestService;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;

/**
 * {@code mvn -B -Pbench test-compile} (options: {@code -Dbench.jobs=2000 -Dbench.threads=4
 * -Dbench.inflight=64 -Dbench.zookeeper=host:port -Dbench.mode=queue|real|all|routes -Dbench.repeat=1
 * -Dbench.tally=true}).
 * Mode {@code queue} (the default) pushes N jobs with no-op work through every job state: straight
 * through the queue store (the cost of the ZooKeeper layer), as the ceiling probe (one pipelined
 * 5-op multi per transition: what ZooKeeper itself can do, {@link CeilingProbe}), and through the
 * running service's routes and consumers; it prints the routes' ratio to the ceiling. Mode
 * {@code real} runs {@link RealPathBenchmark}. With {@code bench.zookeeper} every part runs against
 * that server (under a fresh chroot) instead of an in-process one. Prints figures; asserts nothing.
 */
public final class QueueBenchmark {
    /** With {@code -Dbench.mode=routes -Dbench.tally=true}: counts the measured walk's ZooKeeper requests. */
    static ZooKeeperTally routesTally;

    public static void main(String[] args) throws Exception {
        int jobs = Integer.getInteger("bench.jobs", 2000);
        int threads = Integer.getInteger("bench.threads", 4);
        System.out.printf(
                "machine: %d cores, java %s, %s%n",
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"),
                System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        String mode = System.getProperty("bench.mode", "queue");
        String external = System.getProperty("bench.zookeeper", "");
        Path dir = BenchDirs.temporary("ingest-bench");
        if ((mode.equals("real") || mode.equals("all")) && Boolean.getBoolean("bench.tally")) {
            // the requests a job sends, counted by a relay in front of an in-process server (not the embedded default)
            try (TestingServer zk = new TestingServer(true);
                    ZooKeeperTally tally = new ZooKeeperTally(zk.getConnectString())) {
                RealPathBenchmark.tally = tally;
                RealPathBenchmark.run(dir.resolve("real"), jobs, chroot(tally.connectString()));
            }
        } else if (mode.equals("real") || mode.equals("all")) {
            RealPathBenchmark.run(dir.resolve("real"), jobs, external.isEmpty() ? null : chroot(external));
        }
        if (mode.equals("routes") && Boolean.getBoolean("bench.tally")) {
            // the requests a job sends through the routes, counted by a relay in front of an in-process server
            try (TestingServer zk = new TestingServer(true);
                    ZooKeeperTally tally = new ZooKeeperTally(zk.getConnectString())) {
                routesTally = tally;
                serviceLevel(tally.connectString(), dir, jobs);
            }
        } else if (mode.equals("queue") || mode.equals("all") || mode.equals("routes")) {
            if (!external.isEmpty()) {
                System.out.printf("zookeeper: external %s%n", external);
                queueLevel(chroot(external), dir, jobs, threads);
            } else {
                System.out.printf(
                        "zookeeper: in-process TestingServer, forceSync=%s%n",
                        System.getProperty("zookeeper.forceSync", "yes"));
                try (TestingServer zk = new TestingServer(true)) {
                    queueLevel(zk.getConnectString(), dir, jobs, threads);
                }
            }
        }
        System.exit(0);
    }

    /** A fresh chroot on an external server, so runs never see each other's queues. */
    static String chroot(String server) throws Exception {
        String root = "/ingest-bench-" + System.currentTimeMillis();
        try (CuratorFramework c = client(server)) {
            c.create().forPath(root);
        }
        return server + root;
    }

    static void queueLevel(String connect, Path dir, int jobs, int threads) throws Exception {
        if (System.getProperty("bench.mode", "").equals("routes")) {
            serviceLevel(connect, dir, jobs); // alone, for a profile of the routes
            return;
        }
        storeLevel(connect, dir, jobs, threads);
        int inFlight = Integer.getInteger("bench.inflight", 64);
        double ceiling;
        try (CuratorFramework c = client(connect)) {
            ceiling = CeilingProbe.run(c, jobs, inFlight);
        }
        System.out.printf(
                "%nceiling probe (%d jobs, one 5-op multi per transition, %d in flight, async)%n", jobs, inFlight);
        System.out.printf("  %.0f transitions/s = %.0f jobs/s%n", ceiling, ceiling / 7);
        double routes = serviceLevel(connect, dir, jobs);
        System.out.printf("%nroutes / ceiling: %.0f / %.0f transitions/s = %.2f%n", routes, ceiling, routes / ceiling);
    }

    static CuratorFramework client(String connect) throws InterruptedException {
        CuratorFramework c = CuratorFrameworkFactory.newClient(connect, new ExponentialBackoffRetry(100, 3));
        c.start();
        c.blockUntilConnected(10, TimeUnit.SECONDS);
        return c;
    }

    static BatchSubmission submission() {
        return new BatchSubmission(
                "demo_content",
                "bench",
                "http://localhost/x",
                null,
                null,
                null,
                null,
                "batch-manifest",
                "add",
                null,
                null,
                null,
                null,
                null,
                null,
                "json",
                null,
                null,
                null);
    }

    static void storeLevel(String connect, Path dir, int n, int threads) throws Exception {
        try (CuratorFramework c = client(connect)) {
            QueueStore store = new QueueStore(c, dir.resolve("a")).start();
            List<NewJob> jobs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                jobs.add(new NewJob(
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
            long t0 = System.nanoTime();
            String bid = store.batches().create(submission());
            HeldBatch lock = store.batches().tryLock(bid, "bench").orElseThrow();
            store.batches().createJobs(lock, jobs);
            store.moves().transition(lock, BatchState.PROCESSING, "bench", null, null);
            double createS = (System.nanoTime() - t0) / 1e9;
            long ops0 = store.operations();
            long t1 = System.nanoTime();
            int transitions = QueueTestSupport.walkToCompleted(store, threads);
            double walkS = (System.nanoTime() - t1) / 1e9;
            System.out.printf("%nstore level (%d jobs, %d threads)%n", n, threads);
            System.out.printf("  create batch of %d jobs: %.2f s (%.0f jobs/s)%n", n, createS, n / createS);
            System.out.printf(
                    "  %d transitions (claim + one multi each): %.2f s = %.0f transitions/s, %.0f jobs/s end to end%n",
                    transitions, walkS, transitions / walkS, n / walkS);
            System.out.printf("  ZooKeeper operations per transition (claim, read, multi ops): %.1f%n",
                    (store.operations() - ops0) / (double) transitions);
        }
    }

    /** Transitions per second through the routes. */
    static double serviceLevel(String connect, Path dir, int n) throws Exception {
        Map<String, String> config = new HashMap<>();
        config.put("zookeeper.connect", connect);
        config.put("ingest.home", dir.resolve("b").toString());
        config.put("ingest.profiles", dir.resolve("profiles").toString());
        config.put("ingest.http.enabled", "false");
        // no-op steps: the routes that call outside services are replaced by the tests' stand-ins
        config.put(
                "camel.main.routes-include-pattern",
                "file:routes/*.yaml,file:src/test/resources/stand-in-routes/*.yaml");
        config.put(
                "camel.main.routes-exclude-pattern",
                "**/processing.yaml,**/storing.yaml,**/recording.yaml,**/notify.yaml");
        // the service's own defaults (application.properties) unless -Dbench.concurrency sets every state
        String concurrency = System.getProperty("bench.concurrency", "the service's defaults");
        if (Integer.getInteger("bench.concurrency") != null) {
            for (String s : List.of(
                    "estimating",
                    "provisioning",
                    "downloading",
                    "processing",
                    "storing",
                    "recording",
                    "notify",
                    "pending")) {
                config.put("ingest.concurrency." + s, concurrency);
            }
        }
        QueueBenchmark.passThrough(config);
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
                "reportStep")) {
            beans.put(b, noop);
        }
        beans.put("reportStep", (Processor) e -> BatchExchange.next(e, BatchState.COMPLETED, "bench"));
        try (IngestService service = new IngestService(config, beans).start()) {
            QueueStore store = service.store();
            Map<String, Long> last = new ConcurrentHashMap<>();
            List<Long> gaps = Collections.synchronizedList(new ArrayList<>());
            AtomicReference<CountDownLatch> finished = new AtomicReference<>();
            AtomicReference<String> ours = new AtomicReference<>("none");
            store.addListener(e -> {
                if (!e.batchId().equals(ours.get())) {
                    return; // the store-level run's batch is reported by this service too
                }
                if (TransitionEvent.JOB.equals(e.kind())) {
                    long now = System.nanoTime();
                    Long before = last.put(e.id(), now);
                    if (before != null && e.from() != null && !e.from().equals("pending")) {
                        gaps.add(now - before);
                    }
                } else if ("completed".equals(e.to())) {
                    finished.get().countDown();
                }
            });
            List<NewJob> jobs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                jobs.add(new NewJob(
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
            System.out.printf(
                    "%nthrough the service's routes (%d jobs, concurrency per state: %s, no-op steps)%n",
                    n, concurrency);
            int warmup = Integer.getInteger("bench.warmup", n);
            if (warmup > 0) {
                // a service runs for days: the first batches after a start also pay for class loading and the JIT
                int w = Math.min(n, warmup);
                ThreadCpu.warmUp(w, "jobs", round -> {
                    double ws = walk(store, ours, finished, jobs.subList(0, w));
                    gaps.clear();
                    return ws;
                });
            }
            // the seconds of one batch move by ±20 % on a shared
            // machine: -Dbench.repeat runs several, the median decides
            int repeat = Math.max(1, Integer.getInteger("bench.repeat", 1));
            List<Double> rates = new ArrayList<>();
            List<Double> cpus = new ArrayList<>();
            for (int run = 1; run <= repeat; run++) {
                long ops0 = store.operations();
                long cpu0 = processCpuNanos();
                ThreadCpu threads0 = ThreadCpu.now();
                if (routesTally != null) {
                    routesTally.reset();
                }
                double s = walk(store, ours, finished, jobs);
                if (routesTally != null) {
                    routesTally.print(n);
                }
                long ops = store.operations() - ops0;
                double cpuMs = (processCpuNanos() - cpu0) / 1e6 / n;
                rates.add(n / s);
                cpus.add(cpuMs);
                System.out.printf("  %squeue released to batch completed: %.2f s = %.0f jobs/s, %.0f transitions/s%n",
                        repeat > 1 ? "run " + run + ": " : "", s, n / s, n * 7 / s);
                System.out.printf(
                        "  ZooKeeper operations per job (job creation included, an op of a multi counts as one):"
                                + " %.1f%n",
                        ops / (double) n);
                System.out.printf(
                        "  process CPU per job (the in-process ZooKeeper server included): %.2f ms (%s)%n",
                        cpuMs, ThreadCpu.now().since(threads0).perJob(n));
            }
            Collections.sort(rates);
            Collections.sort(cpus);
            double rate = rates.get(rates.size() / 2);
            if (repeat > 1) {
                System.out.printf(
                        "  median of %d runs: %.0f jobs/s (%.0f–%.0f), %.2f ms CPU per job (%.2f–%.2f)%n",
                        repeat,
                        rate,
                        rates.get(0),
                        rates.get(rates.size() - 1),
                        cpus.get(cpus.size() / 2),
                        cpus.get(0),
                        cpus.get(cpus.size() - 1));
            }
            List<Long> sorted = new ArrayList<>(gaps);
            Collections.sort(sorted);
            System.out.printf(
                    "  time between a job's consecutive transitions (hand-off + no-op step): median %.1f ms, p90 %.1f"
                            + " ms, p99 %.1f ms%n",
                    pct(sorted, 50), pct(sorted, 90), pct(sorted, 99));

            // an idle queue: one job at a time, so each gap is the hand-off alone
            gaps.clear();
            for (int round = 0; round < 20; round++) {
                CountDownLatch one = new CountDownLatch(1);
                store.holds().holdQueue("bench");
                String single = store.batches().create(submission());
                ours.set(single);
                Consumer<TransitionEvent> done = e -> {
                    if (e.batchId().equals(single)
                            && "completed".equals(e.to())
                            && TransitionEvent.JOB.equals(e.kind())) {
                        one.countDown();
                    }
                };
                store.addListener(done);
                HeldBatch l = store.batches().tryLock(single, "bench").orElseThrow();
                store.batches().createJobs(l, jobs.subList(0, 1));
                store.moves().transition(l, BatchState.PROCESSING, "bench", null, null);
                store.holds().releaseQueue();
                one.await(1, TimeUnit.MINUTES);
                store.removeListener(done);
            }
            List<Long> idle = new ArrayList<>(gaps);
            Collections.sort(idle);
            System.out.printf(
                    "  idle queue, one job at a time (20 jobs): consecutive transitions median %.1f ms, p90 %.1f ms,"
                            + " p99 %.1f ms, max %.1f ms%n",
                    pct(idle, 50), pct(idle, 90), pct(idle, 99), idle.isEmpty() ? 0 : idle.get(idle.size() - 1) / 1e6);
            return rate * 7;
        }
    }

    /** Seconds from releasing the queue to the batch's completion, its jobs created first under a hold. */
    private static double walk(QueueStore store, AtomicReference<String> ours,
                               AtomicReference<CountDownLatch> finished, List<NewJob> jobs) throws Exception {
        finished.set(new CountDownLatch(1));
        store.holds().holdQueue("bench"); // create every job first, then let the service go
        String bid = store.batches().create(submission());
        ours.set(bid);
        HeldBatch lock = store.batches().tryLock(bid, "bench").orElseThrow();
        store.batches().createJobs(lock, jobs);
        store.moves().transition(lock, BatchState.PROCESSING, "bench", null, null);
        long t0 = System.nanoTime();
        store.holds().releaseQueue();
        finished.get().await(30, TimeUnit.MINUTES);
        return (System.nanoTime() - t0) / 1e9;
    }

    /** CPU time of the whole process, every thread: steadier than seconds on a shared machine. */
    static long processCpuNanos() {
        return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /**
     * Settings to try without a rebuild: {@code -Dcamel.main.…} and {@code -Dingest.…} go to the service as they are.
     */
    static void passThrough(Map<String, String> config) {
        System.getProperties().stringPropertyNames().stream()
                .filter(k -> k.startsWith("camel.") || k.startsWith("ingest."))
                .forEach(k -> config.put(k, System.getProperty(k)));
    }

    static double pct(List<Long> sorted, int p) {
        if (sorted.isEmpty()) {
            return 0;
        }
        return sorted.get(Math.min(sorted.size() - 1, sorted.size() * p / 100)) / 1e6;
    }
}
