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
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * How long a job holds its object's lock: taken in processing, kept into storing and into
 * recording, let go when it leaves recording, and when it fails or is held on the way (storing
 * included); a job requeued or released into storing takes it again, and meanwhile another job
 * of the object waits.
 */
class ObjectLockSpanTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    @TempDir
    Path dir;
    QueueStore store;

    String holder(String ark) {
        byte[] data = store.calls().readOrNull(QueuePaths.objectLock(ark));
        return data == null ? null : QueueJson.text(data);
    }

    HeldJob claim(String jid, JobState state) {
        return store.claims().claim(state, store.jobs().load(jid).refName(), "w").orElseThrow();
    }

    /** The object's lock taken as processing takes it, once the ARK is the job's. */
    String lockObject(HeldJob lock, String ark) {
        store.stepWrites().writeIdentifiers(lock, lock.job().identifiers().withPrimary(ark));
        return store.stepWrites().lockObject(lock, ark);
    }

    @Test
    void keptFromProcessingThroughStoringIntoRecordingAndLetGoWhenTheJobLeavesRecording() {
        store = ZK.store(dir);
        String ark = "ark:/99999/fk4span";
        String jid = store.batches().jobs(QueueTestSupport.batchWithJobs(store, 1, 5), BatchRef.PROCESSING).get(0);
        QueueTestSupport.walk(store, jid, QueueTestSupport.pipelineTo(JobState.PROCESSING));

        HeldJob processing = claim(jid, JobState.PROCESSING);
        assertNull(lockObject(processing, ark));
        store.moves().transition(processing, JobState.STORING, Change.because("prepared"));
        assertEquals(jid, holder(ark), "processing → storing keeps it");
        store.moves().transition(claim(jid, JobState.STORING), JobState.RECORDING, Change.because("stored"));
        assertEquals(jid, holder(ark), "storing → recording keeps it");
        store.moves().transition(claim(jid, JobState.RECORDING), JobState.NOTIFY, Change.because("recorded"));
        assertNull(holder(ark), "leaving recording lets it go");
    }

    @Test
    void letGoOnAFailureOrHoldInStoringAndTakenAgainWhenTheJobReturnsThere() {
        store = ZK.store(dir);
        String ark = "ark:/99999/fk4again";
        List<String> jids = store.batches().jobs(QueueTestSupport.batchWithJobs(store, 2, 5), BatchRef.PROCESSING)
                .stream().sorted().toList();
        String writer = jids.get(0);
        String other = jids.get(1);
        QueueTestSupport.walk(store, writer, QueueTestSupport.pipelineTo(JobState.STORING));
        QueueTestSupport.walk(store, other, QueueTestSupport.pipelineTo(JobState.PROCESSING));
        AdminActions admin = new AdminActions(store, Clock.systemUTC());

        HeldJob storing = claim(writer, JobState.STORING);
        assertNull(lockObject(storing, ark));
        store.moves().transition(storing, JobState.FAILED, Change.failure("storing: HTTP 500"));
        assertNull(holder(ark), "a failure in storing lets it go");
        assertEquals(JobState.PROCESSING, store.jobs().load(writer).status().lastSuccessful());
        assertEquals(JobState.STORING, admin.requeueJob(writer, "op").state(), "a requeue resumes at storing");

        HeldJob again = claim(writer, JobState.STORING);
        assertNull(store.stepWrites().lockObject(again, ark), "taken again in storing");
        HeldJob waiting = claim(other, JobState.PROCESSING);
        assertEquals(
                writer, store.stepWrites().lockObject(waiting, ark), "another job of the object waits while it stores");
        store.moves().unlock(waiting);
        store.moves().unlock(again);

        assertEquals(JobState.HELD, admin.holdJob(writer, "op").state());
        assertNull(holder(ark), "a hold in storing lets it go");
        assertEquals(JobState.STORING, admin.releaseJob(writer, "op").state(), "released to storing");
    }

    /**
     * Handed on in this process (processing → storing → recording), the lease knows the lock it
     * took: storing's take and recording's release send no read of it. A lock changed by hand
     * meanwhile (the lease's knowledge wrong) costs the move one failed transaction, not the job.
     */
    @Test
    void aLeaseHandedOnKnowsItsObjectLockAndReadsItOnlyWhenItWasChangedByHand() throws Exception {
        store = ZK.store(dir);
        String ark = "ark:/99999/fk4known";
        List<String> jids = store.batches().jobs(QueueTestSupport.batchWithJobs(store, 2, 5), BatchRef.PROCESSING)
                .stream().sorted().toList();
        for (String jid : jids) {
            QueueTestSupport.walk(store, jid, QueueTestSupport.pipelineTo(JobState.PROCESSING));
        }

        HeldJob processing = claim(jids.get(0), JobState.PROCESSING);
        store.stepWrites().writeIdentifiers(processing, processing.job().identifiers().withPrimary(ark));
        long before = store.operations();
        assertNull(store.stepWrites().lockObject(processing, ark));
        assertEquals(
                3, store.operations() - before, "one transaction: the lease's fence, its status, the create; no read");
        HeldJob storing = store.moves().transitionAndKeep(processing,
                JobState.STORING, Change.because("prepared"), "w2");
        before = store.operations();
        assertNull(store.stepWrites().lockObject(storing, ark), "still its own");
        assertEquals(0, store.operations() - before, "known: nothing sent");
        HeldJob recording = store.moves().transitionAndKeep(storing,
                JobState.RECORDING, Change.because("stored"), "w3");
        assertEquals(jids.get(0), holder(ark));
        store.moves().transition(recording, JobState.NOTIFY, Change.because("recorded"));
        assertNull(holder(ark), "let go with the version it knew");

        HeldJob second = claim(jids.get(1), JobState.PROCESSING);
        store.stepWrites().writeIdentifiers(second, second.job().identifiers().withPrimary(ark));
        assertNull(store.stepWrites().lockObject(second, ark));
        HeldJob secondStoring = store.moves().transitionAndKeep(second,
                JobState.STORING, Change.because("prepared"), "w2");
        // by hand: its version moves
        ZK.client().setData().forPath(QueuePaths.objectLock(ark), QueueJson.text(jids.get(1)));
        HeldJob secondRecording = store.moves().transitionAndKeep(secondStoring,
                JobState.RECORDING, Change.because("stored"), "w3");
        assertEquals(
                JobState.NOTIFY,
                store.moves()
                        .transition(secondRecording, JobState.NOTIFY, Change.because("recorded"))
                        .state(),
                "the move read the lock again");
        assertNull(holder(ark));
    }
}
