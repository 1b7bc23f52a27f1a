package org.cdlib.mrt.ingestqueue.queue.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.JobStatus;
import org.cdlib.mrt.ingestqueue.queue.model.JobSummary;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Beside Merritt's tools ({@code ingest.merritt.neighbours}, the default), a completed job keeps
 * every node they read, and our extras stay out of the {@code status} mrt-zk rewrites whole (issue
 * 42): the Admin Tool's Ruby loaders ({@code Job#load}, {@code load_optimized},
 * {@code list_jobs_as_json}) and mrt-zk's Java {@code Job.load} succeed on it, read here exactly as
 * they read it (raw ZooKeeper calls); a stale status written back by mrt-zk loses nothing of ours;
 * a job completed before, with its summary in status, is still read.
 */
class CompletedJobMerrittShapeTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    Path dir;
    QueueStore store;
    ConsistencyCheck fsck;
    CompactionTest walker;

    @BeforeEach
    void setUp() {
        store = ZK.store(dir);
        fsck = new ConsistencyCheck(store);
        walker = new CompactionTest(); // its walk of a job through every step, recording every kind of effect
        walker.store = store;
        walker.fsck = fsck;
    }

    ZooKeeper zk() throws Exception {
        return ZK.client().getZookeeperClient().getZooKeeper();
    }

    /** A node's text as mrt-zk's {@code string_property} / {@code stringProperty} read it: missing is an error. */
    String string(String path) throws Exception {
        assertNotNull(zk().exists(path, false), "mrt-zk's loader: Node Object for (" + path + ") missing");
        byte[] data = zk().getData(path, false, new Stat());
        assertNotNull(data, path + ": no data");
        return new String(data, StandardCharsets.UTF_8);
    }

    /** As mrt-zk's {@code json_property} / {@code jsonProperty}: a JSON object (list_jobs_as_json adds keys to it). */
    ObjectNode json(String path) throws Exception {
        JsonNode n = JSON.readTree(string(path));
        assertTrue(n instanceof ObjectNode, path + " is not a JSON object: " + n);
        return (ObjectNode) n;
    }

    /** As {@code optJsonProperty} / the Ruby's {@code if zk.exists?}: absent is fine, present must be an object. */
    void optionalJson(String path) throws Exception {
        if (zk().exists(path, false) != null) {
            json(path);
        }
    }

    /**
     * Every read the Admin Tool's Ruby {@code Job#load} (with {@code set_status_flag}), its
     * {@code load_optimized} and {@code list_jobs_as_json}, and mrt-zk's Java {@code Job.load} make
     * of one job; the state paths the Ruby load computes must exist (else it creates them).
     */
    void loadsAsMerrittsToolsDo(String jid) throws Exception {
        String path = "/jobs/" + jid;
        assertNotNull(zk().exists(path, false), "Missing Node " + path);
        ObjectNode status = json(path + "/status");
        assertEquals("Completed", status.path("status").asText());
        // Ruby: json_property (required); Java: optJsonProperty
        ObjectNode configuration = json(path + "/configuration");
        String bid = string(path + "/bid");
        int priority = Integer.parseInt(string(path + "/priority")); // Java's intProperty (Ruby's to_i is laxer)
        Long.parseLong(string(path + "/space_needed"));
        for (String optional : List.of("identifiers", "metadata", "inventory", "store")) {
            optionalJson(path + "/" + optional);
        }
        assertNotNull(zk().exists(String.format("%s/states/%s/%02d-%s", "/jobs", "completed", priority, jid), false),
                "Ruby's set_job_state_path finds the reference");
        assertNotNull(zk().exists(String.format("%s/%s/states/%s/%s", "/batches", bid, "batch-completed", jid), false),
                "Ruby's set_batch_state_path finds the reference");
        configuration.put("id", jid); // list_jobs_as_json: jobjson = job.data; jobjson[:id] = ...
        assertEquals(jid, configuration.get("id").asText());
    }

    @Test
    void everyCompletedJobLoadsInMerrittsToolsAndKeepsWhatTheyRead() throws Exception {
        String jid = walker.jobInNotifyWithEffects();
        Job before = store.jobs().load(jid);
        JobEffects effectsBefore = store.jobs().effects(jid);
        ConsistencyCheck.Report fsckBefore = fsck.check();
        Set<String> childrenBefore = Set.copyOf(ZK.client().getChildren().forPath(QueuePaths.job(jid)));

        walker.complete(jid);

        assertEquals(
                childrenBefore, Set.copyOf(ZK.client().getChildren().forPath(QueuePaths.job(jid))), "nothing deleted");
        assertTrue(
                childrenBefore.containsAll(Set.of(
                        "configuration",
                        "metadata",
                        "identifiers",
                        "status",
                        "bid",
                        "priority",
                        "space_needed",
                        "effects")),
                childrenBefore.toString());
        assertFalse(json(QueuePaths.jobStatus(jid)).has("summary"), "nothing of ours in mrt-zk's status");
        loadsAsMerrittsToolsDo(jid);

        // a second job, without mrt-zk's metadata, and the whole batch's list as list_jobs_as_json walks it
        String bid = before.batchId();
        for (String other : store.batches().jobs(bid, BatchRef.PROCESSING)) {
            QueueTestSupport.walk(store, other, QueueTestSupport.pipelineTo(JobState.COMPLETED));
        }
        List<String> completed =
                new ArrayList<>(zk().getChildren(QueuePaths.batchRefs(bid, BatchRef.COMPLETED), false));
        assertEquals(store.batches().load(bid).jobIds().size(), completed.size());
        for (String j : completed) {
            loadsAsMerrittsToolsDo(j);
        }

        Job after = store.jobs().load(jid);
        assertEquals(before.configuration(), after.configuration());
        assertEquals(before.identifiers(), after.identifiers());
        assertEquals(before.priority(), after.priority());
        assertEquals(effectsBefore, store.jobs().effects(jid));
        assertEquals(Map.of(jid, before.identifiers()), store.jobs().identifiers(List.of(jid)), "search's read");
        Jobs.Run run = store.jobs().run(List.of(jid));
        assertEquals(List.of(after), run.load(List.of(jid)), "the report's read");
        HeldJob held = store.claims().tryLockJob(jid, "reader").orElseThrow();
        assertEquals(effectsBefore, store.stepWrites().effects(held), "a lock's read of the effects");
        store.moves().unlock(held);
        ConsistencyCheck.Report fsckAfter = fsck.check();
        assertTrue(fsckAfter.clean(), fsckAfter.toString());
        assertEquals(fsckBefore.notices(), fsckAfter.notices());
    }

    /**
     * mrt-zk rewrites a status whole ({@code setData} at version -1, no lock) from the object it read:
     * written back from a read made before our completing move, it has none of our keys. Nothing of
     * the job's is lost by it.
     */
    @Test
    void aStaleStatusWrittenBackByMrtZkLosesNothingOfTheJob() throws Exception {
        String jid = walker.jobInNotifyWithEffects();
        Job before = store.jobs().load(jid);
        JobEffects effectsBefore = store.jobs().effects(jid);
        ObjectNode stale = json(QueuePaths.jobStatus(jid)); // the Admin Tool's read, before the move

        walker.complete(jid);
        stale.put("status", "Completed");
        stale.put("message", "");
        zk().setData(QueuePaths.jobStatus(jid), JSON.writeValueAsBytes(stale), -1);

        Job after = store.jobs().load(jid);
        assertEquals(JobState.COMPLETED, after.state());
        assertEquals(before.configuration(), after.configuration());
        assertEquals(before.identifiers(), after.identifiers());
        assertEquals(effectsBefore, store.jobs().effects(jid));
        assertEquals(5, store.jobs().effects(jid).effects().size());
        assertEquals(List.of(after), store.jobs().run(List.of(jid)).load(List.of(jid)), "the report's read");
        loadsAsMerrittsToolsDo(jid);
    }

    /** A job completed before issue 42: summary in its status, bid/priority/space_needed/identifiers kept. */
    @Test
    void aJobCompletedBeforeWithItsSummaryInStatusIsStillRead() throws Exception {
        List<String> jids = List.of(walker.jobInNotifyWithEffects(), walker.jobInNotifyWithEffects());
        List<Job> before = new ArrayList<>();
        List<JobEffects> effectsBefore = new ArrayList<>();
        for (int i = 0; i < jids.size(); i++) {
            String jid = jids.get(i);
            before.add(store.jobs().load(jid));
            effectsBefore.add(store.jobs().effects(jid));
            walker.complete(jid);
            Job done = store.jobs().load(jid);
            // rewritten by hand in the previous build's shape: whole summary (priority kept), or a cut one (none)
            JobSummary whole = JobSummary.of(
                    done.configuration(),
                    done.identifiers(),
                    effectsBefore.get(i),
                    done.priority(),
                    done.spaceNeeded(),
                    16 * 1024);
            JobSummary summary = i == 0 ? whole
                    : new JobSummary(whole.configuration(), whole.identifiers(), whole.effects(), null, null);
            JobStatus s = done.status();
            ZK.client().setData().forPath(QueuePaths.jobStatus(jid), QueueJson.write(new JobStatus(s.status(),
                    s.lastSuccessfulStatus(), s.lastModified(), s.retryCount(), s.message(), s.history(), summary)));
            for (String gone : List.of("configuration", "effects", "metadata", "inventory", "store")) {
                if (ZK.client().checkExists().forPath(QueuePaths.jobNode(jid, gone)) != null) {
                    ZK.client().delete().forPath(QueuePaths.jobNode(jid, gone));
                }
            }
            assertEquals(Set.of("status", "bid", "priority", "space_needed", "identifiers"),
                    Set.copyOf(ZK.client().getChildren().forPath(QueuePaths.job(jid))));
        }
        for (int i = 0; i < jids.size(); i++) {
            String jid = jids.get(i);
            Job after = store.jobs().load(jid);
            assertEquals(JobState.COMPLETED, after.state());
            assertEquals(before.get(i).configuration(), after.configuration());
            assertEquals(before.get(i).identifiers(), after.identifiers());
            assertEquals(before.get(i).priority(), after.priority());
            assertEquals(effectsBefore.get(i), store.jobs().effects(jid));
            assertEquals(Map.of(jid, before.get(i).configuration()), store.jobs().configurations(List.of(jid)));
            assertEquals(List.of(after), store.jobs().run(List.of(jid)).load(List.of(jid)), "the report's read");
        }
        ConsistencyCheck.Report report = fsck.check();
        assertTrue(report.clean(), report.toString());
        assertEquals(2, report.notices().size(), "each job's unused ARK, from its summary: " + report);
    }

    /**
     * Without Merritt neighbours the same job has no configuration
     * node: mrt-zk's Ruby load would fail on it, by choice.
     */
    @Test
    void withoutMerrittNeighboursAJobKeepsItsStatusAlone() throws Exception {
        store.jobs().merrittNeighbours(false);
        String jid = walker.jobInNotifyWithEffects();
        walker.complete(jid);
        assertEquals(List.of("status"), ZK.client().getChildren().forPath(QueuePaths.job(jid)));
        assertNull(ZK.client().checkExists().forPath(QueuePaths.jobNode(jid, "configuration")));
    }
}
