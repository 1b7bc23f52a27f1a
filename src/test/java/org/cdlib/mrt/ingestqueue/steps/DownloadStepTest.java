package org.cdlib.mrt.ingestqueue.steps;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.notFound;
import static com.github.tomakehurst.wiremock.client.WireMock.ok;
import static com.github.tomakehurst.wiremock.client.WireMock.temporaryRedirect;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.cdlib.mrt.ingestqueue.steps.StepTestSupport.config;
import static org.cdlib.mrt.ingestqueue.steps.StepTestSupport.exchange;
import static org.cdlib.mrt.ingestqueue.steps.StepTestSupport.lockedJob;
import static org.cdlib.mrt.ingestqueue.steps.StepTestSupport.manifest;
import static org.cdlib.mrt.ingestqueue.steps.StepTestSupport.row;
import static org.junit.jupiter.api.Assertions.*;

import com.github.tomakehurst.wiremock.http.Fault;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.apache.camel.Exchange;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.fetch.AddressPolicy;
import org.cdlib.mrt.ingestqueue.fetch.FetchException;
import org.cdlib.mrt.ingestqueue.fetch.FetchSettings;
import org.cdlib.mrt.ingestqueue.fetch.Fetcher;
import org.cdlib.mrt.ingestqueue.fetch.RangeServer;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class DownloadStepTest extends WebStepTest {

    static final FetchSettings FAST = FetchSettings.defaults()
            .withAllow(AddressPolicy.LOOPBACK)
            .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(5))
            .withRetries(2, Duration.ofMillis(10));

    DownloadStep step() {
        return step(FAST);
    }

    DownloadStep step(FetchSettings settings) {
        return new DownloadStep(new Fetcher(settings, home), home);
    }

    static Path producer(HeldJob lock) {
        return Path.of(lock.job().configuration().workingDir()).resolve("producer");
    }

    static String read(Path p) throws IOException {
        return Files.readString(p, StandardCharsets.UTF_8);
    }

    static String digest(DigestAlgorithm alg, String text) {
        DigestAlgorithm.Digester d = alg.newDigester();
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        d.update(b, 0, b.length);
        return d.hex();
    }

    void serve(String path, String body) {
        web.stubFor(get(urlEqualTo(path)).willReturn(ok(body)));
    }

    int gets(String path) {
        return web.countRequestsMatching(getRequestedFor(urlEqualTo(path)).build()).getCount();
    }

    // ------------------------------------------------------------------ payload types

    /** Each file of an object manifest resumes on its own: both cut, both asked only for their rest. */
    @Test
    void eachFileOfAManifestResumesOnItsOwn() throws Exception {
        long size = 1024L * 1024;
        try (RangeServer a = new RangeServer(size, 10); RangeServer b = new RangeServer(size + 1, 11)) {
            serve("/obj/two.checkm", manifest(
                    row(a.url(), "md5", a.digest(DigestAlgorithm.MD5), size, "a.bin"),
                    row(b.url(), "sha-256", b.digest(DigestAlgorithm.SHA256), size + 1, "sub/b.bin")));
            HeldJob lock = lockedJob(store, config(url("/obj/two.checkm"), "object_manifest"), 5);
            JobConfiguration c = lock.job().configuration();
            a.cutAfter(300_000);
            b.cutAfter(500_000);
            FetchSettings once = FAST.withRetries(0, Duration.ZERO);
            FetchException e = assertThrows(FetchException.class, () -> step(once).download(lock.jid(), c));
            assertTrue(e.getMessage().startsWith("2 of 2 files failed"), e.getMessage());
            assertEquals(2 * size + 1, step(once).download(lock.jid(), c));
            assertEquals(List.of("", "bytes=300000-"), a.ranges);
            assertEquals(List.of("", "bytes=500000-"), b.ranges);
            assertEquals(size + size + 1, a.sent.get() + b.sent.get(), "no byte of either sent twice");
            assertEquals(size + 1, Files.size(producer(lock).resolve("sub/b.bin")));
        }
    }

    /** A disk of {@code total} bytes whose usable space the test sets. */
    static FreeSpace disk(AtomicLong usable, long total) {
        return new FreeSpace() {
            @Override
            public long usableBytes() {
                return usable.get();
            }

            @Override
            public long totalBytes() {
                return total;
            }
        };
    }

    /**
     * The disk is asked again right before a file of known size is fetched: one that does not fit now
     * (beside storage's copy) sends the job back to wait, nothing requested; once there is room, it goes on.
     */
    @Test
    void aFileThatDoesNotFitNowWaitsWithTheNumbersAndGoesOnOnceThereIsRoom() throws Exception {
        serve("/big/a.bin", "x".repeat(300));
        AtomicLong usable = new AtomicLong(600);
        FreeSpace disk = disk(usable, 10_000);
        DownloadStep step = new DownloadStep(new Fetcher(FAST, home), home, disk, 2, List.of());
        HeldJob lock = lockedJob(store, config(url("/big/a.bin"), "file", "a.bin", null, null, 300L), 5);
        Exchange ex = exchange(lock);
        step.process(ex); // 600 usable - 600 needed < 500 kept free (5%)
        assertEquals("producer/a.bin: waits for room: needs 600 bytes now (300 to download and 300 for storage's "
                + "copy), 600 of 10000 bytes usable, 500 kept free (ingest.download.min-free-percent)",
                JobExchange.stayReason(ex));
        assertNull(JobExchange.failure(ex), "it waits, it does not fail");
        assertEquals(0, gets("/big/a.bin"), "nothing is fetched before there is room");

        usable.set(1_100);
        Exchange again = exchange(lock);
        step.process(again);
        assertNull(JobExchange.stayReason(again));
        assertEquals(300L, JobExchange.change(again).spaceNeeded());
        assertEquals(1, gets("/big/a.bin"));
    }

    /**
     * A job waiting for room shows the numbers in its status message (what the API and the dashboard show), rounded
     * so that retries that find the disk as it was write nothing: the status node is written once per changed
     * message, not once per retry; the message is cleared when the download goes on.
     */
    @Test
    void aJobWaitingForRoomShowsTheNumbersInItsStatusWrittenOnlyWhenTheyChange() throws Exception {
        serve("/big/a.bin", "x".repeat(300));
        long gb = 1_000_000_000L;
        AtomicLong usable = new AtomicLong();
        FreeSpace disk = disk(usable, 100 * gb);
        DownloadStep step = new DownloadStep(new Fetcher(FAST, home), home, disk, 2, List.of(), store.stepWrites());
        HeldJob lock = lockedJob(store, config(url("/big/a.bin"), "file", "a.bin", null, null, 300L), 5);
        String jid = lock.jid();
        String waiting = "waits for room on the working disk: needs 600 bytes, 5.00 GB usable, 5.00 GB kept free "
                + "(ingest.download.min-free-percent)";
        int v0 = statusVersion(jid);

        usable.set(5 * gb); // 5 GB usable - 600 bytes < 5 GB kept free (5%)
        lock = waitsForRoom(step, lock);
        assertEquals(waiting, message(jid));
        assertEquals(v0 + 1, statusVersion(jid), "the message written once");
        for (long u : new long[] {5 * gb, 5 * gb - 1_000, 5 * gb - 4_000_000}) { // the same to three digits
            usable.set(u);
            lock = waitsForRoom(step, lock);
        }
        assertEquals(waiting, message(jid));
        assertEquals(v0 + 1, statusVersion(jid), "three more retries, the same message: nothing written");

        usable.set(4_990_000_000L);
        lock = waitsForRoom(step, lock);
        assertEquals(waiting.replace("5.00 GB usable", "4.99 GB usable"), message(jid));
        assertEquals(v0 + 2, statusVersion(jid), "a changed message: one write");
        assertEquals(0, gets("/big/a.bin"), "nothing fetched while it waits");

        usable.set(6 * gb);
        Exchange goesOn = exchange(lock);
        step.process(goesOn);
        assertNull(JobExchange.stayReason(goesOn));
        assertEquals(1, gets("/big/a.bin"));
        assertEquals("", message(jid), "cleared as the download went on");
        assertEquals(v0 + 3, statusVersion(jid), "one write to clear it");
        // the lock's job is as written: its next move, fenced on the status version, goes through
        store.moves().transition(lock, JobState.ESTIMATING, JobExchange.change(goesOn));
        assertEquals(JobState.ESTIMATING, store.jobs().load(jid).state());
    }

    /** One try of the step that stays for room; its lock let go and the job claimed again, as the consumer does. */
    private HeldJob waitsForRoom(DownloadStep step, HeldJob lock) throws Exception {
        Exchange ex = exchange(lock);
        step.process(ex);
        assertNull(JobExchange.failure(ex), "it waits, it does not fail");
        assertTrue(JobExchange.stayReason(ex).contains("waits for room"), JobExchange.stayReason(ex));
        store.moves().unlock(lock);
        return store.claims().tryLockJob(lock.jid(), "test").orElseThrow();
    }

    private String message(String jid) {
        return store.jobs().load(jid).status().message();
    }

    private int statusVersion(String jid) throws Exception {
        return client.checkExists().forPath(QueuePaths.jobStatus(jid)).getVersion();
    }

    /** A file of no declared size is asked again at its answer's length: one that does not fit then waits too. */
    @Test
    void aFileWhoseAnnouncedLengthDoesNotFitNowWaits() throws Exception {
        FetchSettings.Answers a = FetchSettings.Answers.defaults();
        // 99% must stay free: no test machine's disk is that empty
        FetchSettings full = FAST.withAnswers(new FetchSettings.Answers(a.maxHeaderCount(), a.maxLineLength(),
                a.probeTimeout(), 99));
        try (RangeServer server = new RangeServer(100, 12)) { // its answers announce their length
            HeldJob lock = lockedJob(store, config(server.url(), "file", "b.bin", null, null, null), 5);
            Exchange ex = exchange(lock);
            step(full).process(ex);
            assertNull(JobExchange.failure(ex), "it waits, it does not fail");
            assertTrue(JobExchange.stayReason(ex).contains("less than 99% free")
                    && JobExchange.stayReason(ex).endsWith("; waits for room"), JobExchange.stayReason(ex));
            assertFalse(Files.exists(producer(lock).resolve("b.bin")));
        }
    }

    /**
     * A large file whose transfer broke on one host is resumed by the job's next holder: the partial file and
     * its record stay in .download/ when the job fails, and the next download asks only for the rest.
     */
    @Test
    void aBrokenTransferIsResumedByTheNextDownloadOfTheJob() throws Exception {
        long size = 2L * 1024 * 1024;
        try (RangeServer server = new RangeServer(size, 9)) {
            HeldJob lock = lockedJob(store, config(server.url(), "file", "big.bin", "md5",
                    server.digest(DigestAlgorithm.MD5), size), 5);
            JobConfiguration c = lock.job().configuration();
            server.cutAfter(700_000);
            FetchSettings once = FAST.withRetries(0, Duration.ZERO);
            assertThrows(FetchException.class, () -> step(once).download(lock.jid(), c));
            Path downloads = Path.of(c.workingDir()).resolve(".download");
            try (var left = Files.list(downloads)) {
                assertEquals(2, left.filter(p -> p.toString().endsWith(".part") || p.toString().endsWith(".resume"))
                        .count(), "the partial file and its record stay");
            }
            assertEquals(size, step(once).download(lock.jid(), c));
            assertEquals(List.of("", "bytes=700000-"), server.ranges);
            assertEquals(size, server.sent.get(), "no byte sent twice");
            assertEquals(size, Files.size(producer(lock).resolve("big.bin")));
            try (var left = Files.list(downloads)) {
                assertEquals(0, left.filter(p -> !p.getFileName().toString().equals("complete.jsonl")).count(),
                        "nothing left beside the record of complete files");
            }
        }
    }

    @Test
    void singleFileWithDepositorDigestIsDownloadedAndSized() throws Exception {
        serve("/files/dragon.jpg", "golden dragon");
        HeldJob lock = lockedJob(store, config(url("/files/dragon.jpg"), "file", "sign.jpg", "MD5",
                digest(DigestAlgorithm.MD5, "golden dragon").toUpperCase(), 13L), 5);
        Exchange ex = exchange(lock);
        step().process(ex);
        assertEquals("golden dragon", read(producer(lock).resolve("sign.jpg")));
        assertEquals(13L, JobExchange.change(ex).spaceNeeded());
        try (var files = Files.list(producer(lock))) {
            assertEquals(List.of("sign.jpg"), files.map(p -> p.getFileName().toString()).toList());
        }
    }

    @Test
    void singleFileWithoutFileNameTakesTheUrlsLastSegment() throws Exception {
        serve("/files/my%20notes.txt", "notes");
        HeldJob lock = lockedJob(store, config(url("/files/my%20notes.txt"), "file"), 5);
        step().process(exchange(lock));
        assertEquals("notes", read(producer(lock).resolve("my notes.txt")));
    }

    @Test
    void objectManifestWithSeveralFilesIsDownloadedWithDigestsChecked() throws Exception {
        serve("/obj/a.txt", "alpha");
        serve("/obj/b.txt", "bravo!");
        serve("/obj/c.bin", "charlie");
        serve("/obj/manifest.checkm", manifest(
                row(url("/obj/a.txt"), "sha-256", digest(DigestAlgorithm.SHA256, "alpha"), 5L, "a.txt"),
                row(url("/obj/b.txt"), "md5", digest(DigestAlgorithm.MD5, "bravo!"), null, "docs/b.txt"),
                row(url("/obj/c.bin"), null, null, null, null)));
        HeldJob lock = lockedJob(store, config(url("/obj/manifest.checkm"), "object_manifest"), 5);
        Exchange ex = exchange(lock);
        step().process(ex);
        assertEquals("alpha", read(producer(lock).resolve("a.txt")));
        assertEquals("bravo!", read(producer(lock).resolve("docs/b.txt")));
        assertEquals("charlie", read(producer(lock).resolve("c.bin")));
        assertEquals(18L, JobExchange.change(ex).spaceNeeded());
        assertNull(JobExchange.stayReason(ex));
    }

    @Test
    void zipContainerIsUnpackedIntoProducerAndNotKept() throws Exception {
        byte[] zip = zip(List.of("obj/", "obj/a.txt", "obj/sub/b.txt"), List.of("", "alpha", "bravo"));
        web.stubFor(get(urlEqualTo("/c/object.zip")).willReturn(aResponse().withBody(zip)));
        HeldJob lock = lockedJob(store, config(url("/c/object.zip"), "container", null, "sha-256",
                sha256(zip), null), 5);
        Exchange ex = exchange(lock);
        step().process(ex);
        assertEquals("alpha", read(producer(lock).resolve("obj/a.txt")));
        assertEquals("bravo", read(producer(lock).resolve("obj/sub/b.txt")));
        assertFalse(Files.exists(producer(lock).resolve("object.zip")));
        assertEquals(10L, JobExchange.change(ex).spaceNeeded());
        try (var parts = Files.list(Path.of(lock.job().configuration().workingDir()).resolve(".download"))) {
            assertTrue(parts.noneMatch(p -> p.toString().endsWith(".part")), "no partial file left");
        }
    }

    @Test
    void tarGzContainerIsRecognisedByContentAndUnpacked() throws Exception {
        byte[] tgz = tarGz(List.of("./", "./a.txt", "./dir/b.txt"), List.of("", "alpha", "bravo"), null);
        // no .tar.gz in the name: the format is found from the bytes
        web.stubFor(get(urlEqualTo("/c/payload")).willReturn(aResponse().withBody(tgz)));
        HeldJob lock = lockedJob(store, config(url("/c/payload"), "container"), 5);
        step().process(exchange(lock));
        assertEquals("alpha", read(producer(lock).resolve("a.txt")));
        assertEquals("bravo", read(producer(lock).resolve("dir/b.txt")));
    }

    // ------------------------------------------------------------------ HTTP behaviour

    @Test
    void oneMissingFileOfManyFailsTheJobNamingItWhileTheOthersAreDownloaded() throws Exception {
        serve("/m/a.txt", "alpha");
        serve("/m/b.txt", "bravo");
        web.stubFor(get(urlEqualTo("/m/c.txt")).willReturn(notFound()));
        serve("/m/manifest.checkm", manifest(row(url("/m/a.txt"), null, null, null, null),
                row(url("/m/b.txt"), null, null, null, null), row(url("/m/c.txt"), null, null, null, null)));
        HeldJob lock = lockedJob(store, config(url("/m/manifest.checkm"), "object_manifest"), 5);
        FetchException e = assertThrows(FetchException.class, () -> step().process(exchange(lock)));
        assertEquals(url("/m/c.txt") + ": HTTP 404 after 1 attempt", e.getMessage());
        assertEquals("alpha", read(producer(lock).resolve("a.txt")));
        assertEquals("bravo", read(producer(lock).resolve("b.txt")));
        assertFalse(Files.exists(producer(lock).resolve("c.txt")));
        assertEquals(1, gets("/m/c.txt"), "a 404 is not retried");
    }

    @Test
    void requeueAfterTheCauseIsRemovedFetchesOnlyTheMissingFile() throws Exception {
        serve("/r/a.txt", "alpha");
        serve("/r/b.txt", "bravo");
        web.stubFor(get(urlEqualTo("/r/c.txt")).willReturn(notFound()));
        serve("/r/manifest.checkm", manifest(row(url("/r/a.txt"), null, null, null, null),
                row(url("/r/b.txt"), "md5", digest(DigestAlgorithm.MD5, "bravo"), null, null),
                row(url("/r/c.txt"), null, null, null, null)));
        HeldJob lock = lockedJob(store, config(url("/r/manifest.checkm"), "object_manifest"), 5);
        assertThrows(FetchException.class, () -> step().process(exchange(lock)));

        serve("/r/c.txt", "charlie");
        Exchange again = exchange(lock);
        step().process(again);
        assertEquals("charlie", read(producer(lock).resolve("c.txt")));
        assertEquals(1, gets("/r/a.txt"));
        assertEquals(1, gets("/r/b.txt"));
        assertEquals(2, gets("/r/c.txt"));
        assertEquals(17L, JobExchange.change(again).spaceNeeded());
    }

    @Test
    void aFileChangedOrLeftPartialOnDiskIsFetchedAgain() throws Exception {
        serve("/p/a.txt", "alpha");
        serve("/p/b.txt", "bravo");
        serve("/p/manifest.checkm", manifest(row(url("/p/a.txt"), null, null, null, null),
                row(url("/p/b.txt"), null, null, null, null)));
        HeldJob lock = lockedJob(store, config(url("/p/manifest.checkm"), "object_manifest"), 5);
        // b.txt written by a crashed earlier attempt, never recorded as complete
        Files.createDirectories(producer(lock));
        Files.writeString(producer(lock).resolve("b.txt"), "br");
        step().process(exchange(lock));
        assertEquals("bravo", read(producer(lock).resolve("b.txt")));
        assertEquals(1, gets("/p/b.txt"));

        Files.writeString(producer(lock).resolve("a.txt"), "tampered");
        step().process(exchange(lock));
        assertEquals("alpha", read(producer(lock).resolve("a.txt")));
        assertEquals(2, gets("/p/a.txt"));
        assertEquals(1, gets("/p/b.txt"), "b.txt was complete and unchanged");
    }

    @Test
    void serverErrorThenSuccessIsRetried() throws Exception {
        web.stubFor(get(urlEqualTo("/flaky.txt")).inScenario("flaky").whenScenarioStateIs(Scenario.STARTED)
                .willReturn(aResponse().withStatus(503)).willSetStateTo("up"));
        web.stubFor(get(urlEqualTo("/flaky.txt")).inScenario("flaky").whenScenarioStateIs("up")
                .willReturn(ok("finally")));
        HeldJob lock = lockedJob(store, config(url("/flaky.txt"), "file"), 5);
        step().process(exchange(lock));
        assertEquals("finally", read(producer(lock).resolve("flaky.txt")));
        assertEquals(2, gets("/flaky.txt"));
    }

    @Test
    void aDroppedConnectionIsRetried() throws Exception {
        web.stubFor(get(urlEqualTo("/reset.txt")).inScenario("reset").whenScenarioStateIs(Scenario.STARTED)
                .willReturn(aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER)).willSetStateTo("up"));
        web.stubFor(get(urlEqualTo("/reset.txt")).inScenario("reset").whenScenarioStateIs("up")
                .willReturn(ok("back")));
        HeldJob lock = lockedJob(store, config(url("/reset.txt"), "file"), 5);
        step().process(exchange(lock));
        assertEquals("back", read(producer(lock).resolve("reset.txt")));
        assertEquals(2, gets("/reset.txt"));
    }

    @Test
    void serverErrorsBeyondTheRetriesFailNamingTheAttempts() throws Exception {
        web.stubFor(get(urlEqualTo("/down.txt")).willReturn(aResponse().withStatus(500)));
        HeldJob lock = lockedJob(store, config(url("/down.txt"), "file"), 5);
        FetchException e = assertThrows(FetchException.class, () -> step().process(exchange(lock)));
        assertEquals(url("/down.txt") + ": HTTP 500 after 3 attempts", e.getMessage());
        assertEquals(3, gets("/down.txt"));
    }

    @Test
    void aResponseSlowerThanTheReadTimeoutFails() throws Exception {
        web.stubFor(get(urlEqualTo("/slow.txt")).willReturn(ok("late").withFixedDelay(3_000)));
        HeldJob lock = lockedJob(store, config(url("/slow.txt"), "file"), 5);
        FetchSettings settings = FAST.withTimeouts(Duration.ofSeconds(2), Duration.ofMillis(300))
                .withRetries(1, Duration.ofMillis(10));
        FetchException e = assertThrows(FetchException.class, () -> step(settings).process(exchange(lock)));
        assertTrue(e.getMessage().startsWith(url("/slow.txt") + ": timed out"), e.getMessage());
        assertTrue(e.getMessage().endsWith("after 2 attempts"), e.getMessage());
        assertFalse(Files.exists(producer(lock).resolve("slow.txt")));
    }

    @Test
    void aBodyThatKeepsArrivingCompletesEvenWhenItTakesLongerThanTheReadTimeout() throws Exception {
        String body = "x".repeat(6_000);
        web.stubFor(get(urlEqualTo("/dribble.txt")).willReturn(ok(body).withChunkedDribbleDelay(6, 1_500)));
        HeldJob lock = lockedJob(store, config(url("/dribble.txt"), "file"), 5);
        FetchSettings settings = FAST.withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(1));
        step(settings).process(exchange(lock));
        assertEquals(body, read(producer(lock).resolve("dribble.txt")));
        assertEquals(1, gets("/dribble.txt"));
    }

    @Test
    void redirectsAreFollowed() throws Exception {
        web.stubFor(get(urlEqualTo("/old/report.pdf")).willReturn(temporaryRedirect(url("/new/report.pdf"))));
        serve("/new/report.pdf", "moved");
        HeldJob lock = lockedJob(store, config(url("/old/report.pdf"), "file"), 5);
        step().process(exchange(lock));
        assertEquals("moved", read(producer(lock).resolve("report.pdf")));
    }

    @Test
    void anEndlessRedirectIsNotFollowedForever() throws Exception {
        web.stubFor(get(urlEqualTo("/loop")).willReturn(temporaryRedirect(url("/loop"))));
        HeldJob lock = lockedJob(store, config(url("/loop"), "file", "x.txt", null, null, null), 5);
        FetchException e = assertThrows(FetchException.class, () -> step().process(exchange(lock)));
        assertEquals(
                url("/loop") + ": HTTP 302 not followed (too many redirects, or from https to http) after 1 attempt",
                e.getMessage());
    }

    @Test
    void aSizeOtherThanTheDeclaredOneFails() throws Exception {
        serve("/short.txt", "12345");
        HeldJob lock = lockedJob(store, config(url("/short.txt"), "file", null, null, null, 9L), 5);
        FetchException e = assertThrows(FetchException.class, () -> step().process(exchange(lock)));
        assertEquals("producer/short.txt: size mismatch, expected 9 bytes, got 5 (from " + url("/short.txt") + ")",
                e.getMessage());
    }

    // ------------------------------------------------------------------ digests

    @ParameterizedTest
    @EnumSource(DigestAlgorithm.class)
    void everyDigestAlgorithmIsCheckedWhileStreaming(DigestAlgorithm alg) throws Exception {
        serve("/d/good.txt", "good content");
        serve("/d/manifest.checkm", manifest(row(url("/d/good.txt"), alg.checkmName(),
                digest(alg, "good content"), null, "good.txt")));
        HeldJob lock = lockedJob(store, config(url("/d/manifest.checkm"), "object_manifest"), 5);
        step().process(exchange(lock));
        assertEquals("good content", read(producer(lock).resolve("good.txt")));
    }

    @ParameterizedTest
    @EnumSource(value = DigestAlgorithm.class, names = {"MD5", "SHA256", "CRC32", "ADLER32"})
    void aDigestMismatchFailsNamingTheFileAndBothValues(DigestAlgorithm alg) throws Exception {
        serve("/d/b.txt", "actual content");
        String expected = digest(alg, "other content");
        serve("/d/manifest.checkm", manifest(row(url("/d/b.txt"), alg.checkmName(), expected, null, "b.txt")));
        HeldJob lock = lockedJob(store, config(url("/d/manifest.checkm"), "object_manifest"), 5);
        FetchException e = assertThrows(FetchException.class, () -> step().process(exchange(lock)));
        assertEquals("producer/b.txt: " + alg.checkmName() + " mismatch, expected " + expected + ", got "
                + digest(alg, "actual content") + " (from " + url("/d/b.txt") + ")", e.getMessage());
        assertFalse(Files.exists(producer(lock).resolve("b.txt")), "a file that fails its digest is not kept");
    }

    @Test
    void aSingleFileWhoseDepositorDigestDiffersFails() throws Exception {
        serve("/one.txt", "payload");
        HeldJob lock = lockedJob(store, config(url("/one.txt"), "file", null, "sha-1", "0123abcd", null), 5);
        FetchException e = assertThrows(FetchException.class, () -> step().process(exchange(lock)));
        assertTrue(
                e.getMessage().startsWith("producer/one.txt: sha-1 mismatch, expected 0123abcd, got "), e.getMessage());
    }

    // ------------------------------------------------------------------ names and URLs refused

    @Test
    void aManifestNameEscapingTheWorkingDirectoryFailsBeforeAnythingIsFetched() throws Exception {
        serve("/e/a.txt", "alpha");
        serve("/e/evil.txt", "evil");
        serve("/e/manifest.checkm", manifest(row(url("/e/a.txt"), null, null, null, "a.txt"),
                row(url("/e/evil.txt"), null, null, null, "../../evil.txt")));
        HeldJob lock = lockedJob(store, config(url("/e/manifest.checkm"), "object_manifest"), 5);
        FetchException e = assertThrows(FetchException.class, () -> step().process(exchange(lock)));
        assertEquals("object manifest " + url("/e/manifest.checkm") + " line 7: file name '../../evil.txt' "
                + "escapes the working directory ('..')", e.getMessage());
        assertEquals(0, gets("/e/a.txt"));
        assertEquals(0, gets("/e/evil.txt"));
        assertFalse(Files.exists(home.resolve("evil.txt")));
    }

    @Test
    void absoluteBackslashAndControlCharacterNamesAreRefused() throws Exception {
        for (String bad : List.of("/etc/passwd", "C:evil.txt", "dir\\..\\evil.txt", "a\u0000b")) {
            serve("/n/f.txt", "x");
            String m = manifest(row(url("/n/f.txt"), null, null, null, bad));
            web.stubFor(get(urlEqualTo("/n/manifest.checkm")).willReturn(ok(m)));
            HeldJob lock = lockedJob(store, config(url("/n/manifest.checkm"), "object_manifest"), 5);
            FetchException e = assertThrows(FetchException.class, () -> step().process(exchange(lock)), bad);
            // a control character is refused with the manifest's cell (text is data), the others as a file name
            assertTrue(
                    e.getMessage().contains(bad.contains("\u0000") ? "cell nfo:fileName contains a NUL" : "file name"),
                    e.getMessage());
            store.moves().unlock(lock);
        }
        assertEquals(0, gets("/n/f.txt"));
    }

    @Test
    void aZipEntryEscapingTheWorkingDirectoryFailsAndLeavesNothing() throws Exception {
        byte[] zip = zip(List.of("good.txt", "../evil.txt"), List.of("good", "evil"));
        web.stubFor(get(urlEqualTo("/z/slip.zip")).willReturn(aResponse().withBody(zip)));
        HeldJob lock = lockedJob(store, config(url("/z/slip.zip"), "container"), 5);
        FetchException e = assertThrows(FetchException.class, () -> step().process(exchange(lock)));
        assertEquals("container slip.zip: entry '../evil.txt' escapes the working directory ('..')", e.getMessage());
        Path wd = Path.of(lock.job().configuration().workingDir());
        assertFalse(Files.exists(wd.resolve("evil.txt")));
        try (var left = Files.list(producer(lock))) {
            assertEquals(0, left.count(), "a refused container leaves producer/ empty");
        }
    }

    @Test
    void aTarSymlinkEntryIsRefused() throws Exception {
        byte[] tgz = tarGz(List.of("a.txt"), List.of("alpha"), "passwd");
        web.stubFor(get(urlEqualTo("/z/link.tgz")).willReturn(aResponse().withBody(tgz)));
        HeldJob lock = lockedJob(store, config(url("/z/link.tgz"), "container"), 5);
        FetchException e = assertThrows(FetchException.class, () -> step().process(exchange(lock)));
        assertEquals("container link.tgz: entry 'passwd' is a symbolic link", e.getMessage());
        assertFalse(Files.exists(producer(lock).resolve("passwd"), LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void aContainerThatIsNoArchiveIsNamed() throws Exception {
        serve("/z/notes.zip", "just some text, not a zip");
        HeldJob lock = lockedJob(store, config(url("/z/notes.zip"), "container"), 5);
        FetchException e = assertThrows(FetchException.class, () -> step().process(exchange(lock)));
        assertEquals("container notes.zip: not a zip, tar or tar.gz file", e.getMessage());
    }

    @Test
    void aNonHttpUrlIsRefusedByName() throws Exception {
        HeldJob lock = lockedJob(store, config("ftp://example.org/pub/a.txt", "file"), 5);
        FetchException e = assertThrows(FetchException.class, () -> step().process(exchange(lock)));
        assertTrue(e.getMessage().startsWith("ftp://example.org/pub/a.txt: URL scheme 'ftp' is not fetched"),
                e.getMessage());
    }

    @Test
    void aNonHttpUrlInAManifestRowIsRefusedWithItsLine() throws Exception {
        serve("/u/manifest.checkm", manifest(row("gopher://example.org/a.txt", null, null, null, "a.txt")));
        HeldJob lock = lockedJob(store, config(url("/u/manifest.checkm"), "object_manifest"), 5);
        FetchException e = assertThrows(FetchException.class, () -> step().process(exchange(lock)));
        assertTrue(e.getMessage().startsWith("object manifest " + url("/u/manifest.checkm")
                + " line 6: gopher://example.org/a.txt: URL scheme 'gopher'"), e.getMessage());
    }

    @Test
    void aFileUrlInsideUploadsIsCopied() throws Exception {
        Path upload = home.resolve("uploads/7f3e/deposit.txt");
        Files.createDirectories(upload.getParent());
        Files.writeString(upload, "uploaded");
        HeldJob lock = lockedJob(store, config(upload.toUri().toString(), "file", null, "md5",
                digest(DigestAlgorithm.MD5, "uploaded"), null), 5);
        Exchange ex = exchange(lock);
        step().process(ex);
        assertEquals("uploaded", read(producer(lock).resolve("deposit.txt")));
        assertEquals(8L, JobExchange.change(ex).spaceNeeded());
    }

    @Test
    void aFileUrlOutsideUploadsIsRefusedUnlessAllowed(@TempDir Path elsewhere) throws Exception {
        Path secret = elsewhere.resolve("secret.txt");
        Files.writeString(secret, "secret");
        String sneaky = home.toUri() + "uploads/../secret.txt";
        for (String u : List.of(secret.toUri().toString(), sneaky)) {
            HeldJob lock = lockedJob(store, config(u, "file"), 5);
            FetchException e = assertThrows(FetchException.class, () -> step().process(exchange(lock)));
            assertTrue(e.getMessage().startsWith(u + ": file URLs are only fetched from " + home.resolve("uploads")),
                    e.getMessage());
            assertFalse(Files.exists(producer(lock)));
            store.moves().unlock(lock);
        }
        HeldJob lock = lockedJob(store, config(secret.toUri().toString(), "file"), 5);
        step(FAST.withAllowFileUrls(true)).process(exchange(lock));
        assertEquals("secret", read(producer(lock).resolve("secret.txt")));
    }

    // ------------------------------------------------------------------ test data

    static byte[] zip(List<String> names, List<String> contents) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZipOutputStream z = new ZipOutputStream(out)) {
            for (int i = 0; i < names.size(); i++) {
                z.putNextEntry(new ZipEntry(names.get(i)));
                z.write(contents.get(i).getBytes(StandardCharsets.UTF_8));
                z.closeEntry();
            }
        }
        return out.toByteArray();
    }

    static byte[] tarGz(List<String> names, List<String> contents, String symlink) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (TarArchiveOutputStream t = new TarArchiveOutputStream(new GzipCompressorOutputStream(out))) {
            for (int i = 0; i < names.size(); i++) {
                TarArchiveEntry e = new TarArchiveEntry(names.get(i));
                byte[] b = contents.get(i).getBytes(StandardCharsets.UTF_8);
                e.setSize(names.get(i).endsWith("/") ? 0 : b.length);
                t.putArchiveEntry(e);
                if (!names.get(i).endsWith("/")) {
                    t.write(b);
                }
                t.closeArchiveEntry();
            }
            if (symlink != null) {
                TarArchiveEntry link = new TarArchiveEntry(symlink, TarConstants.LF_SYMLINK);
                link.setLinkName("/etc/passwd");
                t.putArchiveEntry(link);
                t.closeArchiveEntry();
            }
        }
        return out.toByteArray();
    }

    static String sha256(byte[] b) {
        DigestAlgorithm.Digester d = DigestAlgorithm.SHA256.newDigester();
        d.update(b, 0, b.length);
        return d.hex();
    }
}
