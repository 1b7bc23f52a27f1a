package org.cdlib.mrt.ingestqueue.routes;

import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.ok;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.component.mock.MockEndpoint;
import org.cdlib.mrt.ingestqueue.camel.BatchExchange;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * routes/batch-pending.yaml with the real batchPendingStep and queuedMailStep: a manifest from
 * WireMock becomes one job per row and the depositor's "queued" mail reaches a real SMTP server;
 * a corrupt manifest sends the batch to reporting with the line and the problem, and no job, no mail.
 */
class BatchPendingRouteTest extends RouteTestSupport {
    @RegisterExtension
    static final WireMockExtension HTTP = WireMockExtension.newInstance()
            .options(WireMockConfiguration.options().dynamicPort()).build();
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

    static final String HEADER = "#%checkm_0.7\n#%profile | http://uc3.cdlib.org/registry/ingest/manifest/"
            + "mrt-single-file-batch-manifest\n#%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize"
            + " | nfo:fileLastModified | nfo:fileName\n";

    /** A single-file batch manifest with {@code rows}, served by WireMock, submitted; the route consumes it. */
    Batch submitted(String rows, BatchState until) throws Exception {
        MockEndpoint end = start("batch-pending.yaml", "batch-pending");
        HTTP.stubFor(get(urlEqualTo("/batch.checkm")).willReturn(ok(HEADER + rows + "#%eof\n")));
        String bid = store.batches().create(submission(HTTP.baseUrl() + "/batch.checkm", "single-file-batch-manifest"));
        await().atMost(Duration.ofSeconds(10)).until(() -> store.batches().load(bid).state() == until);
        Exchange seen = end.getReceivedExchanges().get(0);
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
        assertEquals(List.of(f + "a.txt", f + "b.txt"), jobs.stream().map(j -> j.configuration().payloadUrl()).sorted().toList());
        assertTrue(jobs.stream().allMatch(j -> j.state() == JobState.PENDING && j.configuration().payloadType().equals("file")));
        assertEquals("0cc175b9c0f1b6a831c399e269772661", jobs.stream().filter(j -> j.configuration().fileName().equals("a.txt"))
                .findFirst().orElseThrow().configuration().digestValue());
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
}
