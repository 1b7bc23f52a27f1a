package org.cdlib.mrt.ingestqueue.routes;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.component.mock.MockEndpoint;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.steps.FreeSpace;
import org.junit.jupiter.api.Test;

/**
 * routes/provisioning.yaml with the real provisionStep on the real working filesystem: a job that
 * fits is admitted to downloading; one that cannot fit stays in provisioning and is evaluated again.
 */
class ProvisioningRouteTest extends RouteTestSupport {

    @Override
    protected Map<String, String> properties() {
        Map<String, String> p = super.properties();
        p.put("ingest.provisioning.max-used-percent", "100"); // whatever this disk holds, one byte more fits
        p.put("ingest.provisioning.retry-delay", "100");
        p.put("ingest.storage", "http"); // no storage copy on this disk: the job's bytes counted once

        return p;
    }

    String jobNeeding(long bytes) {
        return jobIn(JobState.PROVISIONING, fileJob("http://127.0.0.1/o/a.txt", "a.txt", null, null, null), bytes);
    }

    @Test
    void aJobTheDiskHasRoomForIsAdmittedToDownloading() throws Exception {
        MockEndpoint end = start("provisioning.yaml", "job-provisioning");
        String jid = jobNeeding(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> store.jobs().load(jid).state() == JobState.DOWNLOADING);
        assertEquals(null, JobExchange.stayReason(end.getReceivedExchanges().get(0)));
        assertEquals(1L, store.jobs().load(jid).spaceNeeded());
    }

    @Test
    void aJobLargerThanTheDiskStaysInProvisioningAndIsEvaluatedAgain() throws Exception {
        MockEndpoint end = start("provisioning.yaml", "job-provisioning");
        // the whole filesystem: it could fit on it empty (so it is not refused), never beside what it holds now
        long huge = FreeSpace.of(store.ingestHome()).totalBytes();
        String jid = jobNeeding(huge);
        // evaluated again after ingest.provisioning.retry-delay: the route saw it twice, it never left
        await().atMost(Duration.ofSeconds(10)).until(() -> end.getReceivedCounter() >= 2);
        assertEquals(JobState.PROVISIONING, store.jobs().load(jid).state());
        for (Exchange e : end.getReceivedExchanges()) {
            assertEquals(jid, JobExchange.job(e).id());
            assertTrue(JobExchange.stayReason(e).startsWith("needs " + huge + " bytes"), JobExchange.stayReason(e));
        }
        assertTrue(transitions.stream().noneMatch(t -> "provisioning".equals(t.from())),
                "staying is no transition: " + transitions);
    }
}
