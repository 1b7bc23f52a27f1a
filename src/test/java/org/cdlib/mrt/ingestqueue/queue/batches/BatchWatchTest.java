package org.cdlib.mrt.ingestqueue.queue.batches;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.model.StatusReport;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.cdlib.mrt.ingestqueue.testing.merritt.MrtZk;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Merritt's tools' batch writes (mrt-zk's Ruby {@code set_status}: the status node rewritten whole
 * with {@code setData(-1)}, no transaction; {@code create_batch}; {@code delete_completed_batches}:
 * {@code rm_rf} of the root) are heard by {@link BatchWatch} within seconds: nothing here runs the
 * intake's pass, the consistency sweep or any timer, so only the watch can make these hold.
 */
class BatchWatchTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    static final ObjectMapper JSON = new ObjectMapper();
    static final Duration SECONDS = Duration.ofSeconds(30); // "within seconds", generous on a loaded machine
    final Path dir = ZK.dir();
    QueueStore store;
    BatchWatch watch;
    CuratorFramework merrittClient;
    ZooKeeper merritt;

    @BeforeEach
    void setUp() throws Exception {
        store = ZK.store(dir.resolve("queue"));
        watch = new BatchWatch(store.calls(), store.batches(), store.merrittBatches()).start();
        await().atMost(SECONDS).until(() -> watch.resyncs() >= 1); // the watch is set
        merrittClient = QueueTestSupport.client(ZK.server());
        merritt = merrittClient.getZookeeperClient().getZooKeeper();
    }

    @AfterEach
    void tearDown() {
        watch.close();
        merrittClient.close();
    }

    // ---------------------------------------------------------------- mrt-zk's writes, as its Ruby gem makes them

    /** QueueItem#set_status: the old status read, its status and message replaced, written whole at any version. */
    void setStatus(String bid, String status) throws Exception {
        String path = "/batches/" + bid + "/status";
        ObjectNode json = (ObjectNode) JSON.readTree(merritt.getData(path, false, null));
        json.put("status", status);
        json.put("message", "");
        merritt.setData(path, JSON.writeValueAsBytes(json), -1);
    }

    /** Batch.create_batch: a sequential root, the uuid node, the submission, then the status. */
    String createBatch(String uuid) throws Exception {
        String bid = createRoot();
        merritt.create(
                "/batch-uuids/" + uuid,
                bid.getBytes(StandardCharsets.UTF_8),
                ZooDefs.Ids.OPEN_ACL_UNSAFE,
                CreateMode.PERSISTENT);
        merritt.create("/batches/" + bid + "/submission", MrtZk.submission(uuid, "hello.txt")
                .getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        createStatus(bid);
        return bid;
    }

    String createRoot() throws Exception {
        String path =
                merritt.create("/batches/bid", null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL);
        return path.substring("/batches/".length());
    }

    void createStatus(String bid) throws Exception {
        merritt.create(
                "/batches/" + bid + "/status",
                ("{\"status\":\"Pending\",\"last_modified\":\"2026-11-24 10:00:00 +0000\"," + "\"message\":\"\"}")
                        .getBytes(StandardCharsets.UTF_8),
                ZooDefs.Ids.OPEN_ACL_UNSAFE,
                CreateMode.PERSISTENT);
    }

    /** Batch#delete as delete_completed_batches runs it: the uuid node, then rm_rf of the root (children first). */
    void deleteBatch(String bid, String uuid) throws Exception {
        if (uuid != null && merritt.exists("/batch-uuids/" + uuid, false) != null) {
            merritt.delete("/batch-uuids/" + uuid, -1);
        }
        merrittClient.delete().deletingChildrenIfNeeded().forPath("/batches/" + bid);
    }

    // ---------------------------------------------------------------- our batches, in a state

    /** One of our batches (no jobs) reported and failed, or completed. */
    String reported(BatchState outcome) {
        String bid = store.batches().create(QueueTestSupport.submission("demo_content"));
        HeldBatch lock = store.batches().tryLock(bid, "test").orElseThrow();
        store.moves().transition(lock, BatchState.REPORTING, "no jobs to run", null, null);
        lock = store.batches().tryLock(bid, "test").orElseThrow();
        store.moves()
                .transition(
                        lock,
                        outcome,
                        "reported",
                        new StatusReport("2026-11-24T10:00:00Z", List.of(), List.of(), 0, 0, 0),
                        null);
        return bid;
    }

    boolean indexed(BatchState s, String bid) {
        return store.calls().exists(QueuePaths.batchIndex(s, bid));
    }

    boolean onlyIndexedIn(BatchState want, String bid) {
        for (BatchState s : BatchState.values()) {
            if (indexed(s, bid) != (s == want)) {
                return false;
            }
        }
        return true;
    }

    // ---------------------------------------------------------------- the cases

    @Test
    void updateReportingThroughMrtZkReachesTheIndexTheConsumerWatches() throws Exception {
        String bid = reported(BatchState.FAILED);
        setStatus(bid, "UpdateReporting");
        await().atMost(SECONDS).until(() -> onlyIndexedIn(BatchState.UPDATE_REPORTING, bid));
        assertEquals(List.of(bid), store.batches().ids(BatchState.UPDATE_REPORTING));
        assertEquals(0, store.batches().counts().get(BatchState.FAILED));
        assertTrue(new ConsistencyCheck(store).check().clean(), "fsck clean");
    }

    @Test
    void processingToFailedByMerrittMovesTheIndexAndLeavesTheDepositorsCount() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        String depositor = QueuePaths.BATCH_DEPOSITORS + "/tester/" + bid;
        assertTrue(store.calls().exists(depositor), "an open batch counts for its depositor");
        setStatus(bid, "Failed"); // mrt-zk's states.yml allows Processing -> Failed; ours did not
        await().atMost(SECONDS).until(() -> onlyIndexedIn(BatchState.FAILED, bid) && !store.calls().exists(depositor));
        assertEquals(List.of(), store.batches().ids(BatchState.PROCESSING));
    }

    @Test
    void aBatchDeletedThroughMrtZkShowsDeletedAtOnceAndOurCleanupRemovesItOnItsNextPass() throws Exception {
        String bid = reported(BatchState.FAILED);
        setStatus(bid, "Deleted");
        await().atMost(SECONDS).until(() -> onlyIndexedIn(BatchState.DELETED, bid));
        new AdminActions(store, Clock.systemUTC()).cleanup(Duration.ofDays(30), Duration.ofDays(30));
        assertFalse(store.batches().exists(bid), "removed on the next pass, not after the retention");
        assertEquals(0, store.batches().counts().get(BatchState.DELETED));
        assertTrue(new ConsistencyCheck(store).check().clean(), "fsck clean");
    }

    @Test
    void aRootMerrittsCleanupRemovesLeavesNoIndexNumberOrCountBehind() throws Exception {
        String bid = reported(BatchState.COMPLETED);
        String uuid = JSON.readTree(merritt.getData("/batches/" + bid + "/submission", false, null))
                .path("batchID")
                .asText(null);
        assertEquals(1, store.batches().counts().get(BatchState.COMPLETED));
        deleteBatch(bid, uuid);
        await().atMost(SECONDS).until(() -> store.batches().counts().get(BatchState.COMPLETED) == 0
                && !store.calls().exists(QueuePaths.batchNumberEntry(bid)));
        assertEquals(List.of(), store.batches().numbers().newest(store.batches().newestNumber(), 0, 10).bids());
        assertTrue(new ConsistencyCheck(store).check().clean(), "fsck clean");
    }

    @Test
    void anOpenBatchMerrittFailsAndRemovesLeavesItsDepositorsCapAtOnce() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        String depositor = QueuePaths.BATCH_DEPOSITORS + "/tester/" + bid;
        setStatus(bid, "Failed");
        setStatus(bid, "Deleted");
        merrittClient.delete().deletingChildrenIfNeeded().forPath("/jobs/" + store.batches().load(bid).jobIds().get(0));
        deleteBatch(bid, null);
        await().atMost(SECONDS).until(() -> !store.calls().exists(depositor)
                && store.batches().counts().values().stream().allMatch(n -> n == 0)
                && !store.calls().exists(QueuePaths.batchNumberEntry(bid)));
    }

    @Test
    void aBatchMadeWithCreateBatchIsTakenAtOnceWhateverIdsOthersDrewAndAStatusLessRootBefore() throws Exception {
        // id-block scratch nodes and deletes: /batches' cversion runs ahead of the ids drawn
        for (int i = 0; i < 40; i++) {
            merritt.create("/batches/scratch", null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            merritt.delete("/batches/scratch", -1);
        }
        createRoot(); // a front end that died mid-create: no status, ever
        String bid = createBatch("bid-0c0ffee0-0000-4000-8000-000000000042");
        await().atMost(SECONDS).until(() -> store.batches().ids(BatchState.PENDING).contains(bid));
        assertTrue(
                store.calls().exists(QueuePaths.batchStates(bid)), "taken: mrt-zk's acquirePendingBatch passes it by");
        assertTrue(store.calls().exists(QueuePaths.batchNumberEntry(bid)), "listed by number");
    }

    @Test
    void aStatusLessRootIsPassedOverAfterTheGraceAndTakenWhenItsStatusComes() throws Exception {
        watch.close(); // the intake's pass alone
        store.merrittBatches().grace(Duration.ZERO);
        String stuck = createRoot();
        String bid = createBatch("bid-0c0ffee0-0000-4000-8000-000000000043");
        assertEquals(
                List.of(bid), store.adoptMerrittBatches(), "the status-less root before it does not stop the intake");
        assertEquals(List.of(stuck), store.merrittBatches().passedOver());
        createStatus(stuck);
        merritt.create("/batches/" + stuck + "/submission", MrtZk.submission("bid-x", "x.txt")
                .getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        assertEquals(List.of(stuck), store.adoptMerrittBatches(), "looked at again by the next pass");
        assertEquals(List.of(), store.merrittBatches().passedOver());
    }

    @Test
    void withinTheGraceAStatusLessRootStillStopsTheCursor() throws Exception {
        watch.close();
        String stuck = createRoot();
        String bid = createBatch("bid-0c0ffee0-0000-4000-8000-000000000044");
        assertEquals(List.of(), store.adoptMerrittBatches(), "a root being written is waited for (60 s by default)");
        assertNull(store.calls().readOrNull(QueuePaths.batchStates(bid)));
        assertEquals(List.of(), store.merrittBatches().passedOver());
        assertTrue(store.calls().exists(QueuePaths.batch(stuck)));
    }
}
