package org.cdlib.mrt.ingestqueue.routes;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import org.apache.camel.Exchange;
import org.apache.camel.component.mock.MockEndpoint;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.queue.model.HeldBy;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.junit.jupiter.api.Test;

/** routes/job-pending.yaml with the real pendingStep: a job moves on, a job of a held collection is held. */
class JobPendingRouteTest extends RouteTestSupport {

    String pendingJob() {
        return jobIn(JobState.PENDING, fileJob("http://127.0.0.1/o/a.txt", "a.txt", null, null, null), 0);
    }

    @Test
    void aJobOfACollectionNobodyHoldsGoesOnToEstimating() throws Exception {
        MockEndpoint end = start("job-pending.yaml", "job-pending");
        String jid = pendingJob();
        await().atMost(Duration.ofSeconds(10)).until(() -> store.jobs().load(jid).state() == JobState.ESTIMATING);
        Exchange seen = end.getReceivedExchanges().get(0);
        assertEquals(jid, seen.getIn().getHeader("jobId"));
        assertNull(JobExchange.target(seen), "no step chose another state: the successor");
        assertEquals("no hold applies", reasonOf(jid, "estimating"));
    }

    @Test
    void aJobOfAHeldCollectionGoesToHeldAndStaysThere() throws Exception {
        MockEndpoint end = start("job-pending.yaml", "job-pending");
        store.holds().holdCollection("demo_content", "operator");
        String jid = pendingJob();
        await().atMost(Duration.ofSeconds(10)).until(() -> store.jobs().load(jid).state() == JobState.HELD);
        // stopped as the consumer took it, before its route (issue 45): the hold is named, to resume at pending
        assertEquals(0, end.getReceivedCounter(), "its route did not run");
        Job held = store.jobs().load(jid);
        assertEquals("stopped by the hold on collection demo_content; resumes at pending", reasonOf(jid, "held"));
        assertEquals(HeldBy.collection("demo_content").at(held.statusVersion()), held.status().heldBy());
        assertNull(held.lockOwner(), "the route let go of it");
    }
}
