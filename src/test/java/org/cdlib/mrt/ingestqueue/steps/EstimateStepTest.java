package org.cdlib.mrt.ingestqueue.steps;

import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.head;
import static com.github.tomakehurst.wiremock.client.WireMock.headRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.notFound;
import static com.github.tomakehurst.wiremock.client.WireMock.ok;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.cdlib.mrt.ingestqueue.steps.StepTestSupport.config;
import static org.cdlib.mrt.ingestqueue.steps.StepTestSupport.exchange;
import static org.cdlib.mrt.ingestqueue.steps.StepTestSupport.lockedJob;
import static org.cdlib.mrt.ingestqueue.steps.StepTestSupport.manifest;
import static org.cdlib.mrt.ingestqueue.steps.StepTestSupport.row;
import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.camel.Exchange;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.fetch.AddressPolicy;
import org.cdlib.mrt.ingestqueue.fetch.AnswerLimitException;
import org.cdlib.mrt.ingestqueue.fetch.FetchSettings;
import org.cdlib.mrt.ingestqueue.fetch.Fetcher;
import org.cdlib.mrt.ingestqueue.fetch.HostileServer;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.junit.jupiter.api.Test;

class EstimateStepTest extends WebStepTest {

    static final FetchSettings FAST = FetchSettings.defaults()
            .withAllow(AddressPolicy.LOOPBACK)
            .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(5))
            .withRetries(1, Duration.ofMillis(10));

    EstimateStep step(long largeBytes) {
        return new EstimateStep(new Fetcher(FAST, home), largeBytes, 90);
    }

    void sized(String path, long bytes) {
        web.stubFor(head(urlEqualTo(path)).willReturn(ok().withHeader("Content-Length", Long.toString(bytes))));
    }

    @Test
    void headSizesOfAnObjectManifestAreSummed() throws Exception {
        sized("/o/a.txt", 1_000);
        sized("/o/b.txt", 2_500);
        sized("/o/c.txt", 40_000);
        web.stubFor(get(urlEqualTo("/o/manifest.checkm")).willReturn(ok(manifest(
                row(url("/o/a.txt"), null, null, null, null), row(url("/o/b.txt"), null, null, null, null),
                row(url("/o/c.txt"), null, null, 7L, null)))));
        HeldJob lock = lockedJob(store, config(url("/o/manifest.checkm"), "object_manifest"), 5);
        Exchange ex = exchange(lock);
        step(1L << 40).process(ex);
        Change c = JobExchange.change(ex);
        assertEquals(43_500L, c.spaceNeeded(), "the server's size wins over the manifest's");
        assertNull(c.priority(), "a job of ordinary size keeps its priority");
        for (String f : new String[] {"/o/a.txt", "/o/b.txt", "/o/c.txt"}) {
            web.verify(1, headRequestedFor(urlEqualTo(f)));
            web.verify(0, getRequestedFor(urlEqualTo(f)));
        }
    }

    @Test
    void withoutContentLengthTheManifestSizeOrZeroCounts() throws Exception {
        // chunked: the HEAD answer carries no Content-Length
        web.stubFor(head(urlEqualTo("/o/declared.txt")).willReturn(ok().withHeader("Transfer-Encoding", "chunked")));
        web.stubFor(head(urlEqualTo("/o/unknown.txt")).willReturn(ok().withHeader("Transfer-Encoding", "chunked")));
        web.stubFor(head(urlEqualTo("/o/gone.txt")).willReturn(notFound()));
        sized("/o/known.txt", 100);
        web.stubFor(get(urlEqualTo("/o/m.checkm")).willReturn(ok(manifest(
                row(url("/o/declared.txt"), null, null, 321L, null), row(url("/o/unknown.txt"), null, null, null, null),
                row(url("/o/gone.txt"), null, null, 50L, null), row(url("/o/known.txt"), null, null, null, null)))));
        HeldJob lock = lockedJob(store, config(url("/o/m.checkm"), "object_manifest"), 5);
        assertEquals(321L + 0 + 50 + 100, step(1L << 40).estimate(lock.jid(), lock.job().configuration()));
    }

    @Test
    void anUnreachableManifestGivesZeroAndTheStepDoesNotFail() throws Exception {
        web.stubFor(get(urlEqualTo("/o/missing.checkm")).willReturn(notFound()));
        HeldJob lock = lockedJob(store, config(url("/o/missing.checkm"), "object_manifest"), 5);
        Exchange ex = exchange(lock);
        step(1L << 40).process(ex);
        assertEquals(0L, JobExchange.change(ex).spaceNeeded());

        HeldJob dead = lockedJob(store, config("http://127.0.0.1:1/nothing.checkm", "object_manifest"), 5);
        Exchange ex2 = exchange(dead);
        step(1L << 40).process(ex2);
        assertEquals(0L, JobExchange.change(ex2).spaceNeeded());

        HeldJob corrupt = lockedJob(store, config("ftp://example.org/x", "file"), 5);
        Exchange ex3 = exchange(corrupt);
        step(1L << 40).process(ex3);
        assertEquals(0L, JobExchange.change(ex3).spaceNeeded());
    }

    @Test
    void aLargeJobIsMovedLaterAndTheChangeIsWrittenWithTheTransition() throws Exception {
        sized("/big.tar", 5_000);
        HeldJob lock = lockedJob(store, config(url("/big.tar"), "container"), 5);
        store.moves().unlock(lock);
        lock = store.claims().claim(JobState.PENDING, lock.job().refName(), "t").orElseThrow();
        store.moves().transition(lock, JobState.ESTIMATING, Change.because("test"));
        lock = store.claims().claimNext(JobState.ESTIMATING, "t").orElseThrow();
        Exchange ex = exchange(lock);
        step(4_096).process(ex);
        assertEquals(90, JobExchange.change(ex).priority());
        store.moves().transition(lock, JobState.PROVISIONING, JobExchange.change(ex));
        assertEquals(90, store.jobs().load(lock.jid()).priority());
        assertEquals(5_000L, store.jobs().load(lock.jid()).spaceNeeded());
        assertEquals("90-" + lock.jid(), store.jobs().refs(JobState.PROVISIONING).get(0));
    }

    @Test
    void aJobAlreadyLaterThanTheLargePriorityKeepsIt() throws Exception {
        sized("/big2.tar", 5_000);
        HeldJob lock = lockedJob(store, config(url("/big2.tar"), "container"), 95);
        Exchange ex = exchange(lock);
        step(4_096).process(ex);
        assertNull(JobExchange.change(ex).priority());
        assertEquals(5_000L, JobExchange.change(ex).spaceNeeded());
    }

    @Test
    void anUploadedFileIsSizedFromDisk() throws Exception {
        Path upload = home.resolve("uploads/u1/a.bin");
        Files.createDirectories(upload.getParent());
        Files.write(upload, new byte[1234]);
        HeldJob lock = lockedJob(store, config(upload.toUri().toString(), "file"), 5);
        assertEquals(1234L, step(1L << 40).estimate(lock.jid(), lock.job().configuration()));
    }

    @Test
    void aHeadBeyondTheHeaderLimitFailsTheJobWhereAnyOtherFailureCountsZero() throws Exception {
        try (HostileServer hostile = new HostileServer(
                HostileServer.endlessLine())) {
            sized("/o/fine.txt", 10);
            web.stubFor(get(urlEqualTo("/o/m2.checkm"))
                    .willReturn(ok(manifest(
                            row(url("/o/fine.txt"), null, null, null, null),
                            row(hostile.url("/o/endless.txt"), null, null, 5L, null)))));
            HeldJob lock = lockedJob(store, config(url("/o/m2.checkm"), "object_manifest"), 5);
            AnswerLimitException e =
                    assertThrows(AnswerLimitException.class, () -> step(1L << 40)
                            .process(exchange(lock)));
            assertEquals(
                    hostile.url("/o/endless.txt")
                            + ": the server sent a line longer than 8192 bytes in its answer's head "
                            + "(limit ingest.download.max-line-length)",
                    e.getMessage());
            assertEquals(1, hostile.requests.size());
        }
    }

    @Test
    void aStepWhoseHeadsTheStopRefusedLeavesItsJobWhereItIsUnsized() throws Exception {
        sized("/o/s1.txt", 10);
        sized("/o/s2.txt", 20);
        web.stubFor(get(urlEqualTo("/o/s.checkm")).willReturn(ok(manifest(
                row(url("/o/s1.txt"), null, null, null, null), row(url("/o/s2.txt"), null, null, null, null)))));
        Fetcher fetcher = new Fetcher(FAST, home);
        HeldJob lock = lockedJob(store, config(url("/o/s.checkm"), "object_manifest"), 5);
        fetcher.stop(); // the service began to stop before the step

        Exchange ex = exchange(lock);
        new EstimateStep(fetcher, 1L << 40, 90).process(ex);

        String reason = JobExchange.stayReason(ex);
        assertTrue(reason.contains("not sent: the service is stopping"), reason);
        assertNull(JobExchange.change(ex).spaceNeeded(), "not counted as 0 bytes");
        web.verify(0, getRequestedFor(urlEqualTo("/o/s.checkm")));
        web.verify(0, headRequestedFor(urlEqualTo("/o/s1.txt")));
    }
}
