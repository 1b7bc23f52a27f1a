package org.cdlib.mrt.ingestqueue.history;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.admin.CleanupResult;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.StatusReport;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Finished work handed over to history before it leaves ZooKeeper: at the report, and checked by
 * the cleanup, which writes only what history does not hold and removes only what it does; a
 * database that is down keeps the work in ZooKeeper until it is back; the window is bounded by a
 * count of finished jobs too.
 */
class HandOverTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    String url;
    HistoryStore history;
    QueueStore store;
    HandOver handOver;

    @BeforeEach
    void open() {
        url = "jdbc:h2:mem:handover" + System.nanoTime() + ";DB_CLOSE_DELAY=-1";
        history = new HistoryStore(url, null, null);
        store = ZK.store(ZK.dir());
        handOver = new HandOver(store, history);
        store.keepBeforeRemoval(handOver::keep);
    }

    @AfterEach
    void close() {
        history.close();
    }

    /** A batch of {@code n} jobs, {@code failed} of them failed, the rest completed: in reporting. */
    String endedBatch(int n, int failed) {
        String bid = QueueTestSupport.batchWithJobs(store, n, 5);
        List<String> jids = store.batches().jobs(bid, BatchRef.PROCESSING);
        for (int i = 0; i < jids.size(); i++) {
            if (i < failed) {
                QueueTestSupport.walk(store, jids.get(i), JobState.ESTIMATING, JobState.FAILED);
            } else {
                QueueTestSupport.walk(store, jids.get(i), QueueTestSupport.pipelineTo(JobState.COMPLETED));
            }
        }
        assertEquals(BatchState.REPORTING, store.batches().load(bid).state());
        return bid;
    }

    /** What the report step does: history first, then the move. */
    Batch report(String bid) {
        Batch batch = store.batches().load(bid);
        StatusReport report = new StatusReport(Instant.now().toString(), List.of(), List.of(), 1,
                0, batch.count(BatchRef.COMPLETED));
        BatchState ending = batch.count(BatchRef.FAILED) == 0 ? BatchState.COMPLETED : BatchState.FAILED;
        handOver.atReport(batch, ending, report);
        HeldBatch lock = store.batches().tryLock(bid, "reporter").orElseThrow();
        return store.moves().transition(lock, ending, "reported", report, null);
    }

    long rows(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, "sa", "");
             Statement s = c.createStatement();
             ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        }
    }

    String writtenAt(String bid) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, "sa", "");
             Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT written_at FROM finished_batches WHERE batch_id = '" + bid + "'")) {
            return r.next() ? r.getString(1) : null;
        }
    }

    @Test
    void historyHoldsTheBatchAndEveryJobAsTheQueueReadThemOnceItIsReported() {
        String bid = endedBatch(3, 1);
        List<Job> live = store.jobs().load(store.batches().load(bid).jobIds());
        Batch reported = report(bid);
        Batch kept = history.batch(bid).orElseThrow();
        assertEquals(BatchState.FAILED, kept.state());
        assertEquals(reported.submission(), kept.submission());
        assertEquals(reported.statusReport(), kept.statusReport());
        for (Job j : live) {
            Job h = history.job(j.id()).orElseThrow();
            assertEquals(new String(QueueJson.write(j), StandardCharsets.UTF_8),
                    new String(QueueJson.write(h), StandardCharsets.UTF_8), "the job as the queue read it");
        }
        assertEquals(3, history.jobs(bid, null, 100).size());
        assertEquals(List.of(live.get(2).id()), history.jobs(bid, live.get(1).id(), 100).stream().map(Job::id)
                .toList(), "paged after a job id");
        assertEquals(new HistoryStore.Mark("failed", 1, 3), history.mark(bid).orElseThrow());
    }

    @Test
    void cleanupRemovesWhatHistoryHoldsWithoutWritingItAgain() throws Exception {
        String bid = endedBatch(4, 0);
        report(bid);
        String written = writtenAt(bid);
        CleanupResult r = new AdminActions(store, Clock.systemUTC()).cleanup(Duration.ZERO);
        assertEquals(new CleanupResult(1, 4), r);
        assertFalse(store.batches().exists(bid));
        assertEquals(written, writtenAt(bid), "history held it as it was: not written twice");
        assertEquals(4, rows("SELECT COUNT(*) FROM finished_jobs WHERE batch_id = '" + bid + "'"));
        assertEquals(1, rows("SELECT COUNT(*) FROM finished_batches"));
    }

    @Test
    void aBatchChangedSinceItsReportIsWrittenAgainAsItIsBeforeItGoes() throws Exception {
        String bid = endedBatch(2, 2);
        report(bid); // failed
        new AdminActions(store, Clock.systemUTC()).deleteBatch(bid, "operator");
        assertFalse(store.batches().exists(bid));
        Batch kept = history.batch(bid).orElseThrow();
        assertEquals(BatchState.DELETED, kept.state(), "the operator's deletion is what history keeps");
        for (String jid : kept.jobIds()) {
            assertEquals(JobState.FAILED, history.job(jid).orElseThrow().state(), "how each job ended, kept");
        }
        assertEquals(2, rows("SELECT COUNT(*) FROM finished_jobs"), "each job once");
    }

    @Test
    void aHandOverCutShortIsFinishedByTheNextPassEachRowOnce() throws Exception {
        String bid = endedBatch(5, 0);
        Batch batch = report(bid);
        // a crash after some jobs were written and before the batch's row (history holds no mark)
        try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement s = c.createStatement()) {
            s.executeUpdate("DELETE FROM finished_batches");
            s.executeUpdate("DELETE FROM finished_jobs WHERE job_id = '" + batch.jobIds().get(4) + "'");
        }
        assertTrue(history.mark(bid).isEmpty());
        // and a crash after history took it and before ZooKeeper's removal: the next pass only removes
        assertTrue(handOver.keep(batch));
        String written = writtenAt(bid);
        assertEquals(new CleanupResult(1, 5), new AdminActions(store, Clock.systemUTC()).cleanup(Duration.ZERO));
        assertEquals(written, writtenAt(bid));
        assertEquals(5, rows("SELECT COUNT(*) FROM finished_jobs"));
        assertEquals(5, rows("SELECT COUNT(DISTINCT job_id) FROM finished_local_ids"));
    }

    @Test
    void whileTheDatabaseIsDownFinishedWorkStaysInZooKeeperAndGoesWhenItIsBack() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        // a database server that keeps its files when it stops, as a real one does
        String dbUrl = "jdbc:h2:tcp://localhost:" + port + "/" + ZK.dir().resolve("down").toAbsolutePath();
        Server server = Server.createTcpServer("-tcpPort", String.valueOf(port), "-ifNotExists").start();
        try (HistoryStore remote = new HistoryStore(dbUrl, null, null)) {
            HandOver over = new HandOver(store, remote);
            store.keepBeforeRemoval(over::keep);
            String bid = endedBatch(2, 0);
            Batch batch = store.batches().load(bid);
            remote.counts(); // the schema is there
            server.stop();
            assertThrows(HistoryUnavailableException.class,
                    () -> over.atReport(batch, BatchState.COMPLETED, null), "reporting waits for history");
            HeldBatch lock = store.batches().tryLock(bid, "reporter").orElseThrow();
            store.moves().transition(lock, BatchState.COMPLETED, "reported", null, null); // as if reported earlier
            AdminActions admin = new AdminActions(store, Clock.systemUTC());
            assertEquals(new CleanupResult(0, 0), admin.cleanup(Duration.ZERO));
            assertTrue(store.batches().exists(bid), "nothing leaves ZooKeeper that history does not hold");
            assertEquals(2, store.jobs().load(store.batches().load(bid).jobIds()).size());
            assertFalse(remote.status().up());
            assertEquals(1, remote.status().waitingCount());
            assertEquals("DOWN", remote.status().view(remote.where()).get("status"));
            assertNotNull(remote.status().view(remote.where()).get("error"));

            server = Server.createTcpServer("-tcpPort", String.valueOf(port), "-ifNotExists").start();
            assertEquals(new CleanupResult(1, 2), admin.cleanup(Duration.ZERO));
            assertTrue(remote.status().up());
            assertEquals(0, remote.status().waitingCount());
            assertFalse(store.batches().exists(bid));
            assertEquals(BatchState.COMPLETED, remote.batch(bid).orElseThrow().state());
        } finally {
            server.stop();
        }
    }

    @Test
    void pastTheCountOfFinishedJobsKeptCompletedBatchesGoOldestFirstFailedOnesWait() {
        List<String> completed = new ArrayList<>();
        String failed = endedBatch(2, 1);
        report(failed);
        for (int i = 0; i < 3; i++) {
            String bid = endedBatch(2 + i, 0);
            report(bid);
            completed.add(bid);
        }
        // 11 finished jobs; keep 6: the two oldest completed batches (2 + 3 jobs) go, young as they are
        CleanupResult r = new AdminActions(store, Clock.systemUTC())
                .cleanup(Duration.ofDays(7), Duration.ofDays(30), 6, () -> true);
        assertEquals(new CleanupResult(2, 5), r);
        assertTrue(store.batches().exists(failed), "a failed batch waits for its operator");
        assertFalse(store.batches().exists(completed.get(0)));
        assertFalse(store.batches().exists(completed.get(1)));
        assertTrue(store.batches().exists(completed.get(2)));
        assertTrue(history.batch(completed.get(1)).isPresent());
        assertEquals(new CleanupResult(0, 0), new AdminActions(store, Clock.systemUTC())
                .cleanup(Duration.ofDays(7), Duration.ofDays(30), 6, () -> true), "within the window now");
    }

    @Test
    void historyForgetsWhatFinishedBeforeItsRetentionAndNothingElse() throws Exception {
        String old = endedBatch(3, 0);
        report(old);
        // the nodes' stamps are to the second: the young batch ends in a later second than the old one
        Instant between = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
        await().until(() -> !Instant.now().isBefore(between));
        String young = endedBatch(2, 1);
        report(young);
        assertEquals(0, history.purge(between.minus(Duration.ofHours(1)), 10));
        assertEquals(1, history.purge(between, 10));
        assertTrue(history.batch(old).isEmpty());
        assertTrue(history.batch(young).isPresent());
        assertEquals(2, rows("SELECT COUNT(*) FROM finished_jobs"), "the young batch's jobs only");
        assertEquals(2, rows("SELECT COUNT(*) FROM finished_local_ids"));
        assertEquals(0, rows("SELECT COUNT(*) FROM finished_words WHERE item_id = '" + old + "'"));
    }

    @Test
    void aFailedJobsOutsideEffectsAreKeptBesideItsRecord() {
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        QueueTestSupport.walk(store, jid, JobState.ESTIMATING, JobState.PROVISIONING, JobState.DOWNLOADING,
                JobState.PROCESSING);
        HeldJob lock = store.claims().tryLockJob(jid, "processor").orElseThrow();
        store.stepWrites().effectStarted(lock, JobEffects.MINT, "demo_content");
        store.moves().transition(lock, JobState.FAILED, Change.failure("the minter refused"));
        report(bid);
        assertTrue(history.effects(jid).orElseThrow().effects().containsKey(JobEffects.MINT),
                "the mint it may have left at the minter, for the operator");
    }
}
