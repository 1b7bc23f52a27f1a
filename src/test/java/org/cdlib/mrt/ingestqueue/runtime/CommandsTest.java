package org.cdlib.mrt.ingestqueue.runtime;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.cli.Commands;
import org.cdlib.mrt.ingestqueue.queue.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.BatchState;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.TestZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The operator's command line against a running service: tables, actions, refusals and exit codes. */
class CommandsTest {
    @RegisterExtension
    static final TestZooKeeper ZK = new TestZooKeeper();
    @RegisterExtension
    static final WireMockExtension http = WireMockExtension.newInstance()
            .options(WireMockConfiguration.options().dynamicPort()).build();
    @TempDir
    Path dir;
    RunningService service;
    ServiceTestSupport support;
    QueueStore store;
    String url;

    @BeforeEach
    void start() throws Exception {
        service = RunningService.start(ZK.server().getConnectString(), dir,
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
        int code = Commands.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                Map.of("INGEST_URL", url, "INGEST_USER", "alice:pw-a"));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void statusHoldsFsckAndRequeueFailedWorkAgainstARunningService() {
        http.stubFor(get(urlEqualTo("/a.txt")).willReturn(aResponse().withBody("a")));
        Result status = run("status");
        assertEquals(0, status.code(), status.err());
        assertTrue(status.out().contains("jobs     pending") && status.out().contains("queue held: no"), status.out());

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
        assertTrue(run("batches").out().contains(bid));
        assertEquals(0, run("health").code());
    }

    @Test
    void refusalsUsageAndAnUnreachableServiceHaveTheirOwnExitCodes() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int noAdmin = Commands.run(new String[] {"hold-queue"}, new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of("INGEST_URL", url, "INGEST_USER", "rita:pw-r"));
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
}
