package org.cdlib.mrt.ingestqueue.queue.zk;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Connection loss at each point where a write's outcome could be left unknown: the server is
 * stopped while the call is under way and restarted on the same port and data within the
 * session timeout. Each call waits for the connection, resolves what happened, and leaves
 * exactly one outcome: a lock released, a lock taken once, a transition committed once,
 * identifiers written.
 */
class ConnectionLossTest {
    /** A server of each test's own: it is stopped and restarted on its port and data. */
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().freshServerEachTest();

    final Path dir = ZK.dir();
    TestingServer server;
    CuratorFramework client;
    QueueStore store;
    String jid;

    @BeforeEach
    void start() throws Exception {
        server = ZK.server();
        client = QueueTestSupport.client(server, 30_000);
        store = QueueTestSupport.store(client, dir);
        jid = store.batches().jobs(QueueTestSupport.batchWithJobs(store, 1, 5), BatchRef.PROCESSING).get(0);
    }

    @AfterEach
    void stop() {
        client.close();
    }

    /** Runs {@code call} while the server is down, then brings the server back; returns the call's result. */
    <T> T duringOutage(Callable<T> call) throws Exception {
        server.stop();
        await().atMost(Duration.ofSeconds(20)).until(() -> !client.getZookeeperClient().isConnected());
        CompletableFuture<T> f = CompletableFuture.supplyAsync(() -> {
            try {
                return call.call();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        server.restart();
        return f.get(60, TimeUnit.SECONDS);
    }

    @Test
    void aReleaseThatCannotReachZooKeeperIsRetriedUntilTheLockIsGone() throws Exception {
        HeldJob lock = store.claims().tryLockJob(jid, "w").orElseThrow();
        duringOutage(() -> {
            store.moves().unlock(lock); // returns at once; the release is retried in the background
            return true;
        });
        await().atMost(Duration.ofSeconds(30))
                .until(() -> client.checkExists().forPath(QueuePaths.jobLock(jid)) == null);
        assertTrue(
                store.claims().tryLockJob(jid, "next").isPresent(),
                "free for the next worker while the session lives on");
    }

    @Test
    void aLockTakenDuringAnOutageIsTakenOnceAndIsOurs() throws Exception {
        Optional<HeldJob> lock = duringOutage(() -> store.claims().tryLockJob(jid, "w"));
        assertTrue(lock.isPresent());
        Stat st = client.checkExists().forPath(QueuePaths.jobLock(jid));
        assertEquals(client.getZookeeperClient().getZooKeeper().getSessionId(), st.getEphemeralOwner());
        assertTrue(store.claims().tryLockJob(jid, "other").isEmpty());
    }

    @Test
    void aTransitionCommittedDuringAnOutageAppliesOnceAndIsKnownToHaveApplied() throws Exception {
        HeldJob lock = store.claims().tryLockJob(jid, "w").orElseThrow();
        Job moved = duringOutage(
                () -> store.moves().transition(lock, JobState.ESTIMATING, Change.because("during outage")));
        assertEquals(JobState.ESTIMATING, moved.state());
        Job now = store.jobs().load(jid);
        assertEquals(JobState.ESTIMATING, now.state());
        assertEquals(lock.job().statusVersion(), now.statusVersion(), "one commit, not two");
        assertEquals(List.of("05-" + jid), store.jobs().refs(JobState.ESTIMATING));
        assertTrue(store.jobs().refs(JobState.PENDING).isEmpty());
        assertNull(client.checkExists().forPath(QueuePaths.jobLock(jid)), "released by the same transaction");
        assertTrue(new ConsistencyCheck(store).check().clean());
    }

    @Test
    void identifiersAndAnEffectWrittenDuringAnOutageAreWrittenOnce() throws Exception {
        HeldJob lock = store.claims().tryLockJob(jid, "w").orElseThrow();
        duringOutage(() -> {
            store.stepWrites().writeIdentifiers(lock, new Identifiers("ark:/99999/fk4lost", List.of("loc0")));
            return store.stepWrites().effectDone(lock, JobEffects.MINT, "ark:/99999/fk4lost");
        });
        assertEquals("ark:/99999/fk4lost", store.jobs().load(jid).identifiers().primary());
        assertTrue(store.stepWrites().effects(lock).done(JobEffects.MINT));
        store.moves().unlock(lock);
    }
}
