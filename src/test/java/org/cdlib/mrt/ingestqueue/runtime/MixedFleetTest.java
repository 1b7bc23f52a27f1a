package org.cdlib.mrt.ingestqueue.runtime;

import static org.cdlib.mrt.ingestqueue.runtime.BesideMerrittRig.within;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.cdlib.mrt.ingestqueue.testing.merritt.MrtZkDaemon;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 42: a mixed fleet. mrt-zk-style workers (mrt-ingest's Estimate and Provision consumers:
 * acquireJob, set space_needed, setStatus to the next state, unlock; two threads each) work
 * estimating and provisioning; our running service, without its own workers for those two states,
 * works the rest. 200 jobs in batches of unequal sizes: every job through each state exactly once
 * (counted, not a set), our counters exact (fsck clean), no lock left, every batch reported once.
 */
class MixedFleetTest {
    @TempDir
    Path dir;

    static long mails(BesideMerrittRig rig, String bid) {
        return List.of(rig.smtp.getReceivedMessages()).stream()
                .filter(m -> BesideMerrittAdminToolTest.subject(m).contains(bid))
                .count();
    }

    @Test
    void twoHundredJobsThroughMrtZkWorkersAndOursEachStateOnce() throws Exception {
        Map<String, String> extra = new HashMap<>();
        extra.put(
                "camel.main.routes-exclude-pattern",
                "**/processing.yaml,**/storing.yaml,**/recording.yaml,**/notify.yaml,"
                        + "**/estimating.yaml,**/provisioning.yaml");
        extra.put("ingest.handoff.wait", "0");
        try (BesideMerrittRig rig = new BesideMerrittRig(dir, extra)) {
            Map<String, Map<String, AtomicInteger>> theirMoves = new ConcurrentHashMap<>();
            AtomicReference<Throwable> broke = new AtomicReference<>();
            List<Thread> theirs = new ArrayList<>();
            for (String state : List.of("Estimating", "Provisioning")) {
                for (int t = 0; t < 2; t++) {
                    var client = QueueTestSupport.client(rig.zk); // each consumer its own session, as separate daemons
                    MrtZkDaemon daemon = new MrtZkDaemon(client.getZookeeperClient().getZooKeeper());
                    Thread th = new Thread(
                            () -> {
                                try {
                                    while (!Thread.currentThread().isInterrupted()) {
                                        MrtZkDaemon.DaemonJob j = daemon.acquireJob(state);
                                        if (j == null) {
                                            Thread.onSpinWait();
                                            continue;
                                        }
                                        if (!state.equals(j.status)) {
                                            // mrt-zk's acquireJob lists the state, then locks and loads without
                                            // checking the
                                            // status: a job its sibling worker moved on since the listing is let go
                                            // here
                                            // (their own race between two of their workers, not one with ours)
                                            daemon.unlock(j);
                                            continue;
                                        }
                                        theirMoves
                                                .computeIfAbsent(j.id, k -> new ConcurrentHashMap<>())
                                                .computeIfAbsent(state, k -> new AtomicInteger())
                                                .incrementAndGet();
                                        if (state.equals("Estimating")) {
                                            client.setData()
                                                    .withVersion(-1)
                                                    .forPath(j.path() + "/space_needed", "2048".getBytes());
                                        }
                                        daemon.setStatus(j, MrtZkDaemon.next(state), "");
                                        daemon.unlock(j);
                                    }
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                } catch (Exception e) {
                                    if (!Thread.currentThread().isInterrupted()) {
                                        broke.compareAndSet(null, e);
                                    }
                                } finally {
                                    client.close();
                                }
                            },
                            "mrt-zk-" + state + "-" + t);
                    theirs.add(th);
                    th.start();
                }
            }
            List<String> bids = new ArrayList<>();
            List<String> jids = new ArrayList<>();
            for (int size : new int[] {3, 17, 40, 60, 80}) {
                String bid = rig.ourBatch(size);
                bids.add(bid);
                jids.addAll(rig.store.batches().jobs(bid, BatchRef.PROCESSING));
            }
            assertEquals(200, jids.size());
            try {
                for (String bid : bids) {
                    within(
                            "batch " + bid + " reported",
                            () -> List.of("Completed", "Failed")
                                    .contains(rig.adminTool.loadBatch(bid).status()),
                            () -> rig.adminTool.loadBatch(bid).status() + " "
                                    + rig.get("/api/batches/" + bid).get("job_states")
                                    + (broke.get() == null ? "" : "; an mrt-zk worker broke: " + broke.get()));
                }
            } finally {
                theirs.forEach(Thread::interrupt);
                for (Thread th : theirs) {
                    th.join(10_000);
                }
            }
            assertEquals(null, broke.get(), "an mrt-zk worker broke");
            List<String> wrong = new ArrayList<>();
            for (String jid : jids) {
                Map<String, Integer> counts = new HashMap<>();
                theirMoves.getOrDefault(jid, Map.of()).forEach((s, n) -> counts.put(s, n.get()));
                for (String step : List.of("downloadStep", "processStep", "storeStep", "recordStep", "notifyStep")) {
                    counts.put(step, (int) rig.support.steps.get(step).seen.stream().filter(jid::equals).count());
                }
                if (counts.values().stream().anyMatch(n -> n != 1) || counts.size() != 7) {
                    wrong.add(jid + " " + counts);
                }
                if (!"Completed".equals(rig.daemon.load(jid).status)) {
                    wrong.add(jid + " ends " + rig.daemon.load(jid).status);
                }
                if (rig.merrittClient.checkExists().forPath("/jobs/" + jid + "/lock") != null) {
                    wrong.add(jid + " lock left");
                }
            }
            assertEquals(List.of(), wrong, "every job through each state exactly once, completed, unlocked");
            for (String bid : bids) {
                assertEquals("Completed", rig.adminTool.loadBatch(bid).status());
                within("batch " + bid + "'s report mailed", () -> mails(rig, bid) >= 1, () -> mails(rig, bid));
                assertEquals(1, mails(rig, bid), "batch " + bid + " reported once");
            }
            var report = rig.fsck();
            assertTrue(report.clean(), "counters exact, fsck clean: " + report);
        }
    }
}
