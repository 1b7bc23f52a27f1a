package org.cdlib.mrt.ingestqueue.queue.zk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.fsck.Violation;
import org.cdlib.mrt.ingestqueue.queue.layout.WireForm;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.cdlib.mrt.ingestqueue.testing.merritt.MrtZk;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The nodes this queue writes, byte for byte where mrt-zk's {@code test-cases.yml} (CDLUC3/mrt-zk
 * at f113b84) fixes them: {@code create_job}, {@code job_happy_path}, {@code batch_failure},
 * {@code batch_recovery}, {@code create_batch} and {@code modify_batch_state}. Our own fields
 * (history, counters) are allowed beside them; every key mrt-zk has must be there with its value.
 */
class WireFormatTest {
    static final String STAMP = "\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d [+-]\\d{4}";
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    final Path dir = ZK.dir();
    QueueStore store;

    @BeforeEach
    void setUp() {
        store = ZK.store(dir);
    }

    String text(String path) throws Exception {
        return new String(ZK.client().getData().forPath(path), StandardCharsets.UTF_8);
    }

    JsonNode json(String path) throws Exception {
        return QueueJson.MAPPER.readTree(ZK.client().getData().forPath(path));
    }

    void assertJobStatus(String jid, String status, String lastSuccessful, int retries, String message)
            throws Exception {
        JsonNode s = json(QueuePaths.jobStatus(jid));
        assertEquals(status, s.get("status").asText(), s.toString());
        assertTrue(s.has("last_successful_status"), "the key is there, null or not: " + s);
        assertEquals(
                lastSuccessful,
                s.get("last_successful_status").isNull()
                        ? null
                        : s.get("last_successful_status").asText());
        assertTrue(s.get("last_modified").asText().matches(STAMP), s.toString());
        assertEquals(retries, s.get("retry_count").intValue());
        assertTrue(s.get("retry_count").isInt());
        assertEquals(message, s.get("message").asText(), s.toString());
        assertTrue(s.get("message").isTextual(), "never null: Merritt reads it as a string");
        for (String old : List.of("last_modification_date", "error_message")) {
            assertFalse(s.has(old), old);
        }
    }

    @Test
    void aCreatedJobIsWhatMrtZkCreateJobLeaves() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        assertEquals(bid, text(QueuePaths.jobNode(jid, "bid")));
        assertEquals("5", text(QueuePaths.jobNode(jid, "priority")));
        assertEquals("0", text(QueuePaths.jobNode(jid, "space_needed")));
        JsonNode ids = json(QueuePaths.jobNode(jid, "identifiers"));
        assertEquals("", ids.get("primary_id").asText());
        assertEquals("loc0", ids.get("local_id").get(0).asText());
        assertFalse(ids.has("primary"));
        assertJobStatus(jid, "Pending", null, 0, "");
        assertEquals(0, ZK.client().getData().forPath("/jobs/states/pending/05-" + jid).length);
        assertEquals(0, ZK.client().getData().forPath("/batches/" + bid + "/states/batch-processing/" + jid).length);
        assertEquals(0, ZK.client().getData().forPath("/jobs/" + jid).length, "the item's root carries no data");
        assertNull(ZK.client().checkExists().forPath(QueuePaths.jobLock(jid)), "createJob unlocks");
        JsonNode config = json(QueuePaths.jobNode(jid, "configuration"));
        assertEquals("demo_content", config.get("profile_name").asText());
        JsonNode metadata = json(QueuePaths.jobNode(jid, "metadata"));
        assertEquals("who", metadata.get("erc_who").asText());
        assertEquals("what", metadata.get("erc_what").asText());
        assertEquals("when", metadata.get("erc_when").asText());
    }

    @Test
    void theHappyPathLeavesCompletedAfterNotify() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 1, 2);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        HeldJob first = store.claims().claim(JobState.PENDING, "02-" + jid, "w").orElseThrow();
        store.moves().transition(first, JobState.ESTIMATING, Change.because("test"));
        assertJobStatus(jid, "Estimating", "Pending", 0, "");
        QueueTestSupport.walk(store, jid, JobState.PROVISIONING, JobState.DOWNLOADING, JobState.PROCESSING,
                JobState.STORING, JobState.RECORDING, JobState.NOTIFY, JobState.COMPLETED);
        assertJobStatus(jid, "Completed", "Notify", 0, "");
        assertNotNull(ZK.client().checkExists().forPath("/jobs/states/completed/02-" + jid));
        assertNotNull(ZK.client().checkExists().forPath("/batches/" + bid + "/states/batch-completed/" + jid));
        assertNull(ZK.client().checkExists().forPath("/batches/" + bid + "/states/batch-processing/" + jid));
    }

    @Test
    void aFailureKeepsTheLastSuccessAndARequeueCountsARetry() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 1, 2);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        QueueTestSupport.walk(store, jid, QueueTestSupport.pipelineTo(JobState.NOTIFY));
        HeldJob l = store.claims().claim(JobState.NOTIFY, "02-" + jid, "w").orElseThrow();
        store.moves().transition(l, JobState.FAILED, Change.failure("Sample Failure Message"));
        assertJobStatus(jid, "Failed", "Recording", 0, "Sample Failure Message");
        assertNotNull(ZK.client().checkExists().forPath("/batches/" + bid + "/states/batch-failed/" + jid));

        new AdminActions(store, Clock.systemUTC()).requeueJob(jid, "operator");
        // the Admin Tool's (Ruby) client keeps the last success across Failed; a requeue counts a retry
        assertJobStatus(jid, "Notify", "Recording", 1, "");
        QueueTestSupport.walk(store, jid, JobState.COMPLETED);
        assertJobStatus(jid, "Completed", "Notify", 1, "");
    }

    @Test
    void aBatchStatusIsMrtZksAndItsIndexIsOutsideBatches() throws Exception {
        String bid = store.batches().create(QueueTestSupport.submission("demo_content"));
        JsonNode s = json(QueuePaths.batchStatus(bid));
        assertEquals("Pending", s.get("status").asText());
        assertTrue(s.get("last_modified").asText().matches(STAMP), s.toString());
        assertEquals("", s.get("message").asText());
        assertNull(ZK.client().checkExists().forPath("/batches/" + bid + "/states"), "pending: no states node yet");
        assertNull(ZK.client().checkExists().forPath("/batches/states"), "nothing under /batches but batches");
        Set<String> children = new TreeSet<>(ZK.client().getChildren().forPath("/batches"));
        assertTrue(children.stream().allMatch(c -> c.matches("bid\\d{10}")), children.toString());

        HeldBatch lock = store.batches().tryLock(bid, "w").orElseThrow();
        store.moves().transition(lock, BatchState.PROCESSING, "test", null, null);
        assertEquals("Processing", json(QueuePaths.batchStatus(bid)).get("status").asText());
        assertNotNull(ZK.client().checkExists().forPath(QueuePaths.batchIndex(BatchState.PROCESSING, bid)));
    }

    @Test
    void nodesOfTheOldFormAreReadAndFsckRewritesThem() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        ZK.client()
                .setData()
                .forPath(
                        QueuePaths.jobStatus(jid),
                        ("{\"status\":\"pending\",\"last_successful_status\":null,"
                            + "\"last_modification_date\":\"2026-11-20T10:00:00.123Z\",\"retry_count\":0,"
                            + "\"error_message\":null}")
                                .getBytes(StandardCharsets.UTF_8));
        ZK.client().setData().forPath(QueuePaths.jobNode(jid, "identifiers"),
                "{\"primary\":\"ark:/99999/fk4old\",\"local_id\":[\"loc0\"]}".getBytes(StandardCharsets.UTF_8));
        ZK.client().setData().forPath(QueuePaths.batchStatus(bid), ("{\"status\":\"processing\",\"last_modified\":"
                + "\"2026-11-20T10:00:00Z\",\"jobs_created\":1,\"error_message\":null,\"first_job\":"
                + QueuePaths.jobNumber(jid) + ",\"jobs_total\":1}").getBytes(StandardCharsets.UTF_8));

        Job old = store.jobs().load(jid);
        assertEquals(JobState.PENDING, old.state());
        assertEquals("ark:/99999/fk4old", old.identifiers().primary());
        assertEquals(BatchState.PROCESSING, store.batches().load(bid).state());

        ConsistencyCheck fsck = new ConsistencyCheck(store);
        List<String> kinds = fsck.check().violations().stream().map(Violation::kind).toList();
        assertEquals(
                List.of("old-wire-format", "old-wire-format", "old-wire-format"),
                kinds.stream().sorted().toList());
        fsck.repair();
        assertTrue(fsck.check().clean(), fsck.check().toString());
        assertJobStatus(jid, "Pending", null, 0, "");
        assertEquals("2026-11-20 10:00:00 +0000", json(QueuePaths.jobStatus(jid)).get("last_modified").asText());
        assertEquals("ark:/99999/fk4old", json(QueuePaths.jobNode(jid, "identifiers")).get("primary_id").asText());
        assertEquals("Processing", json(QueuePaths.batchStatus(bid)).get("status").asText());
    }

    /** A job's status as the previous build wrote it (lower case, its key names, ISO time). */
    static byte[] oldStatus(JobState state, JobState lastSuccessful, int retries, String error) {
        return ("{\"status\":\"" + state.wire() + "\",\"last_successful_status\":"
                        + (lastSuccessful == null ? "null" : "\"" + lastSuccessful.wire() + "\"")
                        + ",\"last_modification_date\":\"2026-11-20T10:00:00.123Z\",\"retry_count\":" + retries
                        + ",\"error_message\":" + (error == null ? "null" : "\"" + error + "\"") + "}")
                .getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aQueueOfTheOldFormInEveryStateIsConvertedInPlaceAndALockHeldMeanwhileIsRespected() throws Exception {
        List<JobState> states = List.of(
                JobState.PENDING,
                JobState.ESTIMATING,
                JobState.PROVISIONING,
                JobState.DOWNLOADING,
                JobState.PROCESSING,
                JobState.STORING,
                JobState.RECORDING,
                JobState.NOTIFY,
                JobState.COMPLETED,
                JobState.FAILED,
                JobState.HELD);
        String bid = QueueTestSupport.batchWithJobs(store, states.size(), 5);
        List<String> jids = store.batches().jobs(bid, BatchRef.PROCESSING).stream().sorted().toList();
        AdminActions admin = new AdminActions(store, Clock.systemUTC());
        for (int i = 0; i < states.size(); i++) {
            JobState s = states.get(i);
            byte[] configuration = ZK.client().getData().forPath(QueuePaths.jobNode(jids.get(i), "configuration"));
            if (s == JobState.HELD) {
                admin.holdJob(jids.get(i), "op");
            } else if (s == JobState.FAILED) {
                QueueTestSupport.walk(store, jids.get(i), JobState.FAILED);
            } else {
                QueueTestSupport.walk(store, jids.get(i), QueueTestSupport.pipelineTo(s));
            }
            Job j = store.jobs().load(jids.get(i));
            assertEquals(s, j.state());
            ZK.client().setData().forPath(QueuePaths.jobStatus(jids.get(i)), oldStatus(s, j.status().lastSuccessful(),
                    j.status().retryCount(), j.status().errorMessage()));
            // the previous build kept a completed job's nodes (no summary: see CompactionTest)
            if (s == JobState.COMPLETED) {
                ZK.client().setData().forPath(QueuePaths.jobNode(jids.get(i), "configuration"), configuration);
            }
            ZK.client().setData().forPath(QueuePaths.jobNode(jids.get(i), "identifiers"),
                    ("{\"primary\":null,\"local_id\":[\"loc" + i + "\"]}").getBytes(StandardCharsets.UTF_8));
        }
        for (int i = 0; i < states.size(); i++) {
            assertEquals(states.get(i), store.jobs().load(jids.get(i)).state(), "read in the old form");
        }
        HeldJob held = store.claims().tryLockJob(jids.get(3), "a-worker-meanwhile").orElseThrow();
        ConsistencyCheck fsck = new ConsistencyCheck(store);
        ConsistencyCheck.Report first = fsck.repair();
        assertEquals(
                2 * states.size(),
                first.violations().stream()
                        .filter(v -> v.kind().equals("old-wire-format"))
                        .count(),
                first.toString());
        assertEquals(
                2, first.violations().stream().filter(v -> !v.repaired()).count(), "the locked job is left: " + first);
        assertTrue(
                WireForm.oldStatus(ZK.client().getData().forPath(QueuePaths.jobStatus(jids.get(3)))),
                "untouched under its lock");
        store.moves().unlock(held);
        fsck.repair();
        assertTrue(fsck.check().clean(), fsck.check().toString());
        MrtZk mrtZk = new MrtZk(ZK.client().getZookeeperClient().getZooKeeper());
        for (int i = 0; i < states.size(); i++) {
            MrtZk.Loaded l = mrtZk.loadJob(jids.get(i));
            assertEquals(states.get(i).zk(), l.status(), jids.get(i));
            assertEquals("", l.primaryId());
            assertEquals(states.get(i), store.jobs().load(jids.get(i)).state());
        }
    }

    @Test
    void theOldBatchIndexMovesOutOfBatchesAtStart() throws Exception {
        String bid = store.batches().create(QueueTestSupport.submission("demo_content"));
        // as a queue of the previous build had it
        ZK.client().delete().forPath(QueuePaths.batchIndex(BatchState.PENDING, bid));
        ZK.client().create().creatingParentsIfNeeded().forPath("/batches/states/pending/" + bid, new byte[0]);
        ZK.client().create().creatingParentsIfNeeded().forPath("/batches/states/completed", new byte[0]);
        store.start();
        assertNull(ZK.client().checkExists().forPath("/batches/states"));
        assertNotNull(ZK.client().checkExists().forPath(QueuePaths.batchIndex(BatchState.PENDING, bid)));
        assertEquals(List.of(bid), store.batches().ids(BatchState.PENDING));
        Stat stat = ZK.client().checkExists().forPath(QueuePaths.batchIndex(BatchState.COMPLETED));
        assertNotNull(stat);
    }
}
