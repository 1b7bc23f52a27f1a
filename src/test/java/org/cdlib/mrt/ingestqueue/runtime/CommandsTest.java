package org.cdlib.mrt.ingestqueue.runtime;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.WireMockServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.cdlib.mrt.ingestqueue.cli.Commands;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The operator's command line against a running service: tables, actions, refusals and exit codes. */
class CommandsTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().withHttp();
    static final WireMockServer http = ZK.http();
    final Path dir = ZK.dir();
    RunningService service;
    ServiceTestSupport support;
    QueueStore store;
    String url;

    @BeforeEach
    void start() throws Exception {
        service = RunningService.start(ZK.connectString(), dir,
                Map.of("ingest.api.users", "alice:pw-a:admin|submitter, rita:pw-r"));
        support = service.support();
        store = service.store();
        url = service.base();
    }

    @AfterEach
    void stop() {
        service.close();
    }

    record Result(int code, String out, String err) {
    }

    Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Commands.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                Map.of("INGEST_URL", url, "INGEST_USER", "alice:pw-a"));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void statusHoldsFsckAndRequeueFailedWorkAgainstARunningService() {
        http.stubFor(get(urlEqualTo("/a.txt")).willReturn(aResponse().withBody("a")));
        Result status = run("status");
        assertEquals(0, status.code(), status.err());
        assertTrue(status.out().contains("pending") && status.out().contains("queue held: no"), status.out());
        assertTrue(
                status.out().matches("(?s).*open jobs\\s+active\\s+\\d+.*open jobs\\s+waiting\\s+\\d+.*"),
                status.out());

        assertEquals(0, run("hold-queue").code());
        assertTrue(store.holds().isQueueHeld());
        Result again = run("hold-queue");
        assertEquals(1, again.code());
        assertTrue(again.err().contains("HTTP 409") && again.err().contains("already held"), again.err());
        assertEquals(0, run("release-queue").code());
        assertFalse(store.holds().isQueueHeld());

        String jid = "jid0000000001"; // the first job of a fresh queue
        support.failOnce("downloadStep", jid, "the server said 404");
        String bid = store.batches().create(PipelineTest.submission(http.baseUrl() + "/a.txt", "file"));
        await().atMost(Duration.ofSeconds(30)).until(() -> store.batches().load(bid).state() == BatchState.FAILED);
        Result failed = run("jobs", "--state", "failed");
        assertEquals(0, failed.code());
        assertTrue(failed.out().contains(jid) && failed.out().contains("the server said 404"), failed.out());

        Result requeued = run("requeue-failed", bid);
        assertEquals(0, requeued.code(), requeued.err());
        assertTrue(requeued.out().contains("1 failed job(s) of " + bid + " requeued"), requeued.out());
        await().atMost(Duration.ofSeconds(30)).until(() -> store.batches().load(bid).count(BatchRef.COMPLETED) == 1);

        Result fsck = run("fsck");
        assertEquals(0, fsck.code(), fsck.out());
        assertTrue(fsck.out().contains("clean"), fsck.out());
        Result batches = run("batches");
        String header = batches.out().lines().findFirst().orElseThrow();
        assertTrue(batches.out().contains(bid) && header.endsWith("open  rate/min"), batches.out());
        // the glossary's words: the open jobs as active / waiting / held, the batch's rate, its hold and estimate
        Result one = run("batch", bid);
        assertTrue(one.out().contains("open jobs  0 active, 0 waiting, 0 held") && one.out().contains("estimate"),
                one.out());
        assertEquals(0, run("health").code());
    }

    @Test
    void refusalsUsageAndAnUnreachableServiceHaveTheirOwnExitCodes() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int noAdmin = Commands.run(
                new String[] {"hold-queue"},
                new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                Map.of("INGEST_URL", url, "INGEST_USER", "rita:pw-r"));
        assertEquals(1, noAdmin);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("HTTP 403"), err.toString(StandardCharsets.UTF_8));
        assertEquals(2, run("frobnicate").code());
        assertEquals(2, run("requeue-failed").code());
        Result help = run("--help");
        assertEquals(0, help.code());
        assertTrue(help.out().contains("requeue-failed <batch id>"));
        Result down = run("status", "--url", "http://127.0.0.1:1");
        assertEquals(3, down.code());
        assertTrue(down.err().contains("cannot reach the service"), down.err());
        for (String command : List.of("status", "fsck", "jobs")) {
            assertTrue(Commands.NAMES.contains(command));
        }
    }

    static final ObjectMapper JSON = new ObjectMapper();

    /** A one-file batch whose job fails in downloading, ended (reported FAILED); its job id. */
    String failedJob(String jid) {
        http.stubFor(get(urlEqualTo("/a.txt")).willReturn(aResponse().withBody("a")));
        support.failOnce("downloadStep", jid, "the server said 404");
        String bid = store.batches().create(PipelineTest.submission(http.baseUrl() + "/a.txt", "file"));
        await().atMost(Duration.ofSeconds(30)).until(() -> store.batches().load(bid).state() == BatchState.FAILED);
        return bid;
    }

    @Test
    void aJobIsShownRequeuedHeldListedReleasedAndDeletedAndABatchHeldReleasedAndDeleted() throws Exception {
        String jid = "jid0000000001";
        String bid = failedJob(jid);
        Result shown = run("job", jid);
        assertEquals(0, shown.code(), shown.err());
        assertTrue(
                shown.out().contains("failed (last successful: provisioning)")
                        && shown.out().contains("the server said 404")
                        && shown.out().contains("provisioning  downloading")
                        && shown.out().contains(http.baseUrl() + "/a.txt")
                        && shown.out().contains("demo_content"),
                shown.out());
        var json = JSON.readTree(run("job", jid, "--json").out());
        assertEquals(jid, json.get("job_id").asText());
        assertEquals("failed", json.get("status").get("status").asText());

        Result notHeld = run("hold", jid);
        assertEquals(1, notHeld.code(), "a failed job cannot be held");
        assertTrue(notHeld.err().contains("HTTP 409"), notHeld.err());

        assertEquals(0, run("hold-queue").code()); // nothing moves: the job stays where each command puts it
        Result requeued = run("requeue", jid);
        assertEquals(0, requeued.code(), requeued.err());
        assertTrue(requeued.out().startsWith("job " + jid + ": requeued, now "), requeued.out());
        Result held = run("hold", jid);
        assertEquals(0, held.code(), held.err());
        assertEquals("job " + jid + ": held, now held", held.out().strip());
        Result list = run("jobs", "--state", "held");
        assertTrue(list.out().contains(jid) && list.out().contains("held"), list.out());
        assertEquals(
                jid,
                JSON.readTree(run("--json", "jobs", "--state", "held").out())
                        .get("jobs")
                        .get(0)
                        .get("job_id")
                        .asText());
        assertTrue(run("job", jid).out().contains("held"));
        Result released = run("release", jid);
        assertEquals(0, released.code(), released.err());
        Result heldNow = run("jobs", "--state", "held"); // a list that failed to come would show no job either
        assertEquals(0, heldNow.code(), heldNow.err());
        assertTrue(heldNow.out().lines().noneMatch(l -> l.contains(jid)), heldNow.out());
        assertEquals(0, run("hold", jid).code());
        Result deleted = run("delete", jid);
        assertEquals(0, deleted.code(), deleted.err());
        assertEquals("job " + jid + ": deleted", deleted.out().strip());
        Result gone = run("job", jid);
        assertEquals(1, gone.code());
        assertTrue(gone.err().contains("HTTP 404"), gone.err());

        // a batch waits in pending while the queue is held: held and released there, then run
        String next = store.batches().create(PipelineTest.submission(http.baseUrl() + "/a.txt", "file"));
        assertEquals(0, run("hold", next).code());
        assertEquals(BatchState.HELD, store.batches().load(next).state());
        assertEquals(0, run("release", next).code());
        assertEquals(0, run("release-queue").code());
        await().atMost(Duration.ofSeconds(30)).until(() -> store.batches().load(next).state() == BatchState.COMPLETED);
        Result batchDeleted = run("--json", "delete", bid);
        assertEquals(0, batchDeleted.code(), batchDeleted.err());
        assertEquals(bid, JSON.readTree(batchDeleted.out()).get("deleted").asText());
        assertFalse(store.batches().exists(bid));
        Result unknown = run("release", "bid0000009999");
        assertEquals(1, unknown.code());
        assertTrue(unknown.err().contains("HTTP 404"), unknown.err());
        assertEquals(2, run("hold", "frob").code());
        assertEquals(2, run("job").code());
    }

    @Test
    void aBatchsFailedJobsAreRequeuedByItsId() throws Exception {
        String bid = failedJob("jid0000000001");
        Result requeued = run("requeue", bid);
        assertEquals(0, requeued.code(), requeued.err());
        assertTrue(
                requeued.out().contains("requeued jid0000000001")
                        && requeued.out().contains("1 failed job(s) of " + bid + " requeued"),
                requeued.out());
        await().atMost(Duration.ofSeconds(30)).until(() -> store.batches().load(bid).count(BatchRef.COMPLETED) == 1);
        Result none = run("--json", "requeue", bid);
        assertEquals(0, none.code(), none.err());
        assertEquals(0, JSON.readTree(none.out()).get("requeued").size());
    }

    @Test
    void aStuckLockIsBrokenOnlyWhenConfirmed() throws Exception {
        http.stubFor(get(urlEqualTo("/a.txt")).willReturn(aResponse().withBody("a")));
        String jid = "jid0000000001"; // stuck in downloading with its lock held
        CountDownLatch stuck = new CountDownLatch(1);
        support.steps.get("downloadStep").behaviour.put(jid, e -> {
            try {
                stuck.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            store.batches().create(PipelineTest.submission(http.baseUrl() + "/a.txt", "file"));
            await().atMost(Duration.ofSeconds(30)).until(() -> run("job", jid).out().contains("downloading")
                    && store.jobs().load(jid).lockOwner() != null);
            assertTrue(
                    run("job", jid).out().lines().anyMatch(l -> l.startsWith("lock") && l.length() > "lock".length()));
            Result held = run("hold", jid);
            assertEquals(1, held.code(), "a locked job is not held");
            Result asked = run("unlock", jid);
            assertEquals(1, asked.code());
            assertTrue(asked.err().contains("(add --confirm)"), asked.err());
            assertTrue(store.jobs().load(jid).lockOwner() != null, "nothing changed");
            Result broken = run("unlock", jid, "--confirm");
            assertEquals(0, broken.code(), broken.err());
            assertTrue(
                    broken.out().startsWith("job " + jid + ": lock of ")
                            && broken.out().contains("broken"),
                    broken.out());
        } finally {
            stuck.countDown();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> store.jobs().load(jid).state() == JobState.COMPLETED);
        Result notLocked = run("unlock", jid, "--confirm");
        assertEquals(1, notLocked.code());
        assertTrue(notLocked.err().contains("not locked"), notLocked.err());
    }
}
