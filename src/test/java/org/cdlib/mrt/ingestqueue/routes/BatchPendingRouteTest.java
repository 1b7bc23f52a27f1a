package org.cdlib.mrt.ingestqueue.routes;

import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.ok;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.component.mock.MockEndpoint;
import org.cdlib.mrt.ingestqueue.camel.BatchExchange;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.testing.MailServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * routes/batch-pending.yaml with the real batchPendingStep and queuedMailStep: a manifest from
 * WireMock becomes one job per row and the depositor's "queued" mail reaches a real SMTP server;
 * a corrupt manifest sends the batch to reporting with the line and the problem, and no job, no mail.
 */
class BatchPendingRouteTest extends RouteTestSupport {
    final MailServer mail = new MailServer();

    @Override
    protected Map<String, String> properties() {
        Map<String, String> p = super.properties();
        mail.addTo(p);
        return p;
    }

    @AfterEach
    void stopMail() {
        mail.close();
    }

    static final String HEADER = "#%checkm_0.7\n"
            + "#%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-single-file-batch-manifest\n"
            + "#%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileLastModified |"
            + " nfo:fileName\n";

    /** A single-file batch manifest with {@code rows}, served by WireMock, submitted; the route consumes it. */
    Batch submitted(String rows, BatchState until) throws Exception {
        MockEndpoint end = start("batch-pending.yaml", "batch-pending");
        HTTP.stubFor(get(urlEqualTo("/batch.checkm")).willReturn(ok(HEADER + rows + "#%eof\n")));
        String bid = store.batches().create(submission(HTTP.baseUrl() + "/batch.checkm", "single-file-batch-manifest"));
        await().atMost(Duration.ofSeconds(10)).until(() -> store.batches().load(bid).state() == until);
        // the last decided: before it, the batch may have stayed while its manifest was read
        List<Exchange> all = end.getReceivedExchanges();
        Exchange seen = all.get(all.size() - 1);
        assertEquals(bid, seen.getIn().getHeader("batchId"));
        assertEquals(until, BatchExchange.next(seen));
        return store.batches().load(bid);
    }

    @Test
    void aManifestBatchBecomesOneJobPerRowAndTheDepositorHearsItIsQueued() throws Exception {
        String f = HTTP.baseUrl() + "/files/";
        Batch batch = submitted(f + "a.txt | md5 | 0cc175b9c0f1b6a831c399e269772661 | 1 | | a.txt\n"
                + f + "b.txt | | | | | b.txt\n", BatchState.PROCESSING);
        List<Job> jobs = store.jobs().load(store.batches().jobs(batch.id(), BatchRef.PROCESSING));
        assertEquals(
                List.of(f + "a.txt", f + "b.txt"),
                jobs.stream().map(j -> j.configuration().payloadUrl()).sorted().toList());
        assertTrue(jobs.stream()
                .allMatch(j -> j.state() == JobState.PENDING
                        && j.configuration().payloadType().equals("file")));
        assertEquals(
                "0cc175b9c0f1b6a831c399e269772661",
                jobs.stream()
                        .filter(j -> j.configuration().fileName().equals("a.txt"))
                        .findFirst()
                        .orElseThrow()
                        .configuration()
                        .digestValue());
        await().atMost(Duration.ofSeconds(5)).until(() -> !mail.subjects().isEmpty());
        String body = MailServer.text(mail.withSubject("Ingest: OK -- Submission Queued: " + batch.id()));
        assertTrue(body.contains("Jobs queued: 2"), body);
    }

    @Test
    void aCorruptManifestSendsTheBatchToReportingNamingTheLineWithNoJobAndNoQueuedMail() throws Exception {
        Batch batch = submitted(HTTP.baseUrl() + "/files/a.txt | crc99 | 1234 | | | a.txt\n", BatchState.REPORTING);
        String error = batch.status().errorMessage();
        assertTrue(error.startsWith("manifest line 4: ") && error.contains("crc99"), error);
        assertEquals("submission refused: " + error, reasonOf(batch.id(), "reporting"));
        assertEquals(0, batch.jobCount());
        assertEquals(List.of(), mail.subjects(), "no queued mail for a refused submission");
    }

    static BatchSubmission by(String submitter, String url, String type) {
        return new BatchSubmission("demo_content", submitter, url, "t", "w", null, null, type,
                "add", null, null, null, null, null, null, "json", null, "2026-11-22T10:00:00Z", null);
    }

    /**
     * One depositor's batches name no type and their server sends a byte every 2 s: choosing the
     * type would take hours. Another depositor's batches, submitted after them, still get their
     * jobs within seconds (the route's own defaults, no test setting): a slow server's read holds
     * its own batches only, never the workers or the read threads every depositor shares.
     */
    @Test
    void aTricklingPayloadServerHoldsUpOnlyItsOwnDepositorsBatches() throws Exception {
        try (TrickleServer trickle = new TrickleServer(2_000)) {
            start("batch-pending.yaml", "batch-pending");
            List<String> slow = new ArrayList<>();
            for (int i = 0; i < 6; i++) { // more than the workers and the depositor's share of read threads
                slow.add(store.batches().create(by("slow", trickle.url("/payload-" + i), "auto")));
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> trickle.requests.get() >= 2);
            String f = HTTP.baseUrl() + "/files/";
            HTTP.stubFor(
                    get(urlEqualTo("/other.checkm")).willReturn(ok(HEADER + f + "c.txt | | | | | c.txt\n#%eof\n")));
            String manifest =
                    store.batches().create(by("other", HTTP.baseUrl() + "/other.checkm", "single-file-batch-manifest"));
            String guessed = store.batches().create(by("other", HTTP.baseUrl() + "/other.checkm", "auto"));
            String file = store.batches().create(by("other", HTTP.baseUrl() + "/files/d.txt", "file"));
            // the trickle's 8 KB would take 4.5 hours; other depositors' batches are not behind it
            await().atMost(Duration.ofSeconds(20)).until(() -> List.of(manifest, guessed, file).stream()
                    .allMatch(b -> store.batches().load(b).state() == BatchState.PROCESSING));
            assertEquals(1, store.batches().load(guessed).jobCount());
            for (String b : slow) {
                Batch batch = store.batches().load(b);
                assertEquals(BatchState.PENDING, batch.state(), "still being read: " + b);
                assertEquals(0, batch.jobCount());
            }
            assertTrue(
                    trickle.requests.get() <= 2 + 2,
                    "at most two reads at once for one depositor: " + trickle.requests.get());
        }
    }
}
