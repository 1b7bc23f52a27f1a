package org.cdlib.mrt.ingestqueue.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.cdlib.mrt.ingestqueue.queue.lease.JobLock;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An effect that may be repeated, recorded as done with the job's next write under its lock: it
 * costs no transaction of its own, and whatever that next write is (the move, another record, the
 * write before the lock is let go, a completion's summary) carries it.
 */
class RecordsWithNextWriteTest {
    @RegisterExtension
    static final TestZooKeeper ZK = new TestZooKeeper();
    @TempDir
    Path dir;
    QueueStore store;
    String jid;

    @BeforeEach
    void setUp() {
        store = ZK.store(dir);
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        QueueTestSupport.walk(store, jid, QueueTestSupport.pipelineTo(JobState.RECORDING));
    }

    JobLock claim(JobState state) {
        return store.claims().claim(state, store.jobs().load(jid).refName(), "w").orElseThrow();
    }

    @Test
    void theMoveCarriesIt() {
        JobLock lock = claim(JobState.RECORDING);
        store.records().effectStarted(lock, JobEffects.INVENTORY, "key1");
        long before = store.operations();
        store.records().effectDoneWithNextWrite(lock, JobEffects.INVENTORY, "key1");
        assertEquals(0, store.operations() - before, "nothing sent");
        assertTrue(store.records().effects(lock).done(JobEffects.INVENTORY), "the lease knows it");
        assertFalse(store.jobs().effects(jid).done(JobEffects.INVENTORY), "not written yet");

        JobLock notify = store.transitionAndKeep(lock, JobState.NOTIFY, Change.because("recorded"), "w2");
        assertEquals("done", store.jobs().effects(jid).get(JobEffects.INVENTORY).state(), "written by the move");
        store.records().effectStarted(notify, JobEffects.CALLBACK, "cb"); // the lease knows the version the move left
        assertEquals("started", store.jobs().effects(jid).get(JobEffects.CALLBACK).state());
        assertEquals("done", store.jobs().effects(jid).get(JobEffects.INVENTORY).state());
    }

    @Test
    void theNextRecordCarriesIt() {
        JobLock lock = claim(JobState.RECORDING);
        store.records().effectStarted(lock, JobEffects.INVENTORY, "key1");
        store.records().effectDoneWithNextWrite(lock, JobEffects.INVENTORY, "key1");
        store.records().effectStarted(lock, JobEffects.CALLBACK, "cb");
        JobEffects fx = store.jobs().effects(jid);
        assertTrue(fx.done(JobEffects.INVENTORY) && "started".equals(fx.get(JobEffects.CALLBACK).state()), fx.toString());
    }

    @Test
    void aLockLetGoWithoutAMoveWritesItFirst() {
        JobLock lock = claim(JobState.RECORDING);
        store.records().effectDoneWithNextWrite(lock, JobEffects.INVENTORY, "key1"); // no effects node yet: created
        store.unlock(lock);
        assertTrue(store.jobs().effects(jid).done(JobEffects.INVENTORY));
        assertEquals(JobState.RECORDING, store.jobs().load(jid).state());
    }

    @Test
    void aCompletionPutsItInTheSummary() throws Exception {
        JobLock recording = claim(JobState.RECORDING);
        store.transition(recording, JobState.NOTIFY, Change.because("recorded"));
        JobLock notify = claim(JobState.NOTIFY);
        store.records().effectDoneWithNextWrite(notify, JobEffects.CALLBACK, "cb"); // the job has no effects node
        assertEquals(null, ZK.client().checkExists().forPath(QueuePaths.jobNode(jid, "effects")));
        store.transition(notify, JobState.COMPLETED, Change.because("notified"));
        assertEquals("cb", store.jobs().effects(jid).get(JobEffects.CALLBACK).detail(), "from the completed job's summary");
        assertEquals(null, ZK.client().checkExists().forPath(QueuePaths.jobNode(jid, "effects")));
    }
}
