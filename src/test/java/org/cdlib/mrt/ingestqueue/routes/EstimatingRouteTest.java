package org.cdlib.mrt.ingestqueue.routes;

import static com.github.tomakehurst.wiremock.client.WireMock.head;
import static com.github.tomakehurst.wiremock.client.WireMock.ok;
import static com.github.tomakehurst.wiremock.client.WireMock.serverError;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.github.tomakehurst.wiremock.http.RequestMethod;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.camel.component.mock.MockEndpoint;
import org.cdlib.mrt.ingestqueue.fetch.HostileServer;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.junit.jupiter.api.Test;

/**
 * routes/estimating.yaml with the real estimateStep: HEAD requests
 * to WireMock size the job; a failing HEAD never fails it.
 */
class EstimatingRouteTest extends RouteTestSupport {

    @Override
    protected Map<String, String> properties() {
        Map<String, String> p = super.properties();
        p.put("ingest.estimate.large-bytes", "10000"); // so a 12345-byte file is a large job
        p.put("ingest.estimate.large-priority", "90");
        return p;
    }

    /**
     * Runs the route on a job of one file at {@code path} that declares
     * {@code declared} bytes; returns it once in provisioning.
     */
    Job estimated(String path, Long declared) throws Exception {
        MockEndpoint end = start("estimating.yaml", "job-estimating");
        String jid = jobIn(JobState.ESTIMATING, fileJob(HTTP.baseUrl() + path, "f.tif", null, null, declared), 0);
        await().atMost(Duration.ofSeconds(10)).until(() -> store.jobs().load(jid).state() == JobState.PROVISIONING);
        assertEquals(1, end.getReceivedCounter(), "the route ran to its end once");
        return store.jobs().load(jid);
    }

    /** The one request the step sent: a HEAD of the file's URL. */
    static void assertOneHeadOf(String path) {
        List<LoggedRequest> sent = HTTP.getAllServeEvents().stream().map(ServeEvent::getRequest).toList();
        assertEquals(1, sent.size(), "one attempt, no GET: " + sent);
        assertEquals(RequestMethod.HEAD, sent.get(0).getMethod());
        assertEquals(path, sent.get(0).getUrl());
    }

    @Test
    void theHeadAnswersContentLengthIsRecordedAsTheSpaceNeededAndALargeJobMovesBack() throws Exception {
        HTTP.stubFor(head(urlEqualTo("/o/big.tif")).willReturn(ok().withHeader("Content-Length", "12345")));
        Job job = estimated("/o/big.tif", null);
        assertOneHeadOf("/o/big.tif");
        assertEquals(12345L, job.spaceNeeded());
        assertEquals(90, job.priority(), "above ingest.estimate.large-bytes: moved back to the large priority");
    }

    @Test
    void aFailingHeadCountsTheDeclaredSizeAndTheJobGoesOn() throws Exception {
        HTTP.stubFor(head(urlEqualTo("/o/broken.tif")).willReturn(serverError()));
        Job job = estimated("/o/broken.tif", 77L);
        assertOneHeadOf("/o/broken.tif");
        assertEquals(77L, job.spaceNeeded(), "the manifest's declared size stands in");
        assertEquals(5, job.priority());
        assertEquals(null, job.status().errorMessage());
    }

    @Test
    void aHeadAnsweredWithEndlessHeaderLinesFailsItsJobOnceAndTheServiceGoesOn() throws Exception {
        try (HostileServer hostile = new HostileServer(
                HostileServer.endlessHeaders())) {
            MockEndpoint end = start("estimating.yaml", "job-estimating");
            String jid =
                    jobIn(JobState.ESTIMATING, fileJob(hostile.url("/o/endless.tif"), "f.tif", null, null, 77L), 0);
            await().atMost(Duration.ofSeconds(20)).until(() -> store.jobs().load(jid).state() == JobState.FAILED);
            assertEquals(
                    "estimating: " + hostile.url("/o/endless.tif") + ": the server sent more than 100 header lines "
                            + "(limit ingest.download.max-header-count)",
                    store.jobs().load(jid).status().errorMessage());
            assertEquals(1, hostile.requests.size(), "sent once, not retried: " + hostile.requests);
            assertEquals(0, end.getReceivedCounter(), "the job did not go on");

            // the service goes on: the next job is estimated as ever
            HTTP.stubFor(head(urlEqualTo("/o/next.tif")).willReturn(ok().withHeader("Content-Length", "10")));
            String next =
                    jobIn(JobState.ESTIMATING, fileJob(HTTP.baseUrl() + "/o/next.tif", "f.tif", null, null, null), 0);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> store.jobs().load(next).state() == JobState.PROVISIONING);
            assertEquals(10L, store.jobs().load(next).spaceNeeded());
            assertEquals(1, hostile.requests.size(), "the failed job's request is not sent again");
        }
    }
}
