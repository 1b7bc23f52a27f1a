package org.cdlib.mrt.ingestqueue.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntFunction;
import org.cdlib.mrt.ingestqueue.history.HistoryQuery;
import org.cdlib.mrt.ingestqueue.history.HistoryStore;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchStatus;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.model.JobHistory;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.JobStatus;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.StatusReport;

/**
 * Issue 44's lookups: a history database filled with N finished jobs in batches of {@code batch}
 * (bulk JDBC into the Flyway schema: fast to fill; each row as {@link HistoryStore#putJobs} writes
 * it, the record a job's JSON with its eight transitions), then every lookup the API and the
 * dashboard make, through {@link HistoryStore}, timed over {@code lookups} random keys each.
 * Prints the fill rate, the database's size on disk, the median / p99 / max of each lookup.
 *
 * <pre>
 * java -cp target/test-classes:target/classes:&lt;class path&gt; \
 *     org.cdlib.mrt.ingestqueue.bench.HistoryLookupBenchmark [jobs=10000000] [batch=100] [lookups=1000]
 *   -Dbench.history=h2 (an H2 file, the default) | postgres (embedded PostgreSQL)
 *   -Dbench.dir=DIR (where the database goes; a temporary directory, deleted at the end, by default)
 *   -Dbench.checkpoints=1000000,3000000 (the lookups at those sizes too)  -Dbench.compact=true (H2: SHUTDOWN
 *   COMPACT after the fill, its size again)
 * </pre>
 */
public final class HistoryLookupBenchmark {
    /** Words titles are made of: each in about 3 / 10,000 of the titles. */
    private static final int VOCABULARY = 10_000;
    private static final int SUBMITTERS = 100;
    /** Ten years of work: a job finished every ~31 s. */
    private static final Instant FIRST = Instant.parse("2016-01-01T00:00:00Z");
    private static final long SECONDS_PER_JOB = 31;

    public static void main(String[] args) throws Exception {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 10_000_000;
        int batch = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        int lookups = args.length > 2 ? Integer.parseInt(args[2]) : 1000;
        String kind = System.getProperty("bench.history", "h2");
        Path dir = System.getProperty("bench.dir") != null ? Path.of(System.getProperty("bench.dir"))
                : BenchDirs.temporary("ingest-history-lookups");
        System.out.printf("machine: %d cores, java %s; %s; %,d jobs in batches of %d%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), kind, jobs, batch);
        if (kind.equals("postgres")) {
            try (EmbeddedPostgres pg = EmbeddedPostgres.builder().setDataDirectory(dir.resolve("postgres"))
                    .setCleanDataDirectory(true).start()) {
                String url = pg.getJdbcUrl("postgres", "postgres") + "&reWriteBatchedInserts=true";
                run(url, "postgres", jobs, batch, lookups, dir.resolve("postgres"));
            }
        } else {
            run("jdbc:h2:file:" + dir.resolve("history").resolve("history"), "sa", jobs, batch, lookups,
                    dir.resolve("history"));
        }
        System.exit(0);
    }

    static void run(String url, String user, int jobs, int batch, int lookups, Path files) throws Exception {
        try (HistoryStore history = new HistoryStore(url, user, "")) {
            history.counts(); // Flyway's schema
        }
        // -Dbench.checkpoints=1000000,3000000: the lookups measured at those sizes too, on the way to the last
        List<Integer> sizes = new ArrayList<>();
        for (String c : System.getProperty("bench.checkpoints", "").split(",")) {
            if (!c.isBlank() && Integer.parseInt(c.strip()) < jobs) {
                sizes.add(Integer.parseInt(c.strip()));
            }
        }
        sizes.add(jobs);
        boolean h2 = url.startsWith("jdbc:h2:");
        long t0 = System.nanoTime();
        long filling = 0;
        int from = 0;
        for (int size : sizes) {
            long t = System.nanoTime();
            // the fill alone with a cache of 256 MB (H2's default is 16): the lookups below use the service's URL
            fill(h2 ? url + ";CACHE_SIZE=262144" : url, user, from, size, batch, t0);
            filling += System.nanoTime() - t;
            from = size;
            double s = filling / 1e9;
            System.out.printf("%nfilled: %,d jobs and %,d batches in %.0f s = %,.0f jobs/s; on disk %.2f GB%n", size,
                    (size + batch - 1) / batch, s, size / s, ScaleBenchmark.size(files) / 1e9);
            if (h2 && size == jobs && Boolean.getBoolean("bench.compact")) {
                // H2 writes append-only and compacts behind: a fill this fast leaves dead chunks a slow hand-over
                // would not
                t = System.nanoTime();
                try (Connection c = DriverManager.getConnection(url, user, "");
                     PreparedStatement compact = c.prepareStatement("SHUTDOWN COMPACT")) {
                    compact.execute();
                }
                System.out.printf("compacted in %.0f s: on disk %.2f GB%n", (System.nanoTime() - t) / 1e9,
                        ScaleBenchmark.size(files) / 1e9);
            }
            try (Connection c = DriverManager.getConnection(url, user, "")) {
                // the statistics a database running for years has (PostgreSQL's autovacuum, H2's automatic analysis)
                t = System.nanoTime();
                try (PreparedStatement analyze = c.prepareStatement("ANALYZE")) {
                    analyze.execute();
                }
                System.out.printf("analyzed in %.0f s%n", (System.nanoTime() - t) / 1e9);
                if (size == jobs) {
                    plans(c);
                }
            }
            try (HistoryStore history = new HistoryStore(url, user, "")) {
                t = System.nanoTime();
                long[] counts = history.counts();
                System.out.printf("history holds %,d batches, %,d jobs (counted in %.0f ms)%n", counts[0], counts[1],
                        (System.nanoTime() - t) / 1e6);
                lookups(history, size, batch, lookups);
            }
        }
        System.out.printf("on disk after the lookups: %.2f GB%n", ScaleBenchmark.size(files) / 1e9);
    }

    /** Every lookup {@code n} times on random keys (after 100 to warm up), its median, p99 and max. */
    static void lookups(HistoryStore history, int jobs, int batch, int n) {
        int batches = (jobs + batch - 1) / batch;
        Map<String, IntFunction<Integer>> lookups = new LinkedHashMap<>();
        Random r = new Random(44);
        lookups.put("job(jid)", i -> history.job(jid(r.nextInt(jobs))).map(j -> 1).orElse(0));
        lookups.put("batch(bid)", i -> history.batch(bid(r.nextInt(batches))).map(b -> 1).orElse(0));
        lookups.put("jobs(bid, null, 100)", i -> history.jobs(bid(r.nextInt(batches)), null, 100).size());
        lookups.put("jobs(bid, after 50th, 100)", i -> {
            int b = r.nextInt(batches);
            return history.jobs(bid(b), jid(b * batch + batch / 2), 100).size();
        });
        lookups.put("search ARK", i -> history.search(query(ark(r.nextInt(jobs)), null, null, null)).size());
        lookups.put("search local id", i -> history.search(query(localId(r.nextInt(jobs)), null, null, null)).size());
        lookups.put("search one title word", i -> history.search(query(word(r.nextInt(VOCABULARY)), null, null,
                null)).size());
        lookups.put("search two title words", i -> {
            String title = title(r.nextInt(jobs));
            return history.search(query(title.substring(0, title.lastIndexOf(' ')), null, null, null)).size();
        });
        lookups.put("search submitter", i -> history.search(query(null, submitter(r.nextInt(SUBMITTERS)), null,
                null)).size());
        lookups.put("search a day", i -> {
            Instant from = finished(r.nextInt(jobs));
            return history.search(query(null, null, from, from.plus(Duration.ofDays(1)))).size();
        });
        lookups.put("search a year", i -> {
            Instant from = finished(r.nextInt(jobs));
            return history.search(query(null, null, from, from.plus(Duration.ofDays(365)))).size();
        });
        lookups.put("search submitter + a month", i -> {
            Instant from = finished(r.nextInt(jobs));
            return history.search(query(null, submitter(r.nextInt(SUBMITTERS)), from,
                    from.plus(Duration.ofDays(30)))).size();
        });
        lookups.put("search title word + a year", i -> {
            Instant from = finished(r.nextInt(jobs));
            return history.search(query(word(r.nextInt(VOCABULARY)), null, from,
                    from.plus(Duration.ofDays(365)))).size();
        });
        System.out.printf("%-30s %10s %10s %10s %12s%n", "lookup (" + n + " each)", "median ms", "p99 ms", "max ms",
                "rows/lookup");
        for (Map.Entry<String, IntFunction<Integer>> l : lookups.entrySet()) {
            for (int i = 0; i < 100; i++) {
                l.getValue().apply(i);
            }
            List<Long> times = new ArrayList<>();
            long rows = 0;
            for (int i = 0; i < n; i++) {
                long t = System.nanoTime();
                rows += l.getValue().apply(i);
                times.add(System.nanoTime() - t);
            }
            times.sort(null);
            System.out.printf("%-30s %10.2f %10.2f %10.2f %12.1f%n", l.getKey(), QueueBenchmark.pct(times, 50),
                    QueueBenchmark.pct(times, 99), times.get(times.size() - 1) / 1e6, rows / (double) n);
        }
    }

    private static HistoryQuery query(String text, String submitter, Instant from, Instant to) {
        return new HistoryQuery(text, submitter, from, to, null, HistoryStore.MAX_RESULTS);
    }

    // ------------------------------------------------------------------ the fill

    /**
     * Rows as {@link HistoryStore} writes them, sent in JDBC batches, committed every 10,000 jobs; each
     * index written in its key's order (the jobs, local ids, ARKs and times ascend with the job; title
     * words are written word by word afterwards), so the fill appends instead of reading pages back.
     */
    static void fill(String url, String user, int first, int jobs, int batch, long t0) throws SQLException {
        String job = new String(QueueJson.write(templateJob()), UTF_8);
        String batchRecord = new String(QueueJson.write(templateBatch(batch)), UTF_8);
        try (Connection c = DriverManager.getConnection(url, user, "")) {
            c.setAutoCommit(false);
            try (PreparedStatement j = c.prepareStatement("INSERT INTO finished_jobs"
                    + " (job_id, batch_id, state, ark, title, finished_at, record) VALUES (?, ?, ?, ?, ?, ?, ?)");
                 PreparedStatement l = c.prepareStatement(
                         "INSERT INTO finished_local_ids (local_id, job_id) VALUES (?, ?)");
                 PreparedStatement b = c.prepareStatement("INSERT INTO finished_batches (batch_id, state, reports,"
                         + " submitter, profile, title, submitted_at, finished_at, jobs, completed_jobs, failed_jobs,"
                         + " written_at, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                for (int i = first; i < jobs; i++) {
                    String jid = jid(i);
                    String title = title(i);
                    j.setString(1, jid);
                    j.setString(2, bid(i / batch));
                    j.setString(3, JobState.COMPLETED.wire());
                    j.setString(4, ark(i));
                    j.setString(5, title);
                    j.setObject(6, finished(i).atOffset(ZoneOffset.UTC));
                    j.setString(7, job.replace("JID", jid).replace("BID", bid(i / batch))
                            .replace("ARK", ark(i)).replace("LOCAL", localId(i)).replace("TITLE", title));
                    j.addBatch();
                    l.setString(1, localId(i));
                    l.setString(2, jid);
                    l.addBatch();
                    if (i % batch == batch - 1 || i == jobs - 1) {
                        int n = i / batch;
                        b.setString(1, bid(n));
                        b.setString(2, BatchState.COMPLETED.wire());
                        b.setInt(3, 1);
                        b.setString(4, submitter(n % SUBMITTERS));
                        b.setString(5, "demo_content");
                        b.setString(6, batchTitle(n));
                        b.setObject(7, finished(n * batch).atOffset(ZoneOffset.UTC));
                        b.setObject(8, finished(i).atOffset(ZoneOffset.UTC));
                        b.setInt(9, i % batch + 1);
                        b.setInt(10, i % batch + 1);
                        b.setInt(11, 0);
                        b.setObject(12, finished(i).atOffset(ZoneOffset.UTC));
                        b.setString(13, batchRecord.replace("BID", bid(n)).replace("TITLE", batchTitle(n)));
                        b.addBatch();
                    }
                    if (i % 10_000 == 9_999 || i == jobs - 1) {
                        j.executeBatch();
                        l.executeBatch();
                        b.executeBatch();
                        c.commit();
                    }
                    if (i % 1_000_000 == 999_999) {
                        System.out.printf("  %,d jobs %.0f s after the start%n", i + 1, (System.nanoTime() - t0) / 1e9);
                    }
                }
            }
            words(c, first, jobs, batch);
            System.out.printf("  their title words %.0f s after the start%n", (System.nanoTime() - t0) / 1e9);
        }
    }

    /** The title words of jobs {@code first} .. {@code jobs - 1} and of their batches, word by word. */
    private static void words(Connection c, int first, int jobs, int batch) throws SQLException {
        // the jobs of each word, ascending: three words a title
        int[] count = new int[VOCABULARY];
        for (int i = first; i < jobs; i++) {
            for (int w : titleWords(i)) {
                count[w]++;
            }
        }
        int[][] items = new int[VOCABULARY][];
        for (int w = 0; w < VOCABULARY; w++) {
            items[w] = new int[count[w]];
            count[w] = 0;
        }
        for (int i = first; i < jobs; i++) {
            for (int w : titleWords(i)) {
                items[w][count[w]++] = i;
            }
        }
        try (PreparedStatement w = c.prepareStatement("INSERT INTO finished_words (word, item_id) VALUES (?, ?)")) {
            int rows = 0;
            for (int word = 0; word < VOCABULARY; word++) {
                for (int i : items[word]) {
                    w.setString(1, word(word));
                    w.setString(2, jid(i));
                    w.addBatch();
                    if (++rows % 10_000 == 0) {
                        w.executeBatch();
                        c.commit();
                    }
                }
            }
            // a batch's title: "batch", one word of the vocabulary, its number
            for (int n = first / batch; n < (jobs + batch - 1) / batch; n++) {
                for (String word : batchTitle(n).split(" ")) {
                    w.setString(1, word);
                    w.setString(2, bid(n));
                    w.addBatch();
                }
                if (n % 3_000 == 0) {
                    w.executeBatch();
                    c.commit();
                }
            }
            w.executeBatch();
            c.commit();
        }
    }

    static String jid(int i) {
        return String.format("jid%010d", i + 1);
    }

    static String bid(int n) {
        return String.format("bid%010d", n + 1);
    }

    static String ark(int i) {
        return "ark:/99999/fk4" + Integer.toString(i + 1_000_000, 36);
    }

    /** Zero-padded, so they ascend with the job (the fill appends to their index). */
    static String localId(int i) {
        return String.format("local-%09d", i);
    }

    static String submitter(int n) {
        return "depositor" + n;
    }

    static String word(int n) {
        return "w" + Integer.toString(n + 50_000, 36);
    }

    /** Three different words of the vocabulary (each in ~3 of 10,000 titles), as a title search finds them. */
    static String title(int i) {
        int[] w = titleWords(i);
        return word(w[0]) + " " + word(w[1]) + " " + word(w[2]);
    }

    static int[] titleWords(int i) {
        long h = (i + 1) * 0x9E3779B97F4A7C15L;
        int a = (int) ((h >>> 20) % VOCABULARY);
        int b = (int) ((h >>> 34) % (VOCABULARY - 1));
        int c = (int) ((h >>> 48) % (VOCABULARY - 2));
        b = b >= a ? b + 1 : b; // three different words
        c = c >= Math.min(a, b) ? c + 1 : c;
        c = c >= Math.max(a, b) ? c + 1 : c;
        return new int[] {a, b, c};
    }

    static String batchTitle(int n) {
        return "batch " + word(n % VOCABULARY) + " " + n;
    }

    static Instant finished(int i) {
        return FIRST.plusSeconds(i * SECONDS_PER_JOB);
    }

    /** A completed job as the routes leave it: its configuration, identifiers and eight transitions. */
    static Job templateJob() {
        JobConfiguration config = new JobConfiguration("BID", "demo_content", "depositor0",
                "https://bench.invalid/files/LOCAL.zip", "file", "json", "add", null, "LOCAL", "LOCAL.zip", "md5",
                "0123456789abcdef0123456789abcdef", 123_456L, "A. Depositor", "TITLE", "2024", null, null);
        List<JobHistory.Entry> transitions = new ArrayList<>();
        JobState from = null;
        for (JobState to : List.of(JobState.PENDING, JobState.ESTIMATING, JobState.PROVISIONING,
                JobState.DOWNLOADING, JobState.PROCESSING, JobState.STORING, JobState.RECORDING, JobState.NOTIFY,
                JobState.COMPLETED)) {
            transitions.add(new JobHistory.Entry("2024-05-01T10:00:00.123456Z", from == null ? null : from.wire(),
                    to.wire(), "ingest-1/worker-" + to.wire(), null));
            from = to;
        }
        JobStatus status = new JobStatus(JobState.COMPLETED.zk(), JobState.NOTIFY.zk(), "2024-05-01T10:00:01.000Z",
                0, null, transitions);
        return new Job("JID", "BID", config, status, 5, 123_456L, new Identifiers("ARK", List.of("LOCAL")), 9, null);
    }

    static Batch templateBatch(int jobs) {
        BatchStatus status = new BatchStatus(BatchState.COMPLETED.zk(), "2024-05-01T10:00:02.000Z", jobs, null,
                null, null, null);
        return new Batch("BID", QueueBenchmark.submission(), status,
                new StatusReport("2024-05-01T10:00:02.000Z", List.of(), List.of(), 1, 0, jobs),
                Map.of(BatchRef.COMPLETED, jobs), 3, null, 0, 0);
    }

    /** The plans of the searches that read more than one key (HistorySearch's statements, written out). */
    static void plans(Connection c) throws SQLException {
        String jobs = "SELECT j.job_id, j.batch_id, j.state, j.title, j.finished_at FROM finished_jobs j WHERE 1 = 1";
        String batches = "SELECT b.batch_id, b.batch_id, b.state, b.title, b.finished_at FROM finished_batches b"
                + " WHERE 1 = 1";
        String word = " AND j.job_id IN (SELECT item_id FROM finished_words WHERE word = ?)";
        String range = " AND %s.finished_at >= ? AND %s.finished_at < ?";
        Object from = finished(0).atOffset(ZoneOffset.UTC);
        Object to = finished(0).plus(Duration.ofDays(365)).atOffset(ZoneOffset.UTC);
        explain(c, "one title word", jobs + word + " ORDER BY j.job_id DESC LIMIT 100", word(1));
        explain(c, "two title words", jobs + word + word + " ORDER BY j.job_id DESC LIMIT 100", word(1), word(2));
        explain(c, "title word + a year", jobs + word + range.formatted("j", "j") + " ORDER BY j.job_id DESC LIMIT 100",
                word(1), from, to);
        explain(c, "submitter", batches + " AND b.submitter = ? ORDER BY b.batch_id DESC LIMIT 100", submitter(1));
        explain(c, "a year", batches + range.formatted("b", "b") + " ORDER BY b.batch_id DESC LIMIT 100", from, to);
    }

    private static void explain(Connection c, String name, String sql, Object... params) throws SQLException {
        System.out.printf("plan, %s:%n", name);
        try (PreparedStatement s = c.prepareStatement("EXPLAIN " + sql)) {
            for (int i = 0; i < params.length; i++) {
                s.setObject(i + 1, params[i]);
            }
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    System.out.println("  " + r.getString(1).replace("\n", "\n  "));
                }
            }
        }
    }
}
