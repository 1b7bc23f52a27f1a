package org.cdlib.mrt.ingestqueue.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.cdlib.mrt.ingestqueue.api.reads.Search;
import org.cdlib.mrt.ingestqueue.history.HistoryStore;
import org.cdlib.mrt.ingestqueue.history.OpenIndexPass;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.model.NewJob;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;

/**
 * Issue 45's search of open work: {@code batches} batches of {@code jobs} open jobs in an in-process
 * ZooKeeper, the search index filled by its pass (passes, seconds, jobs a second), then searches by a
 * random local id and by title words, timed (median, p99, max), each with how many requests the scan
 * alone needed to find the same job (the search before the index).
 *
 * <pre>
 * java -Djute.maxbuffer=524288 -cp target/test-classes:target/classes:&lt;class path&gt; \
 *     org.cdlib.mrt.ingestqueue.bench.OpenIndexBenchmark [batches=40] [jobs=500] [searches=200]
 * </pre>
 */
public final class OpenIndexBenchmark {
    /** Searches also made by the scan alone (each up to a few dozen requests of 500 jobs). */
    private static final int SCANNED = 10;

    public static void main(String[] args) throws Exception {
        int batches = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        int jobs = args.length > 1 ? Integer.parseInt(args[1]) : 500;
        int searches = args.length > 2 ? Integer.parseInt(args[2]) : 200;
        Path home = Files.createTempDirectory("open-index-bench");
        try (TestingServer zk = new TestingServer(true);
             CuratorFramework client = QueueTestSupport.client(zk);
             HistoryStore history = new HistoryStore("jdbc:h2:file:" + home.resolve("history"), null, null)) {
            QueueStore store = QueueTestSupport.store(client, home);
            long t0 = System.nanoTime();
            for (int b = 0; b < batches; b++) {
                batch(store, b, jobs);
            }
            System.out.printf("made %,d open jobs in %d batches: %.1f s%n", batches * jobs, batches,
                    (System.nanoTime() - t0) / 1e9);

            OpenIndexPass pass = new OpenIndexPass(store, history.open());
            long t1 = System.nanoTime();
            int passes = 0;
            do {
                pass.run();
                passes++;
            } while (!history.open().toLookAt(false, 1).isEmpty());
            double s = (System.nanoTime() - t1) / 1e9;
            System.out.printf("indexed by %d passes in %.1f s of work (%,.0f jobs/s; the route runs a pass every "
                    + "2 s)%n", passes, s, batches * jobs / s);

            Search indexed = new Search(store, history);
            Search scanOnly = new Search(store, null);
            Random r = new Random(45);
            long[] byLocal = new long[searches];
            long[] byTitle = new long[searches];
            int[] scanRequests = new int[searches];
            for (int i = 0; i < searches; i++) {
                int b = r.nextInt(batches);
                int j = r.nextInt(jobs);
                long a = System.nanoTime();
                found(indexed, "loc-" + b + "-" + j);
                byLocal[i] = System.nanoTime() - a;
                a = System.nanoTime();
                found(indexed, "letter " + b + "-" + j + " vellum");
                byTitle[i] = System.nanoTime() - a;
                if (i < SCANNED) {
                    scanRequests[i] = requests(scanOnly, "loc-" + b + "-" + j);
                }
            }
            print("by local id, indexed", byLocal);
            print("by title words, indexed", byTitle);
            int[] scanned = Arrays.copyOf(scanRequests, Math.min(SCANNED, searches));
            Arrays.sort(scanned);
            System.out.printf("the scan alone (the first %d jobs): %d request(s) median, %d max to find the same job "
                    + "(1 with the index)%n", scanned.length, scanned[scanned.length / 2], scanned[scanned.length - 1]);
        } finally {
            try (Stream<Path> files = Files.walk(home)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    static void batch(QueueStore store, int b, int n) {
        BatchSubmission s = new BatchSubmission("demo_content", "bench", "http://localhost/m.checkm", "Box " + b,
                "who", null, null, "batch-manifest", "add", null, null, null, null, null, null, "json", null,
                Instant.now().toString(), Map.of());
        String bid = store.batches().create(s);
        HeldBatch lock = store.batches().tryLock(bid, "bench").orElseThrow();
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String local = "loc-" + b + "-" + i;
            JobConfiguration c = new JobConfiguration(null, "demo_content", "bench", "http://localhost/" + local,
                    "object_manifest", "json", "add", null, local, null, null, null, null, "who",
                    "Letter " + b + "-" + i + " on vellum", "when", null, Map.of());
            jobs.add(new NewJob(c, new Identifiers(null, List.of(local)), 5));
        }
        store.batches().createJobs(lock, jobs);
        store.moves().transition(lock, BatchState.PROCESSING, "jobs created", null, null);
    }

    static void found(Search search, String q) {
        Map<String, Object> a = search.find(Search.Terms.of(q, null, null, null), null, 0, null);
        if (((List<?>) a.get("results")).isEmpty()) {
            throw new IllegalStateException("not found in one request: " + q + " " + a);
        }
    }

    /** Requests the scan alone makes until the job is among the results. */
    static int requests(Search search, String q) {
        String before = null;
        int skip = 0;
        for (int n = 1; ; n++) {
            Map<String, Object> a = search.find(Search.Terms.of(q, null, null, null), before, skip, null);
            if (!((List<?>) a.get("results")).isEmpty() || !a.containsKey("next")) {
                return n;
            }
            String next = (String) a.get("next");
            String cursor = next.replaceAll(".*[?&]before=([^&]*).*", "$1");
            before = cursor;
            skip = next.contains("&skip=") ? Integer.parseInt(next.replaceAll(".*&skip=(\\d+).*", "$1")) : 0;
        }
    }

    static void print(String what, long[] nanos) {
        Arrays.sort(nanos);
        System.out.printf("%s: median %.1f ms, p99 %.1f ms, max %.1f ms (%d searches)%n", what,
                nanos[nanos.length / 2] / 1e6, nanos[(int) (nanos.length * 0.99)] / 1e6, nanos[nanos.length - 1] / 1e6,
                nanos.length);
    }
}
