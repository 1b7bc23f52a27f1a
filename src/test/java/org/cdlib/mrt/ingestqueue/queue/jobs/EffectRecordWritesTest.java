package org.cdlib.mrt.ingestqueue.queue.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the effect records' transactions write besides the records. The {@code store} and
 * {@code inventory} nodes mrt-zk describes a storage add with are written by the transaction that
 * records the add, without reading them first: whether they exist is guessed from the records, and
 * a wrong guess (a node Merritt's host left, or one removed by hand) is corrected by one more
 * transaction, never by a stale job. An effect that may be repeated is recorded as done with the
 * job's next write under its lock: it costs no transaction of its own, and whatever that next
 * write is (the move, another record, the write before the lock is let go, a completion's
 * summary) carries it.
 */
class EffectRecordWritesTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    @TempDir
    Path dir;
    QueueStore store;
    String jid;

    @BeforeEach
    void setUp() {
        store = ZK.store(dir);
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        QueueTestSupport.walk(store, jid, QueueTestSupport.pipelineTo(JobState.STORING));
    }

    HeldJob claim(JobState state) {
        return store.claims().claim(state, store.jobs().load(jid).refName(), "w").orElseThrow();
    }

    /** The job moved on from storing, and claimed in recording. */
    HeldJob inRecording() {
        store.moves().transition(claim(JobState.STORING), JobState.RECORDING, Change.because("stored"));
        return claim(JobState.RECORDING);
    }

    String node(String name) throws Exception {
        return new String(ZK.client().getData().forPath(QueuePaths.jobNode(jid, name)), StandardCharsets.UTF_8);
    }

    @Test
    void writtenWithTheirRecordsWhenNoneExistYet() throws Exception {
        HeldJob lock = claim(JobState.STORING);
        long before = store.operations();
        store.stepWrites().storeStarted(lock, "0", "http://localhost/manifest", "add/7777/ark:/99999/fk4a", List.of());
        store.stepWrites().storeDone(lock, "{\"version\":1}", "http://localhost/store/manifest/7777/1");
        // two transactions of four operations (the lock's fence, the status's version, the records, the node); no read
        assertEquals(8, store.operations() - before);
        assertTrue(node("store").contains("\"mode\":\"add/7777/ark:/99999/fk4a\""), node("store"));
        assertTrue(node("inventory").contains("http://localhost/store/manifest/7777/1"), node("inventory"));
        assertTrue(store.jobs().effects(jid).done(JobEffects.STORAGE));
    }

    @Test
    void aNodeAlreadyThereIsOverwritten() throws Exception {
        ZK.client()
                .create()
                .forPath(
                        QueuePaths.jobNode(jid, "store"),
                        "{\"manifest_url\":\"left by Merritt\"}".getBytes(StandardCharsets.UTF_8));
        ZK.client().create().forPath(QueuePaths.jobNode(jid, "inventory"), "{}".getBytes(StandardCharsets.UTF_8));
        HeldJob lock = claim(JobState.STORING);
        store.stepWrites().storeStarted(lock, "0", "http://localhost/manifest", "add/7777/ark:/99999/fk4a", List.of());
        store.stepWrites().storeDone(lock, "{\"version\":1}", "http://localhost/store/manifest/7777/1");
        assertTrue(node("store").contains("\"manifest_url\":\"http://localhost/manifest\""), node("store"));
        assertTrue(node("inventory").contains("http://localhost/store/manifest/7777/1"), node("inventory"));
        assertEquals("done", store.jobs().effects(jid).get(JobEffects.STORAGE).state());
    }

    @Test
    void aNodeTheRecordsSayExistsButIsGoneIsCreated() throws Exception {
        HeldJob lock = claim(JobState.STORING);
        store.stepWrites().storeStarted(lock, "0", "http://localhost/manifest", "add/7777/ark:/99999/fk4a", List.of());
        ZK.client().delete().forPath(QueuePaths.jobNode(jid, "store"));
        store.stepWrites().storeStarted(lock, "1", "http://localhost/manifest2", "add/7777/ark:/99999/fk4a", List.of());
        assertTrue(node("store").contains("http://localhost/manifest2"), node("store"));
        assertEquals("1", store.jobs().effects(jid).get(JobEffects.STORAGE).detail());
    }

    @Test
    void theMoveCarriesIt() {
        HeldJob lock = inRecording();
        store.stepWrites().effectStarted(lock, JobEffects.INVENTORY, "key1");
        long before = store.operations();
        store.stepWrites().effectDoneWithNextWrite(lock, JobEffects.INVENTORY, "key1");
        assertEquals(0, store.operations() - before, "nothing sent");
        assertTrue(store.stepWrites().effects(lock).done(JobEffects.INVENTORY), "the lease knows it");
        assertFalse(store.jobs().effects(jid).done(JobEffects.INVENTORY), "not written yet");

        HeldJob notify = store.moves().transitionAndKeep(lock, JobState.NOTIFY, Change.because("recorded"), "w2");
        assertEquals("done", store.jobs().effects(jid).get(JobEffects.INVENTORY).state(), "written by the move");
        // the lease knows the version the move left
        store.stepWrites().effectStarted(notify, JobEffects.CALLBACK, "cb");
        assertEquals("started", store.jobs().effects(jid).get(JobEffects.CALLBACK).state());
        assertEquals("done", store.jobs().effects(jid).get(JobEffects.INVENTORY).state());
    }

    @Test
    void theNextRecordCarriesIt() {
        HeldJob lock = inRecording();
        store.stepWrites().effectStarted(lock, JobEffects.INVENTORY, "key1");
        store.stepWrites().effectDoneWithNextWrite(lock, JobEffects.INVENTORY, "key1");
        store.stepWrites().effectStarted(lock, JobEffects.CALLBACK, "cb");
        JobEffects fx = store.jobs().effects(jid);
        assertTrue(
                fx.done(JobEffects.INVENTORY)
                        && "started".equals(fx.get(JobEffects.CALLBACK).state()),
                fx.toString());
    }

    @Test
    void aLockLetGoWithoutAMoveWritesItFirst() {
        HeldJob lock = inRecording();
        store.stepWrites().effectDoneWithNextWrite(lock, JobEffects.INVENTORY, "key1"); // no effects node yet: created
        store.moves().unlock(lock);
        assertTrue(store.jobs().effects(jid).done(JobEffects.INVENTORY));
        assertEquals(JobState.RECORDING, store.jobs().load(jid).state());
    }

    @Test
    void aCompletionBesideMerrittWritesItToTheEffectsNode() throws Exception {
        HeldJob recording = inRecording();
        store.moves().transition(recording, JobState.NOTIFY, Change.because("recorded"));
        HeldJob notify = claim(JobState.NOTIFY);
        store.stepWrites().effectDoneWithNextWrite(notify, JobEffects.CALLBACK, "cb"); // the job has no effects node
        store.moves().transition(notify, JobState.COMPLETED, Change.because("notified"));
        assertEquals("cb", store.jobs().effects(jid).get(JobEffects.CALLBACK).detail());
        assertEquals(null, store.jobs().load(jid).status().summary(), "nothing of ours in mrt-zk's status");
        assertTrue(ZK.client().checkExists().forPath(QueuePaths.jobNode(jid, "effects")) != null, "its own node");
    }

    @Test
    void aCompletionWithoutMerrittNeighboursPutsItInTheSummary() throws Exception {
        store.jobs().merrittNeighbours(false);
        HeldJob recording = inRecording();
        store.moves().transition(recording, JobState.NOTIFY, Change.because("recorded"));
        HeldJob notify = claim(JobState.NOTIFY);
        store.stepWrites().effectDoneWithNextWrite(notify, JobEffects.CALLBACK, "cb"); // the job has no effects node
        assertEquals(null, ZK.client().checkExists().forPath(QueuePaths.jobNode(jid, "effects")));
        store.moves().transition(notify, JobState.COMPLETED, Change.because("notified"));
        assertEquals(
                "cb", store.jobs().effects(jid).get(JobEffects.CALLBACK).detail(), "from the completed job's summary");
        assertEquals(null, ZK.client().checkExists().forPath(QueuePaths.jobNode(jid, "effects")));
    }
}
