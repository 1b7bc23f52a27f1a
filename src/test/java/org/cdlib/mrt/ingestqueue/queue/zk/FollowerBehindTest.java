package org.cdlib.mrt.ingestqueue.queue.zk;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.server.quorum.QuorumPeer;
import org.junit.jupiter.api.Test;

/**
 * A host connected to a ZooKeeper follower that has not yet applied another host's takeover of a
 * job (the follower's quorum thread held, as a busy or paused server holds it): a plain read there
 * still shows the old holder, the synced read the file gate uses ({@code Jobs.lockSession}) waits
 * for the follower to catch up and shows the new one. The chaos test once stored an object twice
 * through such a read: storage's fetch was served under a lease that had already lost the job.
 */
class FollowerBehindTest {
    private static final String JOB = "/jobs/jid0000000001";
    private static final String LOCK = JOB + "/lock";

    @Test
    @SuppressWarnings({"deprecation", "removal"})
    void theFileGatesReadOfALockSeesATakeoverItsFollowerHasNotAppliedYet() throws Exception {
        try (TestingCluster cluster = new TestingCluster(3)) {
            cluster.start();
            QuorumPeer leader = await().atMost(Duration.ofSeconds(60))
                    .until(() -> byState(QuorumPeer.ServerState.LEADING), p -> p != null);
            QuorumPeer peer = await().atMost(Duration.ofSeconds(60))
                    .until(() -> byState(QuorumPeer.ServerState.FOLLOWING), p -> p != null);
            try (CuratorFramework onLeader = client(connectString(cluster, leader));
                    CuratorFramework onFollower = client(connectString(cluster, peer))) {
                onLeader.create().creatingParentsIfNeeded().forPath(JOB);
                ZooKeeperCalls gate = new ZooKeeperCalls(onFollower);
                await().atMost(Duration.ofSeconds(30)).until(() -> gate.stat(JOB) != null);

                holdWhileReadingFromLeader(peer);
                CompletableFuture<Stat> synced;
                try {
                    onLeader.create().withMode(CreateMode.EPHEMERAL).forPath(LOCK);
                    assertNull(gate.stat(LOCK), "the follower applied the takeover: nothing here is behind");
                    synced = CompletableFuture.supplyAsync(() -> gate.syncedStat(LOCK));
                    try {
                        Stat early = synced.get(2, TimeUnit.SECONDS);
                        throw new AssertionError("answered from the follower's old view: " + early);
                    } catch (TimeoutException waiting) {
                        // the sync waits for the follower to reach the leader's state
                    }
                } finally {
                    peer.resume();
                }
                Stat st = synced.get(60, TimeUnit.SECONDS);
                assertNotNull(st, "the synced read missed the lock the leader has");
                assertEquals(onLeader.getZookeeperClient().getZooKeeper().getSessionId(), st.getEphemeralOwner());
            }
        }
    }

    /**
     * Suspends the follower's quorum thread while it waits for the leader's next packet (holding
     * nothing else), as a paused or starved server would be. {@code Thread.suspend} still works on
     * Java 17, this project's runtime (it throws from Java 20 on); nothing else stops one server of
     * an in-process ensemble from applying the leader's commits while it keeps answering reads.
     */
    @SuppressWarnings({"deprecation", "removal"})
    private static void holdWhileReadingFromLeader(QuorumPeer peer) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5)).until(() -> {
            peer.suspend();
            boolean reading = Arrays.stream(peer.getStackTrace()).anyMatch(f -> f.getMethodName().equals("readPacket"))
                    && Arrays.stream(peer.getStackTrace()).noneMatch(f -> f.getMethodName().equals("processPacket"));
            if (!reading) {
                peer.resume();
            }
            return reading;
        });
        assertTrue(peer.isAlive());
    }

    /** The cluster's quorum peers are threads of this JVM: the one in {@code state}, if any. */
    private static QuorumPeer byState(QuorumPeer.ServerState state) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t instanceof QuorumPeer p && p.isAlive() && p.getPeerState() == state)
                .map(t -> (QuorumPeer) t)
                .findFirst()
                .orElse(null);
    }

    private static String connectString(TestingCluster cluster, QuorumPeer peer) {
        return cluster.getInstances().stream()
                .filter(i -> i.getServerId() == peer.getMyId())
                .findFirst()
                .orElseThrow()
                .getConnectString();
    }

    private static CuratorFramework client(String connectString) {
        CuratorFramework c = CuratorFrameworkFactory.newClient(connectString, 30_000, 15_000,
                new ExponentialBackoffRetry(100, 3));
        c.start();
        return c;
    }
}
