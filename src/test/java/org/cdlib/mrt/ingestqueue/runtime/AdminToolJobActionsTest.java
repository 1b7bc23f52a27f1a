package org.cdlib.mrt.ingestqueue.runtime;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.WireMockServer;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.zookeeper.ZooKeeper;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.cdlib.mrt.ingestqueue.testing.merritt.MrtZkAdminTool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every JOB-level action of Merritt's Admin Tool, made through the Ruby gem's calls exactly
 * ({@link MrtZkAdminTool}: the status rewritten whole with {@code setData(-1)}, the state reference
 * moved by a delete and a create, no multi), on a running service: its effect within 10 s, as
 * Merritt's operators expect, and our API shows it (issue 42).
 */
class AdminToolJobActionsTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().withHttp();
    static final WireMockServer http = ZK.http();
    static final ObjectMapper JSON = new ObjectMapper();
    static final Duration TEN_SECONDS = Duration.ofSeconds(10);
    static final String ARK = "ark:/99999/fk4admintool";

    final Path dir = ZK.dir();
    RunningService service;
    QueueStore store;
    MrtZkAdminTool tool;
    ZooKeeper raw;

    @BeforeEach
    void start() throws Exception {
        service = RunningService.start(ZK.connectString(), dir);
        store = service.store();
        raw = ZK.client().getZookeeperClient().getZooKeeper(); // another session, as the Admin Tool's
        tool = new MrtZkAdminTool(raw);
    }

    @AfterEach
    void stop() {
        service.close();
    }

    JsonNode ok(String method, String path) throws Exception {
        HttpResponse<String> r = service.call(method, path);
        assertEquals(200, r.statusCode(), method + " " + path + ": " + r.body());
        return JSON.readTree(r.body());
    }

    JsonNode job(String jid) throws Exception {
        return ok("GET", "/api/jobs/" + jid);
    }

    ServiceTestSupport.RecordingStep step(String name) {
        return service.support().steps.get(name);
    }

    /** A batch of {@code n} jobs made while the queue is held; {@code before} runs before it is let go. */
    List<String> jobs(int n, Consumer<List<String>> before) {
        store.holds().holdQueue("test");
        String bid = QueueTestSupport.batchWithJobs(store, n, 5);
        List<String> jids = store.batches().jobs(bid, BatchRef.PROCESSING);
        before.accept(jids);
        store.holds().releaseQueue();
        return jids;
    }

    /**
     * A job our processing worker holds, its ARK's object lock taken;
     * it waits for {@code go}, then fences and counts an outside call.
     */
    record HeldByOurWorker(String jid, CountDownLatch go, AtomicInteger outsideCalls, long inStepAt) {
        /**
         * Lets the worker on to its fence. A fence within 20 ms of a transaction that confirmed the
         * lock reads nothing (Lease's documented shortcut: an operator's break that close to a write
         * goes unseen as it would between a read and the send); the Fail came later than that here.
         */
        void goOn() {
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> System.nanoTime() - inStepAt > TimeUnit.MILLISECONDS.toNanos(40));
            go.countDown();
        }
    }

    HeldByOurWorker heldByOurWorker() throws Exception {
        CountDownLatch inStep = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        AtomicInteger outsideCalls = new AtomicInteger();
        List<String> jids = jobs(1, ids -> step("processStep").behaviour.put(ids.get(0), e -> {
            if (step("processStep").seen.size() > 1) {
                return; // the requeued run goes through
            }
            HeldJob lock = JobExchange.lock(e);
            store.stepWrites().writeIdentifiers(lock, new Identifiers(ARK, List.of("loc0")));
            assertNull(store.stepWrites().lockObject(lock, ARK));
            inStep.countDown();
            try {
                go.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
            lock.verifyHeld(); // the fence before an outside call
            outsideCalls.incrementAndGet();
        }));
        assertTrue(inStep.await(30, TimeUnit.SECONDS));
        long inStepAt = System.nanoTime();
        assertTrue(raw.exists(QueuePaths.objectLock(ARK), false) != null);
        return new HeldByOurWorker(jids.get(0), go, outsideCalls, inStepAt);
    }

    /** The worker stopped and let go of everything it held for the job; the job failed; our requeue works. */
    void stoppedAndRequeued(HeldByOurWorker w, String message) throws Exception {
        String jid = w.jid();
        await().atMost(TEN_SECONDS).untilAsserted(() -> {
            assertNull(raw.exists(QueuePaths.jobLock(jid), false), "no lock left on the job");
            assertNull(raw.exists(QueuePaths.objectLock(ARK), false), "nor on its object");
            assertEquals(0, store.claims().held().size(), "nothing of the job in our ledger");
            assertEquals(1, step("processStep").seen.size());
        });
        assertEquals(0, w.outsideCalls().get(), "the worker made no outside call after the Fail");
        JsonNode shown = job(jid);
        assertEquals("failed", shown.at("/status/status").asText(), shown.toString());
        assertEquals(message, shown.at("/status/error_message").asText(""), shown.toString());
        assertEquals(JobState.FAILED, store.jobs().find(jid).orElseThrow().state());

        ok("POST", "/api/jobs/" + jid + "/requeue");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> store.jobs().find(jid).orElseThrow().state() == JobState.COMPLETED);
        assertNull(raw.exists(QueuePaths.jobLock(jid), false));
        assertEquals(0, store.claims().held().size());
    }

    @Test
    void theAdminToolsFailOfAJobOurWorkerHoldsStopsItLetsGoOfEverythingAndOurRequeueWorks() throws Exception {
        HeldByOurWorker w = heldByOurWorker();
        tool.failJob(w.jid());
        w.goOn();
        stoppedAndRequeued(w, ""); // the Admin Tool's message: none
    }

    @Test
    void ourApisFailStopsTheWorkerTheSameWayAndIsRefusedForAFinishedJob() throws Exception {
        HeldByOurWorker w = heldByOurWorker();
        JsonNode failed = ok("POST", "/api/jobs/" + w.jid() + "/fail?reason=stuck+at+storage");
        assertEquals("failed", failed.at("/status/status").asText(), failed.toString());
        w.goOn();
        stoppedAndRequeued(w, "failed by alice: stuck at storage");

        HttpResponse<String> again = service.call("POST", "/api/jobs/" + w.jid() + "/fail");
        assertEquals(409, again.statusCode(), again.body());
        assertTrue(again.body().contains("completed"), again.body());
        assertEquals(404, service.call("POST", "/api/jobs/jid0000999999/fail").statusCode());
        assertEquals(400, service.call("POST", "/api/jobs/" + w.jid() + "/fail?reason=a%00b").statusCode());
    }

    String fileBatch(String name) {
        http.stubFor(get(urlEqualTo("/" + name)).willReturn(aResponse().withBody("x")));
        return store.batches().create(PipelineTest.submission(http.baseUrl() + "/" + name, "file"));
    }

    String onlyJob(String bid) {
        List<String> all = new ArrayList<>();
        for (BatchRef r : BatchRef.values()) {
            all.addAll(store.batches().jobs(bid, r));
        }
        assertEquals(1, all.size(), bid + ": " + all);
        return all.get(0);
    }

    String shownState(String jid) throws Exception {
        return job(jid).at("/status/status").asText();
    }

    @Test
    void aCollectionLockHoldsEachJobAsMerrittsAndTheAdminToolsReleaseAllReleasesThem() throws Exception {
        assertTrue(tool.lockCollection("demo_content"));
        String first = fileBatch("first.txt");
        String second = fileBatch("second.txt");

        // the batches' jobs are made; each pending job of the locked collection goes to held
        await().atMost(TEN_SECONDS).until(() -> store.batches().load(first).jobCount() == 1
                && store.batches().load(second).jobCount() == 1);
        String a = onlyJob(first);
        String b = onlyJob(second);
        await().atMost(TEN_SECONDS).untilAsserted(() -> {
            assertEquals("held", shownState(a));
            assertEquals("held", shownState(b));
        });
        assertTrue(ok("GET", "/api/queue").at("/holds/collections").toString().contains("demo_content"));

        // release-all while the collection is still locked: each released job goes back to held, as Merritt's
        assertEquals(2, tool.releaseAll().size());
        await().atMost(TEN_SECONDS).untilAsserted(() -> {
            assertEquals("held", shownState(a));
            assertEquals("held", shownState(b));
            assertTrue(step("estimateStep").seen.isEmpty(), "no job was worked");
        });

        // the unlock alone releases nothing (mrt-ingest's consumers never release a held job)
        tool.unlockCollection("demo_content");
        await().during(Duration.ofSeconds(2))
                .atMost(Duration.ofSeconds(3))
                .until(() -> store.jobs().refs(JobState.HELD).size() == 2);
        assertTrue(step("estimateStep").seen.isEmpty());

        // our API releases one, the Admin Tool's release-all the other: both batches complete
        ok("POST", "/api/jobs/" + a + "/release");
        assertEquals(1, tool.releaseAll().size());
        await().atMost(TEN_SECONDS).until(() -> store.batches().load(first).state() == BatchState.COMPLETED
                && store.batches().load(second).state() == BatchState.COMPLETED);
        assertEquals("completed", shownState(b));
    }

    @Test
    void theAdminToolsOtherJobActionsAreHonouredAndAnMrtZkWorkersLockIsNeverBroken() throws Exception {
        assertTrue(tool.lockIngestQueue());
        String bid = QueueTestSupport.batchWithJobs(store, 4, 5);
        List<String> jids = store.batches().jobs(bid, BatchRef.PROCESSING);
        String held = jids.get(0), mrtZkHolds = jids.get(1), requeued = jids.get(2), deleted = jids.get(3);
        await().during(Duration.ofSeconds(1))
                .atMost(Duration.ofSeconds(2))
                .until(() -> step("estimateStep").seen.isEmpty());
        assertTrue(ok("GET", "/api/queue").at("/holds/queue").asBoolean(), "the Admin Tool's queue lock is shown");

        tool.holdJob(held);
        tool.lock("/jobs/" + mrtZkHolds); // an mrt-zk worker holds it: an empty ephemeral lock
        service.support().failOnce("estimateStep", requeued, "boom");
        service.support().failOnce("estimateStep", deleted, "boom");
        tool.unlockIngestQueue();

        await().atMost(TEN_SECONDS).untilAsserted(() -> {
            assertEquals("held", shownState(held));
            assertEquals("failed", shownState(requeued));
            assertEquals("failed", shownState(deleted));
        });
        assertEquals("pending", shownState(mrtZkHolds));
        ok("POST", "/api/fsck/repair");
        assertTrue(
                raw.exists(QueuePaths.jobLock(mrtZkHolds), false) != null, "an mrt-zk lock is never broken unattended");
        assertFalse(step("estimateStep").seen.contains(mrtZkHolds), "nor its job worked");

        tool.requeueJob(requeued); // the gem's: lock, set_status Estimating with job_retry, unlock
        tool.deleteJob(deleted);
        tool.releaseJob(held);
        await().atMost(TEN_SECONDS).untilAsserted(() -> {
            assertEquals("completed", shownState(requeued));
            assertEquals("deleted", shownState(deleted));
            assertEquals("completed", shownState(held));
        });
        tool.unlock("/jobs/" + mrtZkHolds);
        await().atMost(TEN_SECONDS).until(() -> "completed".equals(shownState(mrtZkHolds)));
    }
}
