package org.cdlib.mrt.ingestqueue.runtime;

import static org.cdlib.mrt.ingestqueue.runtime.BesideMerrittRig.within;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.testing.merritt.MrtZk;
import org.cdlib.mrt.ingestqueue.testing.merritt.MrtZkDaemon;
import org.junit.jupiter.api.Test;

/**
 * Issue 42: Merritt's ingest daemons (mrt-ingest through mrt-zk's Java, {@code MrtZkDaemon}) on
 * the ensemble of a running service: its front end's batches are taken within seconds, its batch
 * consumer's batches complete and report, its workers' moves keep our counters exact, and a job
 * one side holds is never worked by the other.
 */
class BesideMerrittDaemonsTest extends BesideMerrittTest {
    static final String CONFIGURATION = "{\"submissionDate\":\"2026-11-24T10:00:00+00:00\",\"batchID\":\"%s\","
            + "\"jobID\":\"jid-%s\",\"profile\":\"demo_content\",\"type\":\"file\",\"submitter\":\"merritt\","
            + "\"filename\":\"hello.txt\",\"update\":false,\"title\":\"T\",\"creator\":\"C\",\"localID\":\"%s\","
            + "\"responseForm\":\"json\"}";

    /** An upload where Merritt keeps it, and {@code Batch.createBatch} with the front end's submission. */
    String merrittBatch() throws Exception {
        String uuid = "bid-" + UUID.randomUUID();
        Files.writeString(
                Files.createDirectories(rig.home.resolve("uploads").resolve(uuid))
                        .resolve("hello.txt"),
                "hello");
        return rig.daemon.createBatch(uuid, MrtZk.submission(uuid, "hello.txt"));
    }

    void awaitBatchEnds(String bid, String mrtZkState) {
        within(
                "batch " + bid + " " + mrtZkState + " (mrt-zk reads)",
                () -> mrtZkState.equals(rig.adminTool.loadBatch(bid).status()),
                () -> rig.adminTool.loadBatch(bid).status() + ", API " + rig.apiBatchState(bid));
    }

    @Test
    void aCreateBatchBatchIsTakenWithinSecondsWhateverIdsOthersDrew() throws Exception {
        // others drew ids: scratch nodes under /batches made and deleted, and batches of ours, push the cversion on
        for (int i = 0; i < 30; i++) {
            String scratch = rig.merrittClient
                    .create()
                    .withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                    .forPath("/batches/bid");
            rig.merrittClient.delete().forPath(scratch);
        }
        rig.ourBatch(1);
        String bid = merrittBatch();
        within(
                "createBatch batch " + bid + " taken into our queue",
                () -> !"Pending".equals(rig.adminTool.loadBatch(bid).status()) && !"404".equals(rig.apiBatchState(bid)),
                () -> rig.adminTool.loadBatch(bid).status());
        awaitBatchEnds(bid, "Completed");
        assertEquals(1, rig.get("/api/batches/" + bid).get("jobs").get("total").asInt());
    }

    @Test
    void aStatuslessRootIsPassedOverAndDoesNotStopTheIntake() throws Exception {
        String half = rig.merrittClient
                .create()
                .withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                .forPath("/batches/bid", new byte[0])
                .substring("/batches/".length());
        String bid = merrittBatch();
        within(
                "createBatch batch " + bid + " taken past the status-less root " + half,
                () -> !"Pending".equals(rig.adminTool.loadBatch(bid).status()),
                () -> rig.adminTool.loadBatch(bid).status());
        awaitBatchEnds(bid, "Completed");
        String later = merrittBatch();
        awaitBatchEnds(later, "Completed");
        rig.merrittClient.delete().forPath("/batches/" + half);
    }

    /** mrt-ingest's BatchConsumer takes the batch itself and creates its jobs; we work them and report the batch. */
    @Test
    void jobsOfABatchTheirBatchConsumerTookCompleteAndReport() throws Exception {
        // our intake waits while their consumer takes it (their batch consumer polls faster)
        rig.adminTool.lockIngestQueue();
        String bid;
        List<String> jids = new ArrayList<>();
        try {
            bid = merrittBatch();
            String taken;
            do {
                taken = rig.daemon.acquirePendingBatch();
            } while (taken != null && !taken.equals(bid));
            assertEquals(bid, taken, "their BatchConsumer took the batch");
            String uuid = rig.adminTool.loadBatch(bid).data.get("batchID").asText();
            for (int i = 0; i < 3; i++) {
                jids.add(rig.daemon.createJob(bid, 5, String.format(CONFIGURATION, uuid, i, "their-" + i),
                        "{\"primary_id\":\"\",\"local_id\":[\"their-" + i + "\"]}"));
            }
            rig.daemon.unlock("/batches/" + bid);
        } finally {
            rig.adminTool.unlockIngestQueue();
        }
        for (String jid : jids) {
            // read as the Admin Tool's list reads (load_optimized): Job.load without the job's lock would set its
            // state references from what it read, leaving one behind a job that moved on meanwhile
            within(
                    "their job " + jid + " Completed",
                    () -> "Completed".equals(rig.adminTool.loadOptimized(jid).status()),
                    () -> rig.adminTool.loadOptimized(jid).status() + ", API " + rig.apiJobState(jid));
        }
        // their BatchReportConsumer reports the batch their BatchConsumer took (acquireBatchForReporting on this
        // batch: locked, Reporting; its mail; Completed, unlocked); ours leaves it to them: one report
        within(
                "batch " + bid + " lockable by their reporter",
                () -> rig.daemon.lock("/batches/" + bid),
                () -> "locked");
        rig.daemon.setBatchStatus(bid, "Reporting", "");
        assertNull(rig.merrittClient.checkExists().forPath("/batches/" + bid + "/status-report"), "not reported by us");
        rig.daemon.setBatchStatus(bid, "Completed", "");
        rig.daemon.unlock("/batches/" + bid);
        awaitBatchEnds(bid, "Completed");
        within(
                "our API shows it completed",
                () -> "completed".equals(rig.apiBatchState(bid)),
                () -> rig.apiBatchState(bid));
        assertEquals(
                3, rig.get("/api/batches/" + bid).get("jobs").get("total").asInt(), "our views count their 3 jobs");
        assertTrue(rig.fsck().clean(), rig.fsck().toString());
    }

    /** Their estimate consumer sets space_needed and moves jobs on, beside ours: our counters stay exact. */
    @Test
    void theirMovesKeepOurCountersExact() throws Exception {
        String bid = rig.ourBatch(12);
        List<String> jids = rig.store.batches().jobs(bid, BatchRef.PROCESSING);
        Thread theirs = new Thread(() -> {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            try {
                while (System.nanoTime() < end && !Thread.currentThread().isInterrupted()) {
                    for (String state : List.of("Estimating", "Provisioning", "Downloading")) {
                        MrtZkDaemon.DaemonJob j = rig.daemon.acquireJob(state);
                        if (j != null) {
                            if (state.equals("Estimating")) {
                                rig.merrittClient
                                        .setData()
                                        .withVersion(-1)
                                        .forPath(j.path() + "/space_needed", "1037".getBytes());
                            }
                            rig.daemon.setStatus(j, MrtZkDaemon.next(state), "");
                            rig.daemon.unlock(j);
                        }
                    }
                }
            } catch (Exception e) {
                // their consumer logs and polls on; a job it lost stays for us
            }
        });
        theirs.start();
        for (String jid : jids) {
            within(
                    "job " + jid + " completed",
                    () -> "completed".equals(rig.apiJobState(jid)),
                    () -> rig.apiJobState(jid));
        }
        theirs.interrupt();
        theirs.join();
        var report = rig.fsck();
        assertTrue(report.clean(), "counters exact after their moves: " + report);
    }

    /** A job their consumer holds is never worked by us; one our worker holds is never taken by theirs. */
    @Test
    void aJobTheyHoldIsNeverWorkedByUsAndOursNeverByThem() throws Exception {
        rig.store.holds().holdQueue("test");
        String bid;
        List<String> jids;
        MrtZkDaemon.DaemonJob theirs;
        try {
            bid = rig.ourBatch(2);
            jids = rig.store.batches().jobs(bid, BatchRef.PROCESSING);
            theirs = rig.daemon.acquireJob("Pending");
            assertTrue(theirs != null && jids.contains(theirs.id), "their InitializeConsumer took one of ours");
        } finally {
            rig.store.holds().releaseQueue();
        }
        String other = jids.stream().filter(j -> !j.equals(theirs.id)).findFirst().orElseThrow();
        CountDownLatch inStep = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        rig.support.steps.get("downloadStep").behaviour.put(other, e -> {
            inStep.countDown();
            try {
                letGo.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            assertTrue(inStep.await(30, TimeUnit.SECONDS), "our worker holds " + other + " in downloading");
            assertNull(
                    rig.daemon.acquireJob("Downloading"),
                    "their DownloadConsumer does not take the job our worker holds");
            assertEquals("Pending", rig.daemon.load(theirs.id).status);
            assertFalse(
                    rig.support.steps.get("estimateStep").seen.contains(theirs.id),
                    "we never worked the job they hold");
        } finally {
            letGo.countDown();
        }
        rig.daemon.setStatus(theirs, "Estimating", "");
        rig.daemon.unlock(theirs);
        for (String jid : jids) {
            within(
                    "job " + jid + " completed",
                    () -> "completed".equals(rig.apiJobState(jid)),
                    () -> rig.apiJobState(jid));
        }
        assertNotEquals(0, rig.support.steps.get("provisionStep").seen.stream().filter(theirs.id::equals).count());
        assertTrue(rig.fsck().clean(), rig.fsck().toString());
    }
}
