package org.cdlib.mrt.ingestqueue.queue.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.Probes;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Taking over an object lock whose holder moved on without letting go: the takeover is fenced on
 * the holder's status as it was read, so a holder requeued into processing in between keeps the
 * object, and the taker waits for it.
 */
class ObjectLockTakeoverTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    @TempDir
    Path dir;

    @Test
    void aHolderRequeuedBetweenTheReadAndTheTakeoverKeepsTheObject() {
        QueueStore store = ZK.store(dir);
        String ark = "ark:/99999/fk4takeover";
        String bid = QueueTestSupport.batchWithJobs(store, 2, 5);
        List<String> jids = store.batches().jobs(bid, BatchRef.PROCESSING).stream().sorted().toList();
        String holder = jids.get(0);
        String taker = jids.get(1);
        JobState[] toProcessing = QueueTestSupport.pipelineTo(JobState.PROCESSING);
        QueueTestSupport.walk(store, holder, toProcessing);
        QueueTestSupport.walk(store, taker, toProcessing);

        HeldJob h = store.claims().claim(JobState.PROCESSING, store.jobs().load(holder).refName(), "h").orElseThrow();
        assertNull(store.stepWrites().lockObject(h, ark));
        store.moves().transition(h, JobState.FAILED, Change.failure("storage refused"));
        // a leftover: the holder moved on and its object lock stayed (as after a crash between the two)
        store.calls().createPersistent(QueuePaths.objectLock(ark), QueueJson.text(holder));

        AdminActions admin = new AdminActions(store, Clock.systemUTC());
        store.probes().set(Probes.Point.AFTER_HOLDER_READ, () -> admin.requeueJob(holder, "operator"));
        try {
            HeldJob t = store.claims()
                    .claim(JobState.PROCESSING, store.jobs().load(taker).refName(), "t")
                    .orElseThrow();
            assertEquals(holder, store.stepWrites().lockObject(t, ark), "the requeued holder keeps the object");
            store.moves().unlock(t);
        } finally {
            store.probes().clear();
        }
        assertEquals(JobState.PROCESSING, store.jobs().load(holder).state());
        assertEquals(holder, QueueJson.text(store.calls().readOrNull(QueuePaths.objectLock(ark))));
    }
}
