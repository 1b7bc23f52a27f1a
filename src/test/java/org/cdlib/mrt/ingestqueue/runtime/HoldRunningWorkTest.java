package org.cdlib.mrt.ingestqueue.runtime;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.cdlib.mrt.ingestqueue.cli.Commands;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.HeldBy;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobHistory;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.cdlib.mrt.ingestqueue.testing.merritt.MrtZk;
import org.cdlib.mrt.ingestqueue.testing.merritt.MrtZkAdminTool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Holding running work (issue 45) on two hosts and the real queue: a batch of jobs of unequal lengths, some in
 * their processing step (2 workers a host) and the rest waiting. Held through the API, the waiting ones stop where
 * they are as a worker takes them and the active ones at the end of their step; no step starts after that (counted
 * from each job's history in ZooKeeper and by the steps); the release resumes each where it was and the batch
 * completes with every object stored once. The same for a collection's hold; a job held by hand stays held.
 */
class HoldRunningWorkTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    static final ObjectMapper JSON = new ObjectMapper();
    static final Duration LIMIT = Duration.ofSeconds(30);
    static final int JOBS = 12;

    final Path dir = ZK.dir();
    RunningService a;
    RunningService b;
    QueueStore store;
    final CountDownLatch gate = new CountDownLatch(1);

    @BeforeEach
    void start() throws Exception {
        Map<String, String> two = Map.of("ingest.concurrency.processing", "2");
        a = RunningService.start(ZK.connectString(), dir.resolve("a"), two);
        b = RunningService.start(ZK.connectString(), dir.resolve("b"), two);
        store = a.store();
    }

    @AfterEach
    void stop() {
        gate.countDown();
        b.close();
        a.close();
    }

    /**
     * A batch whose jobs wait in processing on {@link #gate} (unequal: each a few ms longer than the one before
     * once the gate opens); returns when some are in the step (2 workers a host; the rest wait in its folder, or
     * handed over to a host whose workers are busy).
     */
    String runningBatch() throws Exception {
        return runningBatch(false);
    }

    /** As above; with {@code oneByHand}, its last job is held by an operator before it starts (it waits in held). */
    String runningBatch(boolean oneByHand) throws Exception {
        store.holds().holdQueue("test");
        String bid = QueueTestSupport.batchWithJobs(store, JOBS, 5);
        List<String> jids = jids(bid);
        if (oneByHand) {
            ok("POST", "/api/jobs/" + jids.get(JOBS - 1) + "/hold");
        }
        for (int i = 0; i < jids.size(); i++) {
            long extra = 5L * i;
            for (RunningService s : List.of(a, b)) {
                s.support().steps.get("processStep").behaviour.put(jids.get(i), e -> {
                    try {
                        assertTrue(gate.await(30, TimeUnit.SECONDS));
                        new CountDownLatch(1).await(extra, TimeUnit.MILLISECONDS); // an object a little larger
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
        }
        store.holds().releaseQueue();
        await().atMost(LIMIT).until(() -> seen("processStep").size() >= 2
                && store.jobs().count(JobState.PROCESSING) == JOBS - (oneByHand ? 1 : 0));
        return bid;
    }

    /** The jobs in their step once both hosts heard of the collection's hold. */
    List<String> activeOnceBothHostsHeard() {
        await().atMost(LIMIT).until(() -> a.store().holds().isCollectionHeld("demo_content")
                && b.store().holds().isCollectionHeld("demo_content"));
        return new ArrayList<>(seen("processStep"));
    }

    List<String> jids(String bid) {
        return store.batches().jobs(bid, BatchRef.PROCESSING);
    }

    /** What a step saw on both hosts: a job once per run. */
    List<String> seen(String step) {
        return Stream.concat(a.support().steps.get(step).seen.stream(), b.support().steps.get(step).seen.stream())
                .toList();
    }

    static Map<String, Long> times(List<String> seen) {
        return seen.stream().collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
    }

    JsonNode ok(String method, String path) throws Exception {
        HttpResponse<String> r = a.call(method, path);
        assertEquals(200, r.statusCode(), method + " " + path + ": " + r.body());
        return JSON.readTree(r.body());
    }

    int refused(String method, String path, String says) throws Exception {
        HttpResponse<String> r = a.call(method, path);
        assertTrue(r.body().contains(says), method + " " + path + ": " + r.body());
        return r.statusCode();
    }

    /** The command line against host a: its exit code, what it printed and what it complained of. */
    String[] cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Commands.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                Map.of("INGEST_URL", a.base(), "INGEST_USER", "alice:pw-a"));
        return new String[] {String.valueOf(code), out.toString(StandardCharsets.UTF_8),
            err.toString(StandardCharsets.UTF_8)};
    }

    /** Every transition a job made after {@code since}, from its history in ZooKeeper. */
    static List<JobHistory.Entry> after(Job job, Instant since) {
        return job.status().history().stream().filter(e -> !Instant.parse(e.at()).isBefore(since)).toList();
    }

    /** The jobs all held: each one's moves since the hold were into held only, each active one a step later. */
    void assertStoppedWhereTheyWere(String bid, Instant heldAt, List<String> active, String hold) {
        await().atMost(LIMIT).until(() -> store.jobs().count(JobState.HELD) == JOBS);
        assertEquals(active.size(), seen("processStep").size(), "no processing step started after the hold");
        assertEquals(List.of(), seen("storeStep"), "no storing step started after the hold");
        for (Job j : store.jobs().load(jids(bid))) {
            List<JobHistory.Entry> since = after(j, heldAt);
            assertEquals(1, since.size(), j.id() + ": " + since);
            assertEquals("held", since.get(0).to());
            assertEquals("processing", since.get(0).from());
            HeldBy by = j.status().stoppedByHold(j.statusVersion());
            assertNotNull(by, j.id() + " is the hold's");
            assertEquals(hold, by.hold());
            // where its release resumes it: the active ones at storing, the waiting ones at processing again
            assertEquals(active.contains(j.id()) ? JobState.PROCESSING : JobState.DOWNLOADING,
                    j.status().lastSuccessful(), j.id());
        }
        assertEquals(BatchState.PROCESSING, store.batches().load(bid).state(), "not reported while held");
    }

    void assertCompletedOnceEach(String bid) {
        assertStoredOnceEach(bid);
        Map<String, Long> processed = times(seen("processStep"));
        assertEquals(JOBS, processed.size());
        assertTrue(processed.values().stream().allMatch(n -> n == 1), "each processed once: " + processed);
    }

    void assertStoredOnceEach(String bid) {
        await().atMost(LIMIT).until(() -> store.batches().load(bid).state() == BatchState.COMPLETED);
        Map<String, Long> stored = times(seen("storeStep"));
        assertEquals(JOBS, stored.size(), "every object stored");
        assertTrue(stored.values().stream().allMatch(n -> n == 1), "each stored once: " + stored);
        assertEquals(JOBS, store.batches().load(bid).count(BatchRef.COMPLETED));
    }

    @Test
    void aRunningBatchStopsWhereItIsAndResumesThereAHandHeldJobStaysHeld() throws Exception {
        String bid = runningBatch(true);
        String byHand = jids(bid).get(JOBS - 1);
        Instant heldAt = Instant.now();
        JsonNode held = ok("POST", "/api/batches/" + bid + "/hold");
        await().atMost(LIMIT).until(() -> a.store().holds().isBatchHeld(bid) && b.store().holds().isBatchHeld(bid));
        List<String> active = new ArrayList<>(seen("processStep")); // in their step as both hosts heard of the hold
        assertEquals("processing", held.path("status").path("status").asText(), "its status stays for mrt-zk");
        assertNotNull(ZK.client().checkExists().forPath(QueuePaths.batchHold(bid)), "one node holds it");
        assertTrue(ok("GET", "/api/batches/" + bid).path("batch_held").asBoolean());
        assertEquals(409, refused("POST", "/api/batches/" + bid + "/hold", "held already"));

        gate.countDown(); // the active steps end
        // the hand-held job moved before the hold: it is the operator's, not the hold's
        await().atMost(LIMIT).until(() -> store.jobs().count(JobState.HELD) == JOBS);
        Job hand = store.jobs().load(byHand);
        assertNull(hand.status().stoppedByHold(hand.statusVersion()), "held by hand");
        List<String> stopped = jids(bid).stream().filter(j -> !j.equals(byHand)).toList();
        assertEquals(List.of(), after(hand, heldAt), "the hand-held job did not move");
        for (Job j : store.jobs().load(stopped)) {
            assertEquals(1, after(j, heldAt).size(), j.id() + ": " + after(j, heldAt));
            assertEquals(active.contains(j.id()) ? JobState.PROCESSING : JobState.DOWNLOADING,
                    j.status().lastSuccessful(), j.id());
        }
        assertEquals(active.size(), seen("processStep").size(), "no step started after the hold's active steps ended");
        assertEquals(List.of(), seen("storeStep"));

        ok("POST", "/api/batches/" + bid + "/release");
        await().atMost(LIMIT).until(() -> store.batches().load(bid).count(BatchRef.COMPLETED) == JOBS - 1);
        assertEquals(JobState.HELD, store.jobs().load(byHand).state(), "the hand-held job stays held");
        assertEquals(BatchState.PROCESSING, store.batches().load(bid).state(), "not reported while a job is held");
        assertEquals(List.of(), ZK.client().getChildren().forPath(QueuePaths.BATCH_RELEASES), "the release done");
        // the active ones resumed at storing: their processing step ran once, before the hold
        for (String jid : active) {
            assertEquals(1L, times(seen("processStep")).get(jid), jid);
        }
        ok("POST", "/api/jobs/" + byHand + "/release");
        assertCompletedOnceEach(bid);
    }

    @Test
    void aCollectionHoldStopsItsRunningBatchTheSameWay() throws Exception {
        String bid = runningBatch();
        Instant heldAt = Instant.now();
        ok("POST", "/api/collections/demo_content/hold");
        List<String> active = activeOnceBothHostsHeard();
        gate.countDown();
        assertStoppedWhereTheyWere(bid, heldAt, active, HeldBy.COLLECTION);
        assertEquals(409, refused("POST", "/api/collections/demo_content/release-all", "still held"));
        ok("POST", "/api/collections/demo_content/release");
        assertEquals(JOBS, ok("POST", "/api/collections/demo_content/release-all").path("released").asInt());
        assertCompletedOnceEach(bid);
    }

    @Test
    void theAdminToolsCollectionLockHoldsRunningWorkItsReleaseRestartsAtPending() throws Exception {
        String bid = runningBatch();
        MrtZkAdminTool tool = new MrtZkAdminTool(ZK.client().getZookeeperClient().getZooKeeper());
        Instant heldAt = Instant.now();
        assertTrue(tool.lockCollection("demo_content"));
        List<String> active = activeOnceBothHostsHeard();
        gate.countDown();
        assertStoppedWhereTheyWere(bid, heldAt, active, HeldBy.COLLECTION);
        MrtZk mrtZk = new MrtZk(ZK.client().getZookeeperClient().getZooKeeper());
        for (String jid : jids(bid)) {
            MrtZk.Loaded loaded = mrtZk.loadJob(jid); // mrt-zk's Job.load reads what the hold wrote
            assertEquals("Held", loaded.status(), jid);
            assertEquals(active.contains(jid) ? "Processing" : "Downloading", loaded.lastSuccessful(), jid);
        }
        tool.unlockCollection("demo_content"); // as Merritt: the unlock alone releases nothing
        for (String jid : jids(bid)) {
            tool.releaseJob(jid); // Held -> Pending, mrt-zk's only release
        }
        // restarted at pending (every job ran estimating twice, the active ones processing too), stored once
        assertStoredOnceEach(bid);
        assertTrue(times(seen("estimateStep")).values().stream().allMatch(n -> n == 2), "each restarted at pending");
        assertTrue(active.stream().allMatch(j -> times(seen("processStep")).get(j) == 2));
    }

    @Test
    void refusalsSayWhatIsStillRefused() throws Exception {
        String bid = runningBatch();
        assertEquals(409, refused("POST", "/api/batches/" + bid + "/release", "not held"));
        String[] notHeld = cli("release", bid);
        assertEquals("1", notHeld[0]);
        assertTrue(notHeld[2].contains("HTTP 409") && notHeld[2].contains("not held"), notHeld[2]);
        String[] held = cli("hold", bid); // the command line's hold of a running batch
        assertEquals("0", held[0], held[2]);
        assertTrue(held[1].contains("batch " + bid + ": held, now processing"), held[1]);
        await().atMost(LIMIT).until(() -> a.store().holds().isBatchHeld(bid) && b.store().holds().isBatchHeld(bid));
        // Merritt's Admin Tool holds one of the stopped jobs by hand after releasing it: no longer the hold's
        gate.countDown();
        await().atMost(LIMIT).until(() -> store.jobs().count(JobState.HELD) == JOBS);
        MrtZkAdminTool tool = new MrtZkAdminTool(ZK.client().getZookeeperClient().getZooKeeper());
        String jid = jids(bid).get(0);
        store.holds().holdQueue("test"); // the Admin Tool's Pending is not taken meanwhile
        tool.releaseJob(jid);
        tool.holdJob(jid);
        Job j = store.jobs().load(jid);
        assertEquals(HeldBy.BATCH, j.status().heldBy().hold(), "mrt-zk kept our field");
        assertNull(j.status().stoppedByHold(j.statusVersion()), "but the job is the Admin Tool's now");
        store.holds().releaseQueue();
        ok("POST", "/api/batches/" + bid + "/release");
        await().atMost(LIMIT).until(() -> store.batches().load(bid).count(BatchRef.COMPLETED) == JOBS - 1);
        assertEquals(JobState.HELD, store.jobs().load(jid).state());
        tool.releaseJob(jid);
        await().atMost(LIMIT).until(() -> store.batches().load(bid).state() == BatchState.COMPLETED);
        assertEquals(409, refused("POST", "/api/batches/" + bid + "/hold", "nothing is left to hold"));
    }
}
