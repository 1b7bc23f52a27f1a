package org.cdlib.mrt.ingestqueue.routes;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.testing.MailServer;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * routes/batch-reporting.yaml with history's database on a server that goes down: the batch is
 * not reported (no mail, no move: Merritt's cleanup would delete a completed batch history does
 * not hold) until the database is back; then it is reported once, and history holds it.
 */
class HistoryReportingRouteTest extends RouteTestSupport {
    final MailServer mail = new MailServer();
    final int port = freePort();
    Server database;

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Server startDatabase() throws SQLException {
        return Server.createTcpServer("-tcpPort", String.valueOf(port), "-ifNotExists").start();
    }

    @Override
    protected String historyUrl() {
        try {
            database = startDatabase();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return "jdbc:h2:tcp://localhost:" + port + "/" + dir.resolve("history").toAbsolutePath();
    }

    @Override
    protected Map<String, String> properties() {
        Map<String, String> p = super.properties();
        mail.addTo(p);
        p.put("ingest.batch.retry-delay", "200");
        return p;
    }

    @AfterEach
    void stopServers() {
        mail.close();
        if (database != null) {
            database.stop();
        }
    }

    @Test
    void whileHistoryIsDownTheBatchWaitsUnreportedAndIsReportedOnceWhenItIsBack() throws Exception {
        start("batch-reporting.yaml", "batch-reporting");
        history.counts(); // its schema, before it goes down
        database.stop();
        String bid = QueueTestSupport.batchWithJobs(store, 2, 5);
        List<String> jids = store.batches().jobs(bid, BatchRef.PROCESSING);
        for (String jid : jids) {
            walk(jid, QueueTestSupport.pipelineTo(JobState.COMPLETED));
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> !history.status().up());
        // tried again and again (every 200 ms here), never reported while the database is away
        await().atMost(Duration.ofSeconds(20)).until(() -> transitions.stream()
                .filter(t -> t.id().equals(bid) && "reporting".equals(t.to())).count() >= 1);
        assertEquals(BatchState.REPORTING, store.batches().load(bid).state());
        assertTrue(mail.received().isEmpty(), "no mail before history has the batch");

        database = startDatabase();
        await().atMost(Duration.ofSeconds(30)).until(() -> store.batches().load(bid).state() == BatchState.COMPLETED);
        assertEquals(1, mail.received().size(), "reported once");
        assertTrue(history.status().up());
        assertEquals(BatchState.COMPLETED, history.batch(bid).orElseThrow().state());
        assertEquals(2, history.jobs(bid, null, 10).size());
        assertFalse(transitions.stream().anyMatch(t -> t.id().equals(bid) && "failed".equals(t.to())));
    }
}
