package org.cdlib.mrt.ingestqueue.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.NewJob;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The depositor's report of a completed job, read from its summary once its completion removed its
 * configuration and identifiers: the payload named as the depositor gave it, the ARK and local ids,
 * as the same job gave them before it completed.
 */
class DepositorPayloadCompactionTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    final Path dir = ZK.dir();

    /** In both shapes of a completed job (issue 42): Merritt's (every node kept) and compacted (its status alone). */
    @ParameterizedTest(name = "merritt neighbours {0}")
    @ValueSource(booleans = {true, false})
    void theReportOfACompactedJobSaysWhatTheJobSaidBefore(boolean merrittNeighbours) throws Exception {
        QueueStore store = ZK.store(dir);
        store.jobs().merrittNeighbours(merrittNeighbours);
        String bid = store.batches().create(QueueTestSupport.submission("demo_content"));
        HeldBatch b = store.batches().tryLock(bid, "test").orElseThrow();
        String upload = dir.resolve("uploads/bid-1234/my thesis.pdf").toUri().toString();
        JobConfiguration c = new JobConfiguration(null, "demo_content", "tester", upload, "file", "json", "add", null,
                "thesis-1", "my thesis.pdf", null, null, 1234L, "who", "what", "when", null, Map.of());
        store.batches().createJobs(b, List.of(new NewJob(c, new Identifiers(null, List.of("thesis-1")), 5)));
        store.moves().transition(b, BatchState.PROCESSING, "jobs created", null, null);
        String jid = store.batches().load(bid).jobIds().get(0);
        QueueTestSupport.walk(store, jid, QueueTestSupport.pipelineTo(JobState.PROCESSING));
        HeldJob lock = store.claims().tryLockJob(jid, "test").orElseThrow();
        store.stepWrites().writeIdentifiers(lock, new Identifiers("ark:/99999/fk4thesis", List.of("thesis-1")));
        store.moves().unlock(lock);
        QueueTestSupport.walk(store, jid, JobState.STORING, JobState.RECORDING, JobState.NOTIFY);
        Job before = store.jobs().load(jid);

        QueueTestSupport.walk(store, jid, JobState.COMPLETED);
        assertEquals(
                merrittNeighbours,
                ZK.client().checkExists().forPath(QueuePaths.jobNode(jid, "configuration")) != null,
                "kept beside Merritt, else compacted");
        Job after = store.jobs().load(jid);

        assertEquals(DepositorPayload.of(before), DepositorPayload.of(after));
        assertEquals("my thesis.pdf", DepositorPayload.of(after).name());
        ObjectNode was = completedEntry(store, before);
        ObjectNode is = completedEntry(store, after);
        assertEquals("completed", is.get("status").asText());
        was.remove("status");
        is.remove("status");
        assertEquals(was, is);
        assertEquals("ark:/99999/fk4thesis", is.get("primary_id").asText());
    }

    private static ObjectNode completedEntry(QueueStore store, Job j) throws Exception {
        var mail = new DepositorMail("queue@example.org")
                .report(
                        store.batches().load(j.batchId()),
                        List.of(j),
                        List.of(),
                        null,
                        List.of("depositor@example.org"));
        JsonNode list = new ObjectMapper().readTree(ReportingMailTest.attachment(mail, "completed.json"));
        assertEquals(1, list.size(), list.toString());
        return (ObjectNode) list.get(0);
    }
}
