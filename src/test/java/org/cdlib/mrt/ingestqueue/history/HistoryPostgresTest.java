package org.cdlib.mrt.ingestqueue.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.admin.CleanupResult;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueueTime;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * History on PostgreSQL, the database hosts that share the work share: Flyway's schema, the
 * searches, and two hosts handing the same batch over at once (each row once, the batch gone once).
 */
class HistoryPostgresTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    static EmbeddedPostgres pg;

    @BeforeAll
    static void start() throws Exception {
        pg = EmbeddedPostgres.builder().start();
    }

    @AfterAll
    static void stop() throws Exception {
        pg.close();
    }

    /** A fresh database for each test on the one server. */
    static String database(String name) throws SQLException {
        try (Connection c = pg.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
        return pg.getJdbcUrl("postgres", name);
    }

    static long rows(String url, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
             ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        }
    }

    /** A completed batch of {@code n} jobs, each with an ARK, titled "Letters of Ada, part i", reported. */
    static String reportedBatch(QueueStore store, HandOver handOver, int n) {
        String bid = QueueTestSupport.batchWithJobs(store, n, 5);
        List<String> jids = store.batches().jobs(bid, BatchRef.PROCESSING);
        for (int i = 0; i < n; i++) {
            String jid = jids.get(i);
            QueueTestSupport.walkToNotifyWithEffects(store, jid,
                    new Identifiers("ark:/99999/fk4" + bid + "x" + i, List.of("loc" + i)), "ark:/99999/fk4" + i);
            HeldJob l = store.claims().tryLockJob(jid, "w").orElseThrow();
            store.moves().transition(l, JobState.COMPLETED, Change.because("notified"));
        }
        var batch = store.batches().load(bid);
        handOver.atReport(batch, BatchState.COMPLETED, null);
        HeldBatch lock = store.batches().tryLock(bid, "reporter").orElseThrow();
        store.moves().transition(lock, BatchState.COMPLETED, "reported", null, null);
        return bid;
    }

    @Test
    void searchesFindFinishedWorkByArkLocalIdTitleSubmitterAndDate() throws Exception {
        String url = database("search");
        QueueStore store = ZK.store(ZK.dir());
        try (HistoryStore history = new HistoryStore(url, "postgres", "postgres")) {
            HandOver handOver = new HandOver(store, history);
            String bid = reportedBatch(store, handOver, 3);
            String jid = store.batches().load(bid).jobIds().get(1);
            Instant now = Instant.now();

            List<HistoryHit> byArk = history.search(new HistoryQuery("ark:/99999/fk4" + bid + "x1", null, null, null,
                    null, 10));
            assertEquals(List.of(jid), byArk.stream().map(HistoryHit::id).toList());
            assertEquals("ARK", byArk.get(0).matched());
            assertEquals(bid, byArk.get(0).batchId());
            assertEquals("completed", byArk.get(0).state());

            assertEquals(List.of(jid), history.search(new HistoryQuery("loc1", null, null, null, null, 10)).stream()
                    .filter(h -> h.matched().equals("local id")).map(HistoryHit::id).toList());
            // the jobs' own title ("what") and the batch's ("title"), as words, any case
            assertEquals(3, history.search(new HistoryQuery("WHAT", null, null, null, null, 10)).stream()
                    .filter(h -> h.kind().equals("job")).count());
            assertEquals(List.of(bid), history.search(new HistoryQuery("Title", null, null, null, null, 10)).stream()
                    .filter(h -> h.kind().equals("batch")).map(HistoryHit::id).toList());
            assertEquals(List.of(bid), history.search(new HistoryQuery(null, "tester", null, null, null, 10)).stream()
                    .map(HistoryHit::id).toList());
            assertTrue(history.search(new HistoryQuery(null, "someone else", null, null, null, 10)).isEmpty());
            assertEquals(1, history.search(new HistoryQuery(null, null, now.minus(Duration.ofHours(1)),
                    now.plus(Duration.ofHours(1)), null, 10)).size());
            assertTrue(history.search(new HistoryQuery(null, null, now.plus(Duration.ofHours(1)), null, null, 10))
                    .isEmpty(), "finished before the range");
            List<HistoryHit> page = history.search(new HistoryQuery("what", null, null, null, "jid9999999999", 2));
            assertEquals(2, page.size(), "a page of jobs, newest first");
            assertEquals(1, history.search(new HistoryQuery("what", null, null, null, page.get(1).id(), 2)).size(),
                    "the next page: below the last one shown");
            assertThrows(IllegalArgumentException.class, () -> new HistoryQuery(" ", null, null, null, null, 10));
            assertTrue(QueueTime.parse(history.batch(bid).orElseThrow().status().lastModified()) != null);
        }
    }

    @Test
    void twoHostsHandingOverOneBatchAtOnceLeaveEachRowOnceAndTheBatchGone() throws Exception {
        String url = database("twohosts");
        QueueStore one = ZK.store(ZK.dir());
        QueueStore two = QueueTestSupport.store(ZK.otherClient(), ZK.dir());
        int n = 40;
        try (HistoryStore h1 = new HistoryStore(url, "postgres", "postgres");
             HistoryStore h2 = new HistoryStore(url, "postgres", "postgres")) {
            HandOver o1 = new HandOver(one, h1);
            HandOver o2 = new HandOver(two, h2);
            one.keepBeforeRemoval(o1::keep);
            two.keepBeforeRemoval(o2::keep);
            String bid = QueueTestSupport.batchWithJobs(one, n, 5);
            for (String jid : one.batches().jobs(bid, BatchRef.PROCESSING)) {
                QueueTestSupport.walk(one, jid, QueueTestSupport.pipelineTo(JobState.COMPLETED));
            }
            HeldBatch lock = one.batches().tryLock(bid, "reporter").orElseThrow();
            one.moves().transition(lock, BatchState.COMPLETED, "reported", null, null); // history has none of it
            h1.counts(); // both hosts' schema check done before the race: Flyway's own lock is not under test
            h2.counts();

            CountDownLatch go = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                Future<CleanupResult> a = pool.submit(() -> {
                    go.await();
                    return new AdminActions(one, Clock.systemUTC()).cleanup(Duration.ZERO);
                });
                Future<CleanupResult> b = pool.submit(() -> {
                    go.await();
                    return new AdminActions(two, Clock.systemUTC()).cleanup(Duration.ZERO);
                });
                go.countDown();
                a.get();
                b.get();
            } finally {
                pool.shutdown();
            }
            // a host that met the other's locks leaves the rest to its next pass; both passes again, as timers do
            new AdminActions(one, Clock.systemUTC()).cleanup(Duration.ZERO);
            assertFalse(one.batches().exists(bid));
            assertEquals(n, rows(url, "SELECT COUNT(*) FROM finished_jobs"));
            assertEquals(n, rows(url, "SELECT COUNT(DISTINCT job_id) FROM finished_jobs"));
            assertEquals(n, rows(url, "SELECT COUNT(*) FROM finished_local_ids"));
            assertEquals(1, rows(url, "SELECT COUNT(*) FROM finished_batches"));
            assertEquals(1, rows(url, "SELECT COUNT(*) FROM finished_words WHERE word = 'title'"));
            assertEquals(BatchState.COMPLETED, h1.batch(bid).orElseThrow().state());
        }
    }
}
