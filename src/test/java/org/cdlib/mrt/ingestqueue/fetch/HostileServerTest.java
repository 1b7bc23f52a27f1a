package org.cdlib.mrt.ingestqueue.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every answer a payload server gives is bounded: its head (header lines, a line's length, its
 * time), a small read's total time across its attempts, a body against what was declared and
 * what the disk may hold. A hostile server costs its own fetch a clear failure naming the limit,
 * fast, and is not asked again.
 */
class HostileServerTest {
    @TempDir
    Path dir;

    /** Loopback allowed; retries quick, so that a retried failure would show in the request count. */
    static final FetchSettings SETTINGS = FetchSettings.defaults().withAllow(AddressPolicy.LOOPBACK)
            .withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(20)).withRetries(3, Duration.ofMillis(10));

    Fetcher fetcher(FetchSettings s) {
        return new Fetcher(s, dir);
    }

    static FetchSettings probeTimeout(Duration d) {
        FetchSettings.Answers a = FetchSettings.Answers.defaults();
        return SETTINGS.withAnswers(
                new FetchSettings.Answers(a.maxHeaderCount(), a.maxLineLength(), d, a.minFreePercent()));
    }

    static long secondsSince(long start) {
        return (System.nanoTime() - start) / 1_000_000_000L;
    }

    @Test
    void aHeadAnsweredWithEndlessHeaderLinesFailsNamingTheLimitOnceAndAtOnce() throws Exception {
        try (HostileServer server = new HostileServer(HostileServer.endlessHeaders())) {
            long start = System.nanoTime();
            AnswerLimitException e = assertThrows(AnswerLimitException.class,
                    () -> fetcher(SETTINGS).size(URI.create(server.url("/f"))));
            assertEquals(
                    server.url("/f")
                            + ": the server sent more than 100 header lines (limit ingest.download.max-header-count)",
                    e.getMessage());
            assertTrue(secondsSince(start) < 5, "took " + secondsSince(start) + " s");
            assertEquals(List.of("HEAD /f HTTP/1.1"), server.requests);
        }
    }

    @Test
    void aHeadWithOneHeaderLineWithoutEndFailsNamingTheLineLimit() throws Exception {
        try (HostileServer server = new HostileServer(HostileServer.endlessLine())) {
            long start = System.nanoTime();
            AnswerLimitException e = assertThrows(AnswerLimitException.class,
                    () -> fetcher(SETTINGS).size(URI.create(server.url("/f"))));
            assertEquals(server.url("/f") + ": the server sent a line longer than 8192 bytes in its answer's head "
                    + "(limit ingest.download.max-line-length)", e.getMessage());
            assertTrue(secondsSince(start) < 5, "took " + secondsSince(start) + " s");
        }
    }

    @Test
    void aDownloadWhoseHeadHasAHugeLineOrThousandsOfHeadersFailsWithoutARetry() throws Exception {
        try (HostileServer huge = new HostileServer(HostileServer.head(1, 1_000_000, "hello"));
                HostileServer many = new HostileServer(HostileServer.head(5_000, 40, "hello"))) {
            AnswerLimitException e = assertThrows(AnswerLimitException.class,
                    () -> fetcher(SETTINGS).download(URI.create(huge.url("/f")), dir.resolve("f"), List.of()));
            assertTrue(e.getMessage().contains("limit ingest.download.max-line-length"), e.getMessage());
            assertEquals(1, huge.requests.size(), "not retried: " + huge.requests);
            e = assertThrows(AnswerLimitException.class,
                    () -> fetcher(SETTINGS).download(URI.create(many.url("/f")), dir.resolve("f"), List.of()));
            assertTrue(e.getMessage().contains("more than 100 header lines"), e.getMessage());
            assertEquals(1, many.requests.size(), "not retried: " + many.requests);
        }
    }

    @Test
    void withinTheLimitsAHeadOfManyHeadersIsRead() throws Exception {
        try (HostileServer server = new HostileServer(HostileServer.head(90, 4000, "hello"))) {
            assertEquals(OptionalLong.of(5), fetcher(SETTINGS).size(URI.create(server.url("/f"))));
            assertEquals("hello", fetcher(SETTINGS).text(URI.create(server.url("/m")), 100));
        }
    }

    @Test
    void aHeadTrickledAByteAtATimeEndsAtTheProbeTimeout() throws Exception {
        try (HostileServer server = new HostileServer(HostileServer.trickleHead(100))) {
            long start = System.nanoTime();
            FetchException e = assertThrows(FetchException.class,
                    () -> fetcher(probeTimeout(Duration.ofSeconds(2))).size(URI.create(server.url("/f"))));
            assertEquals(
                    server.url("/f") + ": no complete answer within ingest.download.probe-timeout (PT2S)",
                    e.getMessage());
            assertTrue(secondsSince(start) < 6, "took " + secondsSince(start) + " s");
        }
    }

    @Test
    void theTypeProbeOfATrickledBodyEndsAtTheProbeTimeoutAcrossItsRangeTryAndAttempts() throws Exception {
        try (HostileServer server = new HostileServer(HostileServer.trickleBody(-1, 100))) {
            long start = System.nanoTime();
            FetchException e = assertThrows(FetchException.class,
                    () -> fetcher(probeTimeout(Duration.ofSeconds(3))).head(URI.create(server.url("/f")), 8192));
            assertTrue(e.getMessage().contains("ingest.download.probe-timeout (PT3S)"), e.getMessage());
            assertTrue(secondsSince(start) < 7, "took " + secondsSince(start) + " s, across " + server.requests);
        }
    }

    @Test
    void aManifestByUrlTrickledOrWithEndlessHeadersEndsBounded() throws Exception {
        try (HostileServer slow = new HostileServer(HostileServer.trickleBody(-1, 100));
                HostileServer endless = new HostileServer(HostileServer.endlessHeaders())) {
            long start = System.nanoTime();
            FetchException e = assertThrows(FetchException.class, () -> fetcher(probeTimeout(Duration.ofSeconds(2)))
                    .text(URI.create(slow.url("/m.checkm")), 1 << 20));
            assertTrue(e.getMessage().contains("ingest.download.probe-timeout (PT2S)"), e.getMessage());
            assertTrue(secondsSince(start) < 6, "took " + secondsSince(start) + " s");
            e = assertThrows(AnswerLimitException.class,
                    () -> fetcher(SETTINGS).text(URI.create(endless.url("/m.checkm")), 1 << 20));
            assertTrue(e.getMessage().contains("limit ingest.download.max-header-count"), e.getMessage());
        }
    }

    @Test
    void aDownloadWhoseHeadIsTrickledEndsAtTheReadTimeoutInAll() throws Exception {
        try (HostileServer server = new HostileServer(HostileServer.trickleHead(100))) {
            long start = System.nanoTime();
            FetchException e = assertThrows(FetchException.class, () -> fetcher(SETTINGS.withRetries(0, Duration.ZERO)
                    .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(2)))
                    .download(URI.create(server.url("/f")), dir.resolve("f"), List.of()));
            assertTrue(
                    e.getMessage().contains("no response head within ingest.download.read-timeout (PT2S)"),
                    e.getMessage());
            assertTrue(secondsSince(start) < 6, "took " + secondsSince(start) + " s");
        }
    }

    @Test
    void aBodyLargerThanDeclaredIsCutThereAnnouncedOrNot() throws Exception {
        try (HostileServer announced = new HostileServer(HostileServer.endlessBody(1L << 40));
                HostileServer unannounced = new HostileServer(HostileServer.endlessBody(-1))) {
            Path f = dir.resolve("f");
            AnswerLimitException e = assertThrows(AnswerLimitException.class, () -> fetcher(SETTINGS)
                    .download(URI.create(announced.url("/f")), f, List.of(), OptionalLong.of(100)));
            assertEquals(
                    announced.url("/f")
                            + ": the server announces 1099511627776 bytes, more than the 100 declared for the file",
                    e.getMessage());
            assertEquals(0, Files.size(f), "nothing written");
            long start = System.nanoTime();
            e = assertThrows(AnswerLimitException.class, () -> fetcher(SETTINGS)
                    .download(URI.create(unannounced.url("/f")), f, List.of(), OptionalLong.of(100_000)));
            assertEquals(
                    unannounced.url("/f") + ": the body is larger than the 100000 bytes declared for the file",
                    e.getMessage());
            assertTrue(Files.size(f) <= 100_000, "written " + Files.size(f));
            assertTrue(secondsSince(start) < 5, "took " + secondsSince(start) + " s");
            assertEquals(1, unannounced.requests.size(), "not retried");
        }
    }

    @Test
    void aBodyThatWouldLeaveTheDiskBelowItsReserveIsRefused() throws Exception {
        try (HostileServer server = new HostileServer(HostileServer.endlessBody(-1))) {
            FetchSettings.Answers a = FetchSettings.Answers.defaults();
            // 99% must stay free: no test machine's disk is that empty, so the first bytes are refused
            FetchSettings full = SETTINGS.withAnswers(new FetchSettings.Answers(a.maxHeaderCount(), a.maxLineLength(),
                    a.probeTimeout(), 99));
            AnswerLimitException e = assertThrows(AnswerLimitException.class, () -> fetcher(full)
                    .download(URI.create(server.url("/f")), dir.resolve("f"), List.of()));
            assertTrue(
                    e.getMessage().contains("less than 99% free")
                            && e.getMessage().contains("ingest.download.min-free-percent"),
                    e.getMessage());
        }
    }
}
