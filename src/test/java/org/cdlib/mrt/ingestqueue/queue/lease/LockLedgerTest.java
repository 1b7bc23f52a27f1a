package org.cdlib.mrt.ingestqueue.queue.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.errors.StaleLockException;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The ledger of the locks this process holds, the one break path, and letting go of what is ours. */
class LockLedgerTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    @TempDir
    Path dir;

    @Test
    void aMoveRefusedAsStaleLetsGoOfItsLockAtOnce() throws Exception {
        QueueStore store = ZK.store(dir);
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        HeldJob lock = store.claims().claim(JobState.PENDING, store.jobs().load(jid).refName(), "worker").orElseThrow();
        assertEquals(1, store.claims().held().size());
        // another writer rewrites the status without the lock (as Merritt's tools may): the move is stale
        byte[] status = ZK.client().getData().forPath(QueuePaths.jobStatus(jid));
        ZK.client().setData().forPath(QueuePaths.jobStatus(jid), status);
        assertThrows(StaleLockException.class, () -> store.moves()
                .transition(lock, JobState.ESTIMATING, Change.because("done")));
        assertNull(
                ZK.client().checkExists().forPath(QueuePaths.jobLock(jid)),
                "our lock let go at once, not left to the orphan check");
        assertEquals(0, store.claims().held().size(), "and out of the ledger");
    }

    @Test
    void anOperatorsUnlockMovesTheStatusVersionAndTheOldHoldersMoveFailsLeavingTheNewHoldersLock() throws Exception {
        QueueStore store = ZK.store(dir);
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        HeldJob old = store.claims().claim(JobState.PENDING, store.jobs().load(jid).refName(), "old").orElseThrow();
        int before = ZK.client().checkExists().forPath(QueuePaths.jobStatus(jid)).getVersion();
        new AdminActions(store, Clock.systemUTC()).breakJobLock(jid, true, "op");
        assertEquals(before + 1, ZK.client().checkExists().forPath(QueuePaths.jobStatus(jid)).getVersion());
        assertEquals(1, store.claims().breaks().count(), "one break, counted");
        HeldJob next = store.claims().claim(JobState.PENDING, store.jobs().load(jid).refName(), "next").orElseThrow();
        assertThrows(StaleLockException.class, () -> store.moves()
                .transition(old, JobState.ESTIMATING, Change.because("late")));
        assertNotNull(
                ZK.client().checkExists().forPath(QueuePaths.jobLock(jid)),
                "the new holder's lock is not deleted by the old");
        store.moves().transition(next, JobState.ESTIMATING, Change.because("done"));
        assertEquals(JobState.ESTIMATING, store.jobs().load(jid).state());
        assertEquals(
                List.of(),
                List.of(store.claims().held().size()).stream()
                        .filter(n -> n != 0)
                        .toList(),
                "ledger empty");
    }
}
