package org.cdlib.mrt.ingestqueue.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.cdlib.mrt.ingestqueue.testing.merritt.MrtZk;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two writers on one ensemble: this queue and a client doing exactly what mrt-zk does
 * ({@link MrtZk}, on its own session, as Merritt's ingest service and Admin Tool would). What we
 * write, mrt-zk loads; what it writes, we load and work on; the Admin Tool's actions through it
 * are honoured by our workers; ids drawn by both never collide.
 */
class MrtZkNeighbourTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    final Path dir = ZK.dir();
    QueueStore store;
    CuratorFramework neighbourClient;
    MrtZk mrtZk;

    @BeforeEach
    void setUp() throws Exception {
        store = ZK.store(dir);
        neighbourClient = ZK.otherClient();
        mrtZk = new MrtZk(neighbourClient.getZookeeperClient().getZooKeeper());
    }

    @Test
    void everyJobAndBatchWeWriteLoadsInMrtZkInEveryState() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 3, 5);
        List<String> jids = store.batches().jobs(bid, BatchRef.PROCESSING);
        QueueTestSupport.workTo(store, jids.get(0), JobState.COMPLETED);
        QueueTestSupport.workTo(store, jids.get(1), JobState.RECORDING);
        HeldJob l = store.claims()
                .claim(JobState.RECORDING, store.jobs().load(jids.get(1)).refName(), "w")
                .orElseThrow();
        store.moves().transition(l, JobState.FAILED, Change.failure("inventory refused"));
        new AdminActions(store, Clock.systemUTC()).holdJob(jids.get(2), "op");

        MrtZk.Loaded done = mrtZk.loadJob(jids.get(0));
        assertEquals("Completed", done.status());
        assertEquals("Notify", done.lastSuccessful());
        assertEquals(5, done.priority());
        assertEquals(bid, done.bid());
        assertEquals(
                List.of("loc0"),
                done.localIds(),
                "compacted, it keeps its identifiers: the Admin Tool shows its ARK and local ids");
        assertEquals(List.of("loc0"), store.jobs().load(jids.get(0)).identifiers().localId());
        MrtZk.Loaded failed = mrtZk.loadJob(jids.get(1));
        assertEquals("Failed", failed.status());
        assertEquals("Storing", failed.lastSuccessful());
        assertEquals("inventory refused", mrtZk.json("/jobs/" + jids.get(1) + "/status").get("message").textValue());
        assertEquals("Held", mrtZk.loadJob(jids.get(2)).status());
        assertEquals("Processing", mrtZk.batchStatus(bid));
        // every child of /batches is a batch mrt-zk can load
        for (String child : neighbourClient.getChildren().forPath("/batches")) {
            assertTrue(MrtZk.BATCH_STATES.contains(mrtZk.batchStatus(child)), child);
        }
    }

    @Test
    void aCompactedJobWithTheNodesMrtZkWroteLoadsInMrtZk() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        String theirs = mrtZk.createJob(
                bid,
                4,
                "{\"profile_name\":\"demo_content\",\"submitter\":\"merritt\","
                    + "\"payload_url\":\"http://example.org/obj.zip\",\"payload_type\":\"container\","
                    + "\"response_type\":\"json\"}",
                "{\"primary_id\":\"\",\"local_id\":[\"their-local\"]}");
        neighbourClient
                .create()
                .forPath("/jobs/" + theirs + "/metadata", "{\"erc_who\":\"Merritt\"}".getBytes(StandardCharsets.UTF_8));
        Job before = store.jobs().load(theirs);

        QueueTestSupport.workTo(store, theirs, JobState.COMPLETED);

        // Merritt neighbours (the default): every node mrt-zk wrote stays (issue 42)
        assertEquals(Set.of("status", "bid", "priority", "space_needed", "identifiers", "configuration", "metadata"),
                Set.copyOf(neighbourClient.getChildren().forPath("/jobs/" + theirs)));
        MrtZk.Loaded done = mrtZk.loadJob(theirs);
        assertEquals("Completed", done.status());
        assertEquals("Notify", done.lastSuccessful());
        assertEquals(4, done.priority());
        assertEquals(0, done.spaceNeeded());
        assertEquals(bid, done.bid());
        assertEquals(before.configuration(), store.jobs().load(theirs).configuration(), "ours reads it as before");
        assertEquals(before.identifiers(), store.jobs().load(theirs).identifiers());
    }

    @Test
    void aJobMrtZkCreatesInOurBatchIsWorkedOnByOurWorkersToTheEnd() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        String ours = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        String theirs = mrtZk.createJob(
                bid,
                3,
                "{\"profile_name\":\"demo_content\",\"submitter\":\"merritt\","
                    + "\"payload_url\":\"http://example.org/obj.zip\",\"payload_type\":\"container\","
                    + "\"response_type\":\"json\"}",
                "{\"primary_id\":\"\",\"local_id\":[\"their-local\"]}");

        assertEquals(
                List.of("03-" + theirs, "05-" + ours),
                store.jobs().refs(JobState.PENDING),
                "in run order, priority first");
        Job job = store.jobs().load(theirs);
        assertEquals(bid, job.batchId());
        assertEquals("demo_content", job.configuration().profileName());
        assertEquals("http://example.org/obj.zip", job.configuration().payloadUrl());
        assertEquals(List.of("their-local"), job.identifiers().localId());
        assertEquals(
                dir.resolve(bid).resolve(theirs).toAbsolutePath().normalize().toString(),
                job.configuration().workingDir(),
                "a working directory where our own jobs have theirs");
        assertNull(job.lockOwner() == null ? null : job.lockOwner().claim(), "no lock left by createJob");

        QueueTestSupport.workTo(store, theirs, JobState.COMPLETED);
        QueueTestSupport.workTo(store, ours, JobState.COMPLETED);
        assertEquals(BatchState.REPORTING, store.batches().load(bid).state(), "the batch's last job ended: it reports");
        assertEquals("Completed", mrtZk.loadJob(theirs).status());
        assertTrue(new ConsistencyCheck(store).check().clean(), new ConsistencyCheck(store).check().toString());
    }

    @Test
    void theAdminToolsHoldReleaseAndRequeueThroughMrtZkAreHonoured() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);

        mrtZk.setJobStatus(jid, "Held", null, false);
        assertEquals(JobState.HELD, store.jobs().load(jid).state());
        assertEquals(
                Optional.empty(), store.claims().claimNext(JobState.PENDING, "our-worker"), "a held job is not taken");

        mrtZk.setJobStatus(jid, "Pending", null, false);
        Job released = store.jobs().load(jid);
        assertEquals(JobState.PENDING, released.state());
        assertEquals(JobState.HELD, released.status().lastSuccessful(), "as the Ruby client leaves it");
        QueueTestSupport.workTo(store, jid, JobState.DOWNLOADING);
        HeldJob l = store.claims().claim(JobState.DOWNLOADING, store.jobs().load(jid).refName(), "w").orElseThrow();
        store.moves().transition(l, JobState.FAILED, Change.failure("payload gone"));

        mrtZk.requeue(jid);
        Job requeued = store.jobs().load(jid);
        assertEquals(JobState.DOWNLOADING, requeued.state(), "the step after the last success");
        assertEquals(1, requeued.status().retryCount());
        assertNull(requeued.status().errorMessage());
        QueueTestSupport.workTo(store, jid, JobState.COMPLETED);
        assertEquals(BatchState.REPORTING, store.batches().load(bid).state());
        assertTrue(new ConsistencyCheck(store).check().clean(), new ConsistencyCheck(store).check().toString());
    }

    @Test
    void aJobTheAdminToolDeletesThroughMrtZkIsConsistentAndRemovedWithItsBatch() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 2, 5);
        List<String> jids = store.batches().jobs(bid, BatchRef.PROCESSING);
        QueueTestSupport.workTo(store, jids.get(0), JobState.NOTIFY);
        HeldJob l = store.claims().claim(JobState.NOTIFY, store.jobs().load(jids.get(0)).refName(), "w").orElseThrow();
        store.moves().transition(l, JobState.FAILED, Change.failure("callback refused"));
        mrtZk.setJobStatus(jids.get(0), "Deleted", null, false);
        assertEquals(JobState.DELETED, store.jobs().load(jids.get(0)).state());
        assertEquals(List.of(jids.get(0)), store.batches().jobs(bid, BatchRef.DELETED));
        assertTrue(new ConsistencyCheck(store).check().clean(), new ConsistencyCheck(store).check().toString());

        QueueTestSupport.workTo(store, jids.get(1), JobState.COMPLETED);
        assertEquals(BatchState.REPORTING, store.batches().load(bid).state());
        HeldBatch b = store.batches().tryLock(bid, "reporting").orElseThrow();
        store.moves().transition(b, BatchState.COMPLETED, "reported", null, null);
        new AdminActions(store, Clock.systemUTC()).cleanup(Duration.ZERO);
        assertNull(
                neighbourClient.checkExists().forPath("/batches/" + bid), "removed with its jobs, the deleted one too");
        assertNull(neighbourClient.checkExists().forPath("/jobs/" + jids.get(0)));
    }

    @Test
    void aJobMrtZkHoldsIsNotTakenByUsAndOursNotByIt() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        assertTrue(mrtZk.lock("/jobs/" + jid), "mrt-zk's acquireJob");
        assertEquals(Optional.empty(), store.claims().tryLockJob(jid, "our-worker"));
        mrtZk.unlock("/jobs/" + jid);
        HeldJob ours = store.claims().tryLockJob(jid, "our-worker").orElseThrow();
        assertFalse(mrtZk.lock("/jobs/" + jid), "mrt-zk's acquireJob passes a job we hold");
        store.moves().unlock(ours);
    }

    @Test
    void idsDrawnByBothNeverCollideAndIntakeGoesOn() throws Exception {
        Set<String> bids = new HashSet<>();
        List<String> order = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String a = mrtZk.createBatch(
                    "bid-uuid-" + i, "{\"batchID\":\"bid-uuid-" + i + "\",\"profile\":\"demo_content\"}");
            String b = store.batches().create(QueueTestSupport.submission("demo_content"));
            order.add(a);
            order.add(b);
            assertTrue(bids.add(a), a);
            assertTrue(bids.add(b), b);
        }
        assertEquals(40, bids.size(), order.toString());
        String bid = QueueTestSupport.batchWithJobs(store, 3, 5);
        Set<String> jids = new HashSet<>(store.batches().jobs(bid, BatchRef.PROCESSING));
        for (int i = 0; i < 5; i++) {
            assertTrue(jids.add(mrtZk.createJob(bid, 5, "{}", "{\"primary_id\":\"\",\"local_id\":[]}")));
        }
        String more = QueueTestSupport.batchWithJobs(store, 3, 5);
        for (String jid : store.batches().jobs(more, BatchRef.PROCESSING)) {
            assertTrue(jids.add(jid), jid + " drawn twice");
        }
        assertEquals(11, jids.size());
    }

    /**
     * Our batches carry Merritt's batch id and submission keys: {@code Batch.findByUuid} finds them (the
     * depositor's Merritt id, the Admin Tool's look-up), an upload's folder is that id (Merritt's queue
     * directory layout, so an mrt-zk host taking the batch finds the payload), and deletion removes the id.
     */
    @Test
    void ourBatchesCarryMerrittsBatchIdAndSubmissionKeys() throws Exception {
        String uuid = "bid-" + UUID.randomUUID();
        Path upload = dir.resolve("queue").resolve("uploads").resolve(uuid).resolve("objects.zip");
        BatchSubmission uploaded = new BatchSubmission(
                "demo_content",
                "dep/Someone",
                upload.toUri().toString(),
                "A title",
                "A creator",
                "2026",
                null,
                "container",
                "update",
                "objects.zip",
                "loc-1",
                null,
                "md5",
                "0123456789abcdef0123456789abcdef",
                null,
                "json",
                "a note",
                "2026-11-24T10:00:00Z",
                Map.of("subject", List.of("maps")));
        QueueStore home = new QueueStore(store.client(), dir.resolve("queue")).start();
        String bid = home.batches().create(uploaded);
        assertEquals(bid, mrtZk.findByUuid(uuid));
        assertEquals(Optional.of(bid), home.batches().byMerrittId(uuid));
        JsonNode sub = mrtZk.json("/batches/" + bid + "/submission");
        assertEquals(uuid, sub.get("batchID").asText());
        assertEquals("demo_content", sub.get("profile").asText());
        assertEquals("container", sub.get("type").asText());
        assertEquals("objects.zip", sub.get("filename").asText());
        assertTrue(sub.get("update").asBoolean());
        assertEquals("dep/Someone", sub.get("submitter").asText());
        assertEquals("A title", sub.get("title").asText());
        assertEquals("A creator", sub.get("creator").asText());
        assertEquals("loc-1", sub.get("localID").asText());
        assertEquals("maps", sub.get("DCsubject").asText());
        assertEquals("demo_content", home.batches().load(bid).submission().profileName(), "ours still read as ours");

        String byUrl = store.batches().create(QueueTestSupport.submission("demo_content"));
        String other = mrtZk.json("/batches/" + byUrl + "/submission").get("batchID").asText();
        assertTrue(other.matches("bid-[0-9a-f-]{36}") && !other.equals(uuid), other);
        assertEquals("batchManifest", mrtZk.json("/batches/" + byUrl + "/submission").get("type").asText());
        assertEquals(byUrl, mrtZk.findByUuid(other));

        String again = home.batches().create(uploaded); // the same upload submitted twice: a Merritt id of its own
        assertFalse(mrtZk.json("/batches/" + again + "/submission").get("batchID").asText().equals(uuid));
        assertEquals(bid, mrtZk.findByUuid(uuid));

        home.batches().remove(bid);
        assertNull(mrtZk.findByUuid(uuid));
        assertEquals(Optional.empty(), home.batches().byMerrittId(uuid));
        assertEquals(byUrl, mrtZk.findByUuid(other), "another batch's id stays");
    }
}
