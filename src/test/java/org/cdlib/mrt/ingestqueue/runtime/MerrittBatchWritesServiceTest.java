package org.cdlib.mrt.ingestqueue.runtime;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * On a running service, an update report asked through mrt-zk (the Admin Tool's "update reporting":
 * {@code set_status(UpdateReporting)}, the status rewritten whole with {@code setData(-1)}) leads to
 * our update report as our API's action does. The intake timer, the consistency sweep and the
 * reporting sweep are set to an hour: only the batch watch can bring it about.
 */
class MerrittBatchWritesServiceTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    static final ObjectMapper JSON = new ObjectMapper();
    final Path dir = ZK.dir();

    @Test
    void updateReportingThroughMrtZkLeadsToOurUpdateReport() throws Exception {
        Map<String, String> slow = Map.of(
                "ingest.merritt.batch-period",
                "3600000",
                "ingest.merritt.batch-delay",
                "3600000",
                "ingest.fsck.period",
                "3600000",
                "ingest.fsck.delay",
                "3600000",
                "ingest.reporting.sweep-period",
                "3600000",
                "ingest.reporting.sweep-delay",
                "3600000");
        try (RunningService service = RunningService.start(ZK.connectString(), dir, slow);
             CuratorFramework merrittClient = QueueTestSupport.client(ZK.server())) {
            ZooKeeper merritt = merrittClient.getZookeeperClient().getZooKeeper();
            // a batch Merritt's own batch consumer took and reported failed (createBatch, acquirePendingBatch, ...)
            String bid = merritt.create(
                            "/batches/bid", null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL)
                    .substring("/batches/".length());
            merritt.create(
                    "/batches/" + bid + "/submission",
                    ("{\"submitter\":\"merritt/Merritt Depositor\",\"filename\":\"a.checkm\","
                        + "\"profile\":\"demo_content\",\"type\":\"manifest\",\"batchID\":\"bid-u42\",\"title\":\"T\"}")
                            .getBytes(StandardCharsets.UTF_8),
                    ZooDefs.Ids.OPEN_ACL_UNSAFE,
                    CreateMode.PERSISTENT);
            merritt.create("/batches/" + bid + "/states", null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            merritt.create(
                    "/batches/" + bid + "/status",
                    "{\"status\":\"Failed\",\"last_modified\":\"2026-11-24 10:00:00 +0000\",\"message\":\"\"}"
                            .getBytes(StandardCharsets.UTF_8),
                    ZooDefs.Ids.OPEN_ACL_UNSAFE,
                    CreateMode.PERSISTENT);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> service.store().calls().exists(QueuePaths.batchIndex(BatchState.FAILED, bid)));

            String path = "/batches/" + bid + "/status";
            ObjectNode status = (ObjectNode) JSON.readTree(merritt.getData(path, false, null));
            status.put("status", "UpdateReporting");
            status.put("message", "");
            merritt.setData(path, JSON.writeValueAsBytes(status), -1);

            await().atMost(Duration.ofSeconds(30)).until(() -> service.support().report.seen.contains(bid));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> service.store().batches().load(bid).state() == BatchState.COMPLETED);
            assertEquals(1, service.support().report.seen.stream().filter(bid::equals).count(), "reported once");
            assertTrue(service.store().calls().exists(QueuePaths.batchIndex(BatchState.COMPLETED, bid)));
        }
    }
}
