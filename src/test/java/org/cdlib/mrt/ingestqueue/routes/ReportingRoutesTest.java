package org.cdlib.mrt.ingestqueue.routes;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.camel.builder.AdviceWith;
import org.apache.camel.component.mock.MockEndpoint;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.StatusReport;
import org.cdlib.mrt.ingestqueue.testing.MailServer;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * routes/batch-reporting.yaml and routes/batch-update-reporting.yaml with the real report steps
 * and SMTP mailer: the report mail reaches a real SMTP server (GreenMail) and the batch moves on;
 * while the mail server is down the batch stays where it is, tried again, and is reported once
 * the server is back: a report is never lost.
 */
class ReportingRoutesTest extends RouteTestSupport {
    final MailServer mail = new MailServer();

    @Override
    protected Map<String, String> properties() {
        Map<String, String> p = super.properties();
        mail.addTo(p);
        p.put("ingest.batch.retry-delay", "200");
        return p;
    }

    @AfterEach
    void stopMail() {
        mail.close();
    }

    /** Loads {@code file} with mock:end after its route's last step and mock:smtp seeing every mail sent. */
    MockEndpoint startObserved(String file, String routeId) throws Exception {
        load(file);
        AdviceWith.adviceWith(context, routeId, a -> {
            // the mailer's sends, whether the server answers or not
            a.interceptSendToEndpoint("smtp:*").to("mock:smtp");
            a.weaveAddLast().to("mock:end");
        });
        context.start();
        return getMockEndpoint("mock:end");
    }

    /** A batch of two jobs, one completed, one failed: the store moves it to reporting as its last job ends. */
    String reportingBatch() {
        String bid = QueueTestSupport.batchWithJobs(store, 2, 5);
        List<String> jids = store.batches().jobs(bid, BatchRef.PROCESSING);
        walk(jids.get(0), QueueTestSupport.pipelineTo(JobState.COMPLETED));
        walk(jids.get(1), JobState.ESTIMATING, JobState.FAILED);
        awaitReporting(bid);
        return bid;
    }

    /** The store moved the batch to reporting (the route may have taken it on already). */
    void awaitReporting(String bid) {
        await().atMost(Duration.ofSeconds(5)).until(() -> transitions.stream()
                .anyMatch(t -> t.id().equals(bid) && t.to().equals("reporting") && "processing".equals(t.from())));
    }

    /** A failed batch whose failed job was requeued and completed since, asked for an update report. */
    String updateReportingBatch() {
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        walk(jid, JobState.FAILED);
        awaitReporting(bid);
        store.moves().transition(store.batches().tryLock(bid, "test").orElseThrow(), BatchState.FAILED, "first report",
                new StatusReport(Instant.now().toString(), List.of(jid), List.of(), 1, 1, 0), null);
        AdminActions admin = new AdminActions(store, Clock.systemUTC());
        admin.requeueJob(jid, "operator");
        walk(jid, QueueTestSupport.pipelineTo(JobState.COMPLETED));
        admin.updateReporting(bid, "operator");
        return bid;
    }

    /** What a report route did: the batch, the text of its report mail, and mock:end. */
    record Reported(String bid, String mail, MockEndpoint end) {
    }

    /**
     * Runs {@code file}'s route on the batch {@code setup} makes until the batch is {@code outcome}; the mail it sent.
     */
    Reported reported(String file, String routeId, Supplier<String> setup, BatchState outcome, String subject)
            throws Exception {
        MockEndpoint end = startObserved(file, routeId);
        String bid = setup.get();
        await().atMost(Duration.ofSeconds(10)).until(() -> store.batches().load(bid).state() == outcome);
        return new Reported(bid, MailServer.text(mail.withSubject(subject + bid)), end);
    }

    @Test
    void theReportOfABatchWithAFailedJobIsMailedAndTheBatchFails() throws Exception {
        Reported r = reported("batch-reporting.yaml", "batch-reporting", this::reportingBatch, BatchState.FAILED,
                "Ingest: FAIL -- Submission Processed: ");
        assertTrue(r.mail().contains("Completed jobs: 1") && r.mail().contains("Failed jobs: 1"), r.mail());
        Batch batch = store.batches().load(r.bid());
        assertEquals(1, batch.statusReport().failedJobs().size());
        assertEquals(1, batch.statusReport().successfulJobs().size());
        assertEquals("report: 1 completed, 1 failed", reasonOf(r.bid(), "failed"));
        assertEquals(1, r.end().getReceivedCounter());
        assertEquals(1, getMockEndpoint("mock:smtp").getReceivedCounter(), "one mail: the depositor's one recipient");
    }

    @Test
    void theUpdateReportNamesTheRecoveredJobAndTheBatchCompletes() throws Exception {
        Reported r = reported("batch-update-reporting.yaml", "batch-update-reporting", this::updateReportingBatch,
                BatchState.COMPLETED, "Ingest: OK -- Submission Processed: ");
        assertTrue(r.mail().contains("Update report: 1 job(s) succeeded since the last report"), r.mail());
        assertEquals(2, store.batches().load(r.bid()).statusReport().reports());
        assertEquals(1, r.end().getReceivedCounter());
    }

    @ParameterizedTest
    @CsvSource({
        "batch-reporting.yaml, batch-reporting, reporting",
        "batch-update-reporting.yaml, batch-update-reporting, update-reporting"
    })
    void whileTheMailServerIsDownTheBatchStaysAndIsReportedWhenItIsBack(String file, String routeId, String state)
            throws Exception {
        mail.down();
        MockEndpoint end = startObserved(file, routeId);
        MockEndpoint smtp = getMockEndpoint("mock:smtp");
        String bid = state.equals("reporting") ? reportingBatch() : updateReportingBatch();
        BatchState waiting = BatchState.fromWire(state);
        // tried again after ingest.batch.retry-delay, each time refused, the batch never leaving its state
        await().atMost(Duration.ofSeconds(10)).until(() -> smtp.getReceivedCounter() >= 2);
        assertEquals(waiting, store.batches().load(bid).state());
        assertEquals(0, end.getReceivedCounter(), "the route never ran past the mail");
        assertTrue(
                transitions.stream().noneMatch(t -> t.id().equals(bid) && state.equals(t.from())),
                transitions.toString());
        mail.up();
        await().atMost(Duration.ofSeconds(10)).until(() -> store.batches().load(bid).state() != waiting);
        assertTrue(
                mail.subjects().stream().anyMatch(s -> s.endsWith("Submission Processed: " + bid)),
                mail.subjects().toString());
        assertEquals(1, end.getReceivedCounter());
    }
}
