package org.cdlib.mrt.ingestqueue.queue.zk;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.OpResult;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.cdlib.mrt.ingestqueue.testing.ZooKeeperRelay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Many nodes read at once: their stats first, then their data in read transactions sent together
 * (a report walks a million statuses this way). Every answer belongs to its own path, across
 * transactions and units; a missing node answers NONODE, an oversized one is left unread; a read
 * whose connection is lost is read again whole.
 */
class SizedReadsTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();

    ZooKeeperRelay relay;
    CuratorFramework client;

    @BeforeEach
    void setUp() throws Exception {
        relay = new ZooKeeperRelay(ZK.server().getPort());
        client = QueueTestSupport.client(relay.connectString(), 30_000);
        if (client.checkExists().forPath(QueuePaths.JOBS) != null) {
            client.delete().deletingChildrenIfNeeded().forPath(QueuePaths.JOBS);
        }
    }

    @AfterEach
    void tearDown() throws Exception {
        client.close();
        relay.close();
    }

    static String jid(int i) {
        return String.format("jid%010d", i);
    }

    /** Unequal sizes, each node's own bytes: a status of 300 to 4,300 bytes. */
    static byte[] content(int i) {
        return ("{\"job\":" + i + ",\"pad\":\"" + "x".repeat(300 + (i * 37) % 4000) + "\"}")
                .getBytes(StandardCharsets.UTF_8);
    }

    /** n statuses; every 7th missing, and job 5 holding more than a status may (written around the queue's limits). */
    List<String> statuses(int n) throws Exception {
        List<String> paths = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String p = QueuePaths.jobStatus(jid(i));
            paths.add(p);
            if (i % 7 == 3) {
                continue;
            }
            byte[] data = i == 5 ? new byte[QueueLimits.nodeBytes(p) + 12_000] : content(i);
            client.create().creatingParentsIfNeeded().inBackground().forPath(p, data);
        }
        await().atMost(Duration.ofMinutes(1))
                .until(() -> client.checkExists().forPath(QueuePaths.jobStatus(jid(n - 1))) != null);
        return paths;
    }

    void assertEachItsOwn(List<String> paths, Map<String, OpResult> read) {
        assertEquals(paths, new ArrayList<>(read.keySet()), "one answer per path, in the order asked");
        for (int i = 0; i < paths.size(); i++) {
            OpResult r = read.get(paths.get(i));
            if (i % 7 == 3) {
                assertEquals(
                        KeeperException.Code.NONODE.intValue(),
                        assertInstanceOf(OpResult.ErrorResult.class, r).getErr(),
                        paths.get(i));
            } else if (i == 5) {
                assertEquals(
                        QueueLimits.nodeBytes(paths.get(i)) + 12_000,
                        SizedReads.oversizedBytes(r),
                        "left unread for its size");
            } else {
                assertArrayEquals(
                        content(i),
                        assertInstanceOf(OpResult.GetDataResult.class, r).getData(),
                        paths.get(i));
            }
        }
    }

    @Test
    void everyAnswerIsItsOwnPathsAcrossTransactionsAndUnits() throws Exception {
        // 1,150 statuses of at most 8 KB: two units, each in ~25 read transactions of 384 KB sent together
        List<String> paths = statuses(SizedReads.UNIT + 150);
        assertTrue(paths.size() * (QueueLimits.nodeBytes(paths.get(0)) + 64) > 20 * QueueLimits.READ_BYTES);

        assertEachItsOwn(paths, new ZooKeeperCalls(client).readMany(paths));
    }

    @Test
    void aReadWhoseConnectionIsLostIsReadAgainWhole() throws Exception {
        List<String> paths = statuses(300);
        relay.holdAnswers(); // the server answers, nothing reaches the client
        CompletableFuture<Map<String, OpResult>> read = CompletableFuture.supplyAsync(
                () -> new ZooKeeperCalls(client).readMany(paths), r -> new Thread(r).start());
        // the stats of a few hundred nodes, not a ping's answer
        await().atMost(Duration.ofSeconds(20)).until(() -> relay.heldAnswers() > 8_000);
        relay.cut();

        assertEachItsOwn(paths, read.get(1, TimeUnit.MINUTES));
    }
}
