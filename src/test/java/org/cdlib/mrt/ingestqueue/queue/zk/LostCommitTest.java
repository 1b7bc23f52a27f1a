package org.cdlib.mrt.ingestqueue.queue.zk;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.cdlib.mrt.ingestqueue.testing.ZooKeeperRelay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A commit whose request never reached the server, its connection cut under it (a relay holds
 * what the client sends, then drops it): read back after reconnecting, it did not apply. A plain
 * commit is then sent again and applies once. A pipelined one (the counters', which let the next
 * transaction go out before its answer) is not: transactions built on it, or on a fresh read made
 * meanwhile with the same versions, could let it apply as a twin, so its caller builds it again.
 */
class LostCommitTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();

    ZooKeeperRelay relay;
    CuratorFramework client;
    ZooKeeper zk;
    MultiCommit commits;
    AtomicLong sentOps = new AtomicLong();

    @BeforeEach
    void setUp() throws Exception {
        relay = new ZooKeeperRelay(ZK.server().getPort());
        client = QueueTestSupport.client(relay.connectString(), 30_000);
        zk = client.getZookeeperClient().getZooKeeper();
        if (client.checkExists().forPath("/lost") != null) {
            client.delete().deletingChildrenIfNeeded().forPath("/lost");
        }
        client.create().forPath("/lost");
        commits = new MultiCommit(client, sentOps, new Probes());
    }

    @AfterEach
    void tearDown() throws Exception {
        client.close();
        relay.close();
    }

    /**
     * Commits {@code path}'s creation while the relay holds what the client sends, then cuts the connection under it.
     */
    CompletableFuture<List<OpResult>> commitLost(String path, boolean pipelined) throws Exception {
        List<Op> ops = List.of(Op.create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
        CountDownLatch onItsWay = new CountDownLatch(1);
        relay.holdRequests();
        CompletableFuture<List<OpResult>> f = CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return commits.send(
                                zk,
                                ops,
                                () -> client.checkExists().forPath(path) != null,
                                pipelined ? onItsWay::countDown : null);
                    } catch (KeeperException e) {
                        throw new CompletionException(e);
                    }
                },
                r -> new Thread(r).start());
        if (pipelined) {
            onItsWay.await(20, TimeUnit.SECONDS);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> relay.heldRequests() > 24); // more than a ping: the commit
        relay.cut(); // what was held never reaches the server
        return f;
    }

    @Test
    void aPlainCommitLostBeforeTheServerIsSentAgainAndAppliesOnce() throws Exception {
        List<OpResult> results = commitLost("/lost/plain", false).get(60, TimeUnit.SECONDS);
        assertEquals(1, results.size(), "answered by the second sending, not read back");
        assertEquals(2, sentOps.get(), "sent twice: lost, then again");
        assertEquals(0, client.checkExists().forPath("/lost/plain").getVersion());
    }

    @Test
    void aPipelinedCommitLostBeforeTheServerIsNotSentAgainButBuiltAgainByItsCaller() throws Exception {
        CompletableFuture<List<OpResult>> f = commitLost("/lost/pipelined", true);
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(60, TimeUnit.SECONDS));
        assertInstanceOf(StaleCounter.class, e.getCause());
        assertNull(client.checkExists().forPath("/lost/pipelined"), "not sent again");
        assertEquals(1, sentOps.get());
    }
}
