package org.cdlib.mrt.ingestqueue.queue.lease;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.errors.StaleLockException;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.LockOwner;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A lease is its own node, not its session's: all workers of a process share one session, so
 * after an operator breaks a lock and another worker of the same process re-claims the job (or
 * batch), the old worker's release, fence check and writes must leave the new claim alone.
 */
class LeaseTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    @TempDir
    Path dir;
    QueueStore store;

    @BeforeEach
    void setUp() {
        store = ZK.store(dir);
    }

    @Test
    void aBrokenJobLockReclaimedByTheSameProcessIsNotTheOldWorkersAnyMore() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        HeldJob old = store.claims()
                .claim(JobState.PENDING, store.jobs().load(jid).refName(), "worker-1")
                .orElseThrow();
        old.verifyHeld();

        new AdminActions(store, Clock.systemUTC()).breakJobLock(jid, true, "operator");
        HeldJob renewed = store.claims()
                .claim(JobState.PENDING, store.jobs().load(jid).refName(), "worker-2")
                .orElseThrow();
        assertEquals(old.lease().sessionId, renewed.lease().sessionId,
                "one process, one session: the case the session alone cannot tell");
        byte[] renewedNode = store.calls().readOrNull(QueuePaths.jobLock(jid));

        StaleLockException fenced = assertThrows(StaleLockException.class, old::verifyHeld);
        assertTrue(fenced.getMessage().contains("job " + jid), fenced.getMessage());
        assertThrows(StaleLockException.class, () -> store.moves()
                .transition(old, JobState.ESTIMATING, Change.because("stale")));
        store.moves().unlock(old);

        assertArrayEquals(
                renewedNode, store.calls().readOrNull(QueuePaths.jobLock(jid)), "the new claim's lock is left alone");
        assertDoesNotThrow(renewed::verifyHeld);
        Job moved = store.moves().transition(renewed, JobState.ESTIMATING, Change.because("the live claim moves it"));
        assertEquals(JobState.ESTIMATING, moved.state());
        assertEquals(null, store.calls().readOrNull(QueuePaths.jobLock(jid)), "its own release went with the move");
    }

    @Test
    void aBatchLockRecreatedBySomeoneElseOfTheSameProcessSurvivesTheOldRelease() {
        String bid = store.batches().create(QueueTestSupport.submission("demo_content"));
        HeldBatch old = store.batches().tryLock(bid, "worker-1").orElseThrow();
        store.calls().deleteIfExists(QueuePaths.batchLock(bid)); // an operator's hand
        HeldBatch renewed = store.batches().tryLock(bid, "worker-2").orElseThrow();
        assertEquals(old.lease().sessionId, renewed.lease().sessionId);

        assertThrows(StaleLockException.class, old.lease()::verifyHeld);
        store.moves().unlock(old);
        assertNotNull(store.calls().readOrNull(QueuePaths.batchLock(bid)), "the old holder's release deleted nothing");
        assertDoesNotThrow(renewed.lease()::verifyHeld);
        store.moves().unlock(renewed);
        assertEquals(null, store.calls().readOrNull(QueuePaths.batchLock(bid)));
    }

    /**
     * An effect record's transaction checked the lock and the status, through the lease's
     * session: the fence right after it (before a mint or a storage add) holds from when the
     * record was sent and reads nothing. A fence any later reads the lock, and sees a break.
     */
    @Test
    void aFenceRightAfterARecordStandsOnItAndALaterOneReadsTheLock() {
        HeldJob lock = claimOne();
        String jid = lock.jid();
        long half = halfTheSession(lock);
        boolean fromRecord = false;
        // a busy machine may take longer than the window between two lines: tried a few times
        for (int i = 0; i < 20 && !fromRecord; i++) {
            store.stepWrites().effectStarted(lock, JobEffects.MINT, "attempt " + i);
            long asked = System.nanoTime();
            // a read's answer holds from when the fence was asked; the record's, from before
            fromRecord = lock.verifyHeldUntil() - half < asked;
        }
        assertTrue(fromRecord, "the fence stood on the record's answer");
        // a transaction answered just now but sent long before (a lost connection, retried) leaves
        // little of its margin: the fence reads, and the send gets a whole one
        long longAgo = System.nanoTime() - half;
        lock.chain(c -> c.confirmed(longAgo));
        long asked = System.nanoTime();
        assertTrue(lock.verifyHeldUntil() - half >= asked, "read, not taken from a transaction sent long ago");

        new AdminActions(store, Clock.systemUTC()).breakJobLock(jid, true, "operator");
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            try {
                lock.verifyHeld();
                return false;
            } catch (StaleLockException e) {
                return true;
            }
        });
    }

    /**
     * A move that hands the lock on to this process's worker of the next state writes the new
     * owner into it, checking the status: the next lease's first fence stands on that answer; the
     * lease it continues holds nothing, at once.
     */
    @Test
    void aHandedOnLockIsConfirmedForItsNextHolderOnly() {
        HeldJob lock = claimOne();
        long half = halfTheSession(lock);
        boolean fromMove = false;
        JobState[] path = {JobState.ESTIMATING, JobState.PROVISIONING, JobState.DOWNLOADING, JobState.PROCESSING};
        for (JobState to : path) {
            HeldJob before = lock;
            lock = store.moves().transitionAndKeep(before, to, Change.because("on"), "worker-" + to.wire());
            long asked = System.nanoTime();
            fromMove |= lock.verifyHeldUntil() - half < asked;
            assertThrows(StaleLockException.class, before::verifyHeld, "the lease it continues holds nothing");
        }
        assertTrue(fromMove, "the next holder's fence stood on the move's answer");
    }

    private HeldJob claimOne() {
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        return store.claims().claim(JobState.PENDING, store.jobs().load(jid).refName(), "worker-1").orElseThrow();
    }

    /** How long a fence's answer holds, from when it was asked. */
    private static long halfTheSession(HeldJob lock) {
        return TimeUnit.MILLISECONDS.toNanos(lock.lease().zk.getSessionTimeout()) / 2;
    }

    @Test
    void twoClaimsOfOneWorkerNameStillDiffer() {
        assertTrue(!LockOwner.of("h", "w").claim().equals(LockOwner.of("h", "w").claim()));
    }
}
