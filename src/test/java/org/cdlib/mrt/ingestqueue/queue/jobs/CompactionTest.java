package org.cdlib.mrt.ingestqueue.queue.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.NewJob;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Without Merritt neighbours ({@code ingest.merritt.neighbours=false}), a job that completes is
 * compacted by the same transaction: it keeps 2 znodes of its own ({@code /jobs/JID} and its status
 * with its summary) beside its state and batch references, 4 in all, and every reader sees it as
 * before: the job, its identifiers and effects, search's reads, fsck. The shape Merritt's tools read
 * (the default) is {@link CompletedJobMerrittShapeTest}'s.
 */
class CompactionTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    static final Set<String> KEPT = Set.of("status");
    @TempDir
    Path dir;
    QueueStore store;
    ConsistencyCheck fsck;

    @BeforeEach
    void setUp() {
        store = ZK.store(dir);
        store.jobs().merrittNeighbours(false);
        fsck = new ConsistencyCheck(store);
    }

    /** A job of its own batch, walked to notify with every kind of outside effect recorded as the steps record them. */
    String jobInNotifyWithEffects() {
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        // another job bound the local id first: this mint's ARK is left unused (an fsck notice)
        QueueTestSupport.walkToNotifyWithEffects(store, jid, new Identifiers("ark:/99999/fk4kept", List.of("loc0")),
                "ark:/99999/fk4unused");
        HeldJob lock = store.claims().claim(JobState.NOTIFY, store.jobs().load(jid).refName(), "worker").orElseThrow();
        store.stepWrites().effectDone(lock, JobEffects.CALLBACK, "completed");
        store.moves().unlock(lock);
        return jid;
    }

    void complete(String jid) {
        HeldJob lock = store.claims().claim(JobState.NOTIFY, store.jobs().load(jid).refName(), "worker").orElseThrow();
        store.moves().transition(lock, JobState.COMPLETED, Change.because("step succeeded"));
    }

    /** Every znode of the job: its node, its children, and any reference to it anywhere in the queue. */
    Set<String> znodes(String jid) throws Exception {
        Set<String> out = new TreeSet<>();
        for (String path : QueueTestSupport.tree(ZK.client()).keySet()) {
            if (path.endsWith("/" + jid) || path.endsWith("-" + jid) || path.startsWith(QueuePaths.job(jid) + "/")) {
                out.add(path);
            }
        }
        return out;
    }

    /**
     * The claim's read finds every child the job has (their number is the job node's), so
     * completing deletes what it found without listing them; a claim that only counted them lists
     * them with one request, one that did neither asks their number first.
     */
    @Test
    void completingDeletesTheChildrenTheClaimFoundWithoutListingThem() throws Exception {
        List<String> jids = List.of(jobInNotifyWithEffects(), jobInNotifyWithEffects(), jobInNotifyWithEffects());
        long[] ops = new long[3];
        for (int i = 0; i < 3; i++) {
            String jid = jids.get(i);
            HeldJob lock = store.claims()
                    .claim(JobState.NOTIFY, store.jobs().load(jid).refName(), "worker")
                    .orElseThrow();
            assertEquals(Set.copyOf(ZK.client().getChildren().forPath(QueuePaths.job(jid))), lock.chain().children(),
                    "its lock included");
            assertEquals(lock.chain().children().size(), lock.chain().childCount());
            if (i > 0) {
                lock.chain(c -> c.withChildren(null)); // as after a claim whose read was damaged: listed
            }
            if (i > 1) {
                lock.chain(c -> c.withChildCount(-1)); // nor counted: the folder's Stat is asked first
            }
            long before = store.operations();
            store.moves().transition(lock, JobState.COMPLETED, Change.because("step succeeded"));
            ops[i] = store.operations() - before;
            assertEquals(KEPT, Set.copyOf(ZK.client().getChildren().forPath(QueuePaths.job(jid))));
            assertEquals(4, znodes(jid).size());
        }
        assertEquals(ops[0] + 1, ops[1], "listed: one request more");
        assertEquals(ops[0] + 2, ops[2], "counted and listed: two more");
    }

    /**
     * A child the lease chain did not know of (written by hand under
     * its lock) fails the move once; it is made again, listed.
     */
    @Test
    void aChildGoneUnknownToTheLeaseIsListedAndTheJobStillCompletes() throws Exception {
        String jid = jobInNotifyWithEffects();
        HeldJob lock = store.claims().claim(JobState.NOTIFY, store.jobs().load(jid).refName(), "worker").orElseThrow();
        assertTrue(lock.chain().children().contains("store"));
        ZK.client().delete().forPath(QueuePaths.jobNode(jid, "store")); // an operator's hand, under the lock
        store.moves().transition(lock, JobState.COMPLETED, Change.because("step succeeded"));
        assertEquals(JobState.COMPLETED, store.jobs().load(jid).state());
        assertEquals(KEPT, Set.copyOf(ZK.client().getChildren().forPath(QueuePaths.job(jid))));
    }

    @Test
    void aCompletedJobKeepsTwoZnodesOfItsOwnAndReadsAsBefore() throws Exception {
        String jid = jobInNotifyWithEffects();
        Job before = store.jobs().load(jid);
        JobEffects effectsBefore = store.jobs().effects(jid);
        ConsistencyCheck.Report fsckBefore = fsck.check();
        assertEquals(Set.of("configuration", "status", "priority", "space_needed", "identifiers", "bid", "effects",
                "metadata", "inventory", "store"), Set.copyOf(ZK.client().getChildren().forPath(QueuePaths.job(jid))));
        assertEquals(1, fsckBefore.notices().size(), "the unused ARK: " + fsckBefore);

        complete(jid);

        assertEquals(KEPT, Set.copyOf(ZK.client().getChildren().forPath(QueuePaths.job(jid))));
        Set<String> all = znodes(jid);
        assertEquals(4, all.size(), all.toString());
        assertTrue(all.contains(QueuePaths.jobRef(JobState.COMPLETED, 5, jid)), all.toString());
        assertTrue(all.contains(QueuePaths.batchRef(before.batchId(), BatchRef.COMPLETED, jid)), all.toString());

        Job after = store.jobs().load(jid);
        assertEquals(JobState.COMPLETED, after.state());
        assertEquals(before.configuration(), after.configuration());
        assertEquals(before.identifiers(), after.identifiers());
        assertEquals(before.batchId(), after.batchId());
        assertEquals(before.priority(), after.priority());
        assertEquals(before.spaceNeeded(), after.spaceNeeded());
        assertEquals(effectsBefore, store.jobs().effects(jid));
        assertEquals(5, effectsBefore.effects().size(), effectsBefore.toString());
        assertEquals(Map.of(jid, before.identifiers()), store.jobs().identifiers(List.of(jid)), "search's read");
        assertEquals(Map.of(jid, before.configuration()), store.jobs().configurations(List.of(jid)), "search's read");
        Jobs.Run run = store.jobs().run(List.of(jid));
        long ops = store.operations();
        assertEquals(List.of(after), run.load(List.of(jid)), "the report's read, from the status alone");
        assertEquals(0, store.operations() - ops, "no read past the statuses");
        HeldJob held = store.claims().tryLockJob(jid, "reader").orElseThrow();
        assertEquals(effectsBefore, store.stepWrites().effects(held), "a lock's read of the effects");
        store.moves().unlock(held);

        ConsistencyCheck.Report fsckAfter = fsck.check();
        assertTrue(fsckAfter.clean(), fsckAfter.toString());
        assertEquals(fsckBefore.violations(), fsckAfter.violations());
        assertEquals(fsckBefore.notices(), fsckAfter.notices());
    }

    @Test
    void aJobCompletedWhileAnMrtZkWrittenMetadataNodeExistsIsCompactedToo() throws Exception {
        String bid = store.batches().create(QueueTestSupport.submission("demo_content"));
        HeldBatch b = store.batches().tryLock(bid, "test").orElseThrow();
        JobConfiguration noErc = new JobConfiguration(null, "demo_content", "tester", "http://localhost/a.checkm",
                "object_manifest", "json", "add", null, "a", null, null, null, null, null, null, null, null, Map.of());
        store.batches().createJobs(b, List.of(new NewJob(noErc, new Identifiers(null, List.of("a")), 5)));
        store.moves().transition(b, BatchState.PROCESSING, "jobs created", null, null);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        QueueTestSupport.walk(store, jid, QueueTestSupport.pipelineTo(JobState.NOTIFY));
        assertFalse(ZK.client().getChildren().forPath(QueuePaths.job(jid)).contains("metadata"), "none of ours");
        ZK.client().create().forPath(QueuePaths.jobNode(jid, "metadata"),
                "{\"erc_who\":\"Merritt\"}".getBytes(StandardCharsets.UTF_8)); // as mrt-zk's Job.createJob leaves it

        complete(jid);

        assertEquals(KEPT, Set.copyOf(ZK.client().getChildren().forPath(QueuePaths.job(jid))));
        assertEquals(4, znodes(jid).size(), znodes(jid).toString());
        assertEquals(noErc.withBatchId(bid).withWorkingDir(store.jobs().load(jid).configuration().workingDir()),
                store.jobs().load(jid).configuration());
        assertTrue(fsck.check().clean(), fsck.check().toString());
    }

    @Test
    void compactedJobsAreRemovedWholeByCleanupAndDeletion() throws Exception {
        String jid = jobInNotifyWithEffects();
        String bid = store.jobs().load(jid).batchId();
        complete(jid);
        HeldBatch l = store.batches().tryLock(bid, "reporter").orElseThrow();
        store.moves().transition(l, BatchState.COMPLETED, "reported", null, null);
        AdminActions later =
                new AdminActions(store, Clock.fixed(Instant.now().plus(Duration.ofDays(8)), ZoneOffset.UTC));
        assertEquals(1, later.cleanup(Duration.ofDays(7)).jobs());
        assertEquals(Set.of(), znodes(jid));
        assertFalse(store.batches().exists(bid));
        assertTrue(fsck.check().clean(), fsck.check().toString());
    }

    @Test
    void aSummaryOfUnusuallyLongValuesIsCutToFitTheStatusNode() throws Exception {
        String bid = store.batches().create(QueueTestSupport.submission("demo_content"));
        HeldBatch b = store.batches().tryLock(bid, "test").orElseThrow();
        String longValue = "x".repeat(2000);
        JobConfiguration big = new JobConfiguration(null, "demo_content", longValue, "http://localhost/" + longValue,
                "object_manifest", "json", "add", null, longValue, longValue, null, null, null, longValue, longValue,
                longValue, longValue, Map.of("description", List.of(longValue, longValue, longValue)));
        store.batches().createJobs(b, List.of(new NewJob(big, new Identifiers(null, List.of(longValue)), 5)));
        store.moves().transition(b, BatchState.PROCESSING, "jobs created", null, null);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        QueueTestSupport.walk(store, jid, QueueTestSupport.pipelineTo(JobState.NOTIFY));

        complete(jid);

        Job after = store.jobs().load(jid);
        assertEquals(JobState.COMPLETED, after.state());
        assertNotNull(after.configuration().ercWhat());
        assertTrue(after.configuration().ercWhat().endsWith("..."), "cut, and says so");
        assertTrue(ZK.client().checkExists().forPath(QueuePaths.jobStatus(jid)).getDataLength() <= 16 * 1024);
        assertEquals("demo_content", after.configuration().profileName(), "short values whole");
        assertTrue(fsck.check().clean(), fsck.check().toString());
        assertEquals(5, after.priority(), "a cut summary keeps the job's priority: no node holds it");
        Jobs.Run run = store.jobs().run(List.of(jid));
        long ops = store.operations();
        assertEquals(List.of(after), run.load(List.of(jid)));
        assertEquals(0, store.operations() - ops, "from the status alone");
    }
}
