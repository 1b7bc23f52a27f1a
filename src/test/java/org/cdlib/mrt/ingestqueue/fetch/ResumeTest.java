package org.cdlib.mrt.ingestqueue.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broken transfer is resumed, not restarted: the next attempt (or the next holder of the job,
 * here a second Fetcher on the same working directory) asks only for the rest, and the digest is of
 * the whole file. A server without ranges, a 200 answer to a Range or another validator: byte 0.
 */
class ResumeTest {
    static final long SIZE = 3L * 1024 * 1024 + 12_345;
    static final long CUT = 1024L * 1024 + 77;
    static final FetchSettings ONCE = FetchSettings.defaults()
            .withAllow(AddressPolicy.LOOPBACK)
            .withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(10))
            .withRetries(0, Duration.ZERO);

    @TempDir
    Path dir;

    Path part() {
        return dir.resolve("f.part");
    }

    Path resume() {
        return dir.resolve("f.resume");
    }

    Fetcher.Fetched download(RangeServer server, FetchSettings settings) throws FetchException {
        return new Fetcher(settings, dir).download(URI.create(server.url()), part(), resume(),
                List.of(DigestAlgorithm.MD5), OptionalLong.of(SIZE));
    }

    /** The first holder's attempt, cut mid-body: what it leaves on disk. */
    void cutOnce(RangeServer server) throws Exception {
        server.cutAfter(CUT);
        assertThrows(FetchException.class, () -> download(server, ONCE));
        ResumeRecord r = ResumeRecord.read(resume());
        assertNotNull(r, "the broken transfer is recorded");
        assertEquals(CUT, r.bytes());
        assertEquals(CUT, Files.size(part()));
    }

    void assertWhole(RangeServer server, Fetcher.Fetched got) throws Exception {
        assertEquals(SIZE, got.bytes());
        assertEquals(SIZE, Files.size(part()));
        assertEquals(server.digest(DigestAlgorithm.MD5), got.digests().get(DigestAlgorithm.MD5));
        assertFalse(Files.exists(resume()), "the record is cleared once the file is complete");
    }

    @Test
    void aTransferCutMidBodyIsResumedByTheNextHolderWithTheRestOnly() throws Exception {
        try (RangeServer server = new RangeServer(SIZE, 1)) {
            cutOnce(server);
            Fetcher.Fetched got = download(server, ONCE);
            assertWhole(server, got);
            assertEquals(List.of("", "bytes=" + CUT + "-"), server.ranges);
            assertEquals(SIZE, server.sent.get(), "every byte sent once: the second attempt asked for the rest only");
        }
    }

    /** The digests storing takes from the download (SHA-256, SHA-512) are the whole file's after a resume too. */
    @Test
    void aResumedTransferYieldsTheDigestsOfAFullDownload() throws Exception {
        List<DigestAlgorithm> stored = List.of(DigestAlgorithm.SHA256, DigestAlgorithm.SHA512, DigestAlgorithm.MD5);
        try (RangeServer server = new RangeServer(SIZE, 1)) {
            cutOnce(server);
            Fetcher.Fetched resumed = new Fetcher(ONCE, dir).download(URI.create(server.url()), part(), resume(),
                    stored, OptionalLong.of(SIZE));
            assertEquals(List.of("", "bytes=" + CUT + "-"), server.ranges);
            Files.delete(part());
            Fetcher.Fetched full = new Fetcher(ONCE, dir).download(URI.create(server.url()), part(), resume(),
                    stored, OptionalLong.of(SIZE));
            assertEquals(full.digests(), resumed.digests());
            for (DigestAlgorithm a : stored) {
                assertEquals(server.digest(a), resumed.digests().get(a), a.checkmName());
            }
        }
    }

    @Test
    void aRetryInTheSameDownloadResumesToo() throws Exception {
        try (RangeServer server = new RangeServer(SIZE, 2).withEtag(null)
                .withLastModified("Tue, 24 Nov 2026 10:00:00 GMT")) {
            server.cutAfter(CUT);
            Fetcher.Fetched got = download(server, ONCE.withRetries(1, Duration.ofMillis(10)));
            assertWhole(server, got);
            assertEquals(List.of("", "bytes=" + CUT + "-"), server.ranges, "Last-Modified serves as the validator");
            assertEquals(SIZE, server.sent.get());
        }
    }

    @Test
    void withNoDigestAskedTheFileIsStillWholeAndRight() throws Exception {
        try (RangeServer server = new RangeServer(SIZE, 8)) {
            server.cutAfter(CUT);
            Fetcher fetcher = new Fetcher(ONCE, dir);
            URI uri = URI.create(server.url());
            assertThrows(FetchException.class, () -> fetcher.download(uri, part(), resume(), List.of(),
                    OptionalLong.empty()));
            assertEquals(SIZE, fetcher.download(uri, part(), resume(), List.of(), OptionalLong.empty()).bytes());
            DigestAlgorithm.Digester d = DigestAlgorithm.MD5.newDigester();
            byte[] onDisk = Files.readAllBytes(part());
            d.update(onDisk, 0, onDisk.length);
            assertEquals(server.digest(DigestAlgorithm.MD5), d.hex(), "the bytes on disk are the file's");
            assertEquals(SIZE, server.sent.get());
        }
    }

    @Test
    void aServerWithoutRangesGetsAFullDownload() throws Exception {
        try (RangeServer server = new RangeServer(SIZE, 3).withoutRanges()) {
            server.cutAfter(CUT);
            assertThrows(FetchException.class, () -> download(server, ONCE));
            assertNull(ResumeRecord.read(resume()), "nothing to resume: no record");
            Fetcher.Fetched got = download(server, ONCE);
            assertWhole(server, got);
            assertEquals(List.of("", ""), server.ranges, "no Range asked of a server that offers none");
            assertEquals(CUT + SIZE, server.sent.get());
        }
    }

    @Test
    void aChangedValidatorGetsAFullDownload() throws Exception {
        try (RangeServer server = new RangeServer(SIZE, 4)) {
            cutOnce(server);
            server.withEtag("\"v2\""); // the file changed: If-Range answers with the whole new one
            Fetcher.Fetched got = download(server, ONCE);
            assertWhole(server, got);
            assertEquals(List.of("", "bytes=" + CUT + "-"), server.ranges);
            assertEquals(CUT + SIZE, server.sent.get(), "the whole file again, from byte 0");
        }
    }

    @Test
    void aWholeAnswerToARangeRestartsFromByteZero() throws Exception {
        try (RangeServer server = new RangeServer(SIZE, 5)) {
            cutOnce(server);
            server.answeringRangesWhole();
            Fetcher.Fetched got = download(server, ONCE);
            assertWhole(server, got);
            assertEquals(CUT + SIZE, server.sent.get());
        }
    }

    @Test
    void aWeakEtagIsNoValidatorForARange() throws Exception {
        try (RangeServer server = new RangeServer(SIZE, 6).withEtag("W/\"v1\"")) {
            server.cutAfter(CUT);
            assertThrows(FetchException.class, () -> download(server, ONCE));
            assertNull(ResumeRecord.read(resume()), "a weak ETag promises the meaning, not the bytes");
        }
    }

    @Test
    void aRecordOfAnotherUrlOrLongerThanTheFileIsNotFollowed() throws Exception {
        try (RangeServer server = new RangeServer(SIZE, 7)) {
            cutOnce(server);
            new ResumeRecord(server.url(), "\"v1\"", CUT + 1).write(resume()); // more than the disk holds
            Fetcher.Fetched got = download(server, ONCE);
            assertWhole(server, got);
            assertEquals(List.of("", ""), server.ranges);
            assertTrue(server.sent.get() == CUT + SIZE);
        }
    }
}
