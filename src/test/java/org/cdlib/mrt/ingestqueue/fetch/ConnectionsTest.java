package org.cdlib.mrt.ingestqueue.fetch;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.head;
import static com.github.tomakehurst.wiremock.client.WireMock.headRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.tomakehurst.wiremock.WireMockServer;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.cdlib.mrt.ingestqueue.services.Run;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Downloads and small reads have pools of their own, sized by the settings: a HEAD is answered
 * while every download connection to its host is busy; and once the service stops, nothing that
 * waited for a connection or a retry is sent, while transfers under way finish.
 */
class ConnectionsTest {
    static final int SLOW_MS = 3_000;

    @TempDir
    Path dir;
    WireMockServer server;
    ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void start() {
        server = new WireMockServer(options().dynamicPort().containerThreads(40));
        server.start();
        server.stubFor(get(urlPathMatching("/slow/.*")).willReturn(aResponse().withBody(new byte[1000])
                .withFixedDelay(SLOW_MS)));
        server.stubFor(head(urlEqualTo("/size")).willReturn(aResponse().withHeader("Content-Length", "1234")));
    }

    @AfterEach
    void stop() {
        threads.shutdownNow();
        server.stop();
    }

    /** A fetcher with {@code downloads} connections to one host for downloads, and 2 for small reads. */
    Fetcher fetcher(int downloads, int retries, Duration backoff) {
        FetchSettings s = FetchSettings.defaults()
                .withAllow(AddressPolicy.LOOPBACK)
                .withRetries(retries, backoff)
                .withConnections(new FetchSettings.Connections(downloads, downloads, 2, 2));
        return new Fetcher(s, dir);
    }

    URI at(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }

    List<Future<Object>> download(Fetcher fetcher, int n) {
        List<Future<Object>> all = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int f = i;
            all.add(threads.submit(() -> fetcher.download(at("/slow/" + f), dir.resolve("f" + f), List.of())));
        }
        return all;
    }

    int gets() {
        return server.findAll(getRequestedFor(urlPathMatching("/slow/.*"))).size();
    }

    @Test
    void theDefaultsFollowTheWorkersAndABadValueNamesItsKey() {
        FetchSettings.Connections c = FetchSettings.Connections.forWork(16, 8, 4, null, null);
        assertEquals(64, c.downloadsPerHost(), "downloading's 16 workers, 4 files each");
        assertEquals(8 * 4 + 16, c.probesPerHost(), "estimating's HEADs and downloading's manifest reads");
        FetchSettings.Connections set = FetchSettings.Connections.forWork(16, 8, 4, 10, 5);
        assertEquals(10, set.downloadsPerHost());
        assertEquals(64, set.downloadsTotal(), "several hosts together may still take what the workers ask for");
        assertEquals(5, set.probesPerHost());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FetchSettings.Connections.forWork(16, 8, 4, 0, null));
        assertTrue(e.getMessage().contains("ingest.fetch.connections-per-host must be at least 1, got 0"),
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> FetchSettings.Connections.forWork(16, 8, 4, null, -1));
        assertTrue(e.getMessage().contains("ingest.fetch.probe-connections-per-host"), e.getMessage());
    }

    @Test
    void aHeadIsAnsweredWhileEveryDownloadConnectionToItsHostIsBusy() throws Exception {
        Fetcher fetcher = fetcher(2, 0, Duration.ZERO);
        List<Future<Object>> downloads = download(fetcher, 4); // 2 under way, 2 waiting for a connection
        await().atMost(Duration.ofSeconds(10)).until(() -> gets() == 2);

        OptionalLong size = fetcher.size(at("/size"));

        assertEquals(OptionalLong.of(1234), size);
        assertTrue(downloads.stream().noneMatch(Future::isDone), "every download was still under way or waiting");
        assertEquals(2, gets(), "the HEAD took no download's place, nor did a download start meanwhile");
        assertEquals(1, server.findAll(headRequestedFor(urlEqualTo("/size"))).size());
        for (Future<Object> d : downloads) {
            assertInstanceOf(Fetcher.Fetched.class, d.get(60, TimeUnit.SECONDS));
        }
        assertEquals(4, gets(), "each download once, two connections at a time");
    }

    @Test
    void afterTheStopNothingThatWaitedForAConnectionIsSent() throws Exception {
        Fetcher fetcher = fetcher(2, 0, Duration.ZERO);
        List<Future<Object>> downloads = download(fetcher, 6);
        await().atMost(Duration.ofSeconds(10)).until(() -> gets() == 2);
        long t0 = System.nanoTime();

        fetcher.stop();

        int stopped = 0;
        int fetched = 0;
        for (Future<Object> d : downloads) {
            try {
                assertInstanceOf(Fetcher.Fetched.class, d.get(60, TimeUnit.SECONDS));
                fetched++;
            } catch (ExecutionException e) {
                assertInstanceOf(StoppingException.class, e.getCause(), e.getCause().toString());
                assertTrue(e.getCause().getMessage().contains("not sent: the service is stopping"),
                        e.getCause().getMessage());
                stopped++;
            }
        }
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertEquals(2, fetched, "the transfers under way finished");
        assertEquals(4, stopped, "those waiting for a connection were not sent");
        assertEquals(2, gets(), "no request reached the server after the stop began");
        assertTrue(tookMs < 30_000, "the stop's fetches ended in " + tookMs + " ms");
        StoppingException late = assertThrows(StoppingException.class, () -> fetcher.size(at("/size")));
        assertNull(late.getCause());
        assertEquals(0, server.findAll(headRequestedFor(urlEqualTo("/size"))).size(), "nor a new one");
    }

    @Test
    void aRetryWaitingOutItsBackoffIsNotSentOnceTheServiceStops() throws Exception {
        server.stubFor(get(urlEqualTo("/busy")).willReturn(aResponse().withStatus(503)));
        Fetcher fetcher = fetcher(2, 3, Duration.ofSeconds(30));
        CompletableFuture<Object> d = CompletableFuture.supplyAsync(() -> {
            try {
                return fetcher.download(at("/busy"), dir.resolve("busy"), List.of());
            } catch (FetchException e) {
                return e;
            }
        }, threads);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> server.findAll(getRequestedFor(urlEqualTo("/busy"))).size() == 1);
        assertFalse(d.isDone(), "waiting out its 30 s backoff");

        fetcher.stop();

        Object got = d.get(10, TimeUnit.SECONDS);
        assertInstanceOf(StoppingException.class, got);
        assertTrue(((Exception) got).getMessage().contains("HTTP 503 after 1 attempt"), ((Exception) got).getMessage());
        assertEquals(1, server.findAll(getRequestedFor(urlEqualTo("/busy"))).size(), "the retry was not sent");
    }

    @Test
    void aCancelledRunsWaitForAConnectionEndsAndSendsNothing() throws Exception {
        Fetcher fetcher = fetcher(1, 3, Duration.ofMillis(10));
        List<Future<Object>> busy = download(fetcher, 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> gets() == 1);
        AtomicReference<Run> run = new AtomicReference<>();
        CountDownLatch begun = new CountDownLatch(1);
        Future<Object> waiting = threads.submit(() -> {
            Run r = Run.begin(); // a worker's run, as the consumer begins it
            run.set(r);
            begun.countDown();
            try {
                return fetcher.download(at("/slow/w"), dir.resolve("w"), List.of());
            } finally {
                r.end();
            }
        });
        assertTrue(begun.await(10, TimeUnit.SECONDS));

        run.get().cancel(); // its session lost: the run's thread is interrupted

        ExecutionException e = assertThrows(ExecutionException.class, () -> waiting.get(10, TimeUnit.SECONDS));
        assertInstanceOf(FetchException.class, e.getCause(), String.valueOf(e.getCause()));
        assertTrue(e.getCause().getMessage().contains("interrupted"), e.getCause().getMessage());
        assertFalse(busy.get(0).isDone(), "the cancelled one did not wait for the connection to free");
        assertInstanceOf(Fetcher.Fetched.class, busy.get(0).get(60, TimeUnit.SECONDS));
        assertEquals(1, gets(), "nor was it sent when the connection freed");
    }
}
