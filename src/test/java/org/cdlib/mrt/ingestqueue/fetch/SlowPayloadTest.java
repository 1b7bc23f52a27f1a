package org.cdlib.mrt.ingestqueue.fetch;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.tomakehurst.wiremock.WireMockServer;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A payload server that sends one byte well within each read timeout (a slow loris on the
 * download side) no longer holds a download slot: below the minimum rate the attempt ends.
 */
class SlowPayloadTest {
    @TempDir
    Path dir;

    @Test
    void aServerBelowTheMinimumRateLosesItsDownloadInsteadOfHoldingItForEver() throws Exception {
        WireMockServer server = new WireMockServer(options().dynamicPort());
        server.start();
        try {
            // 600 chunks over a minute: a chunk every 100 ms, far under the read timeout each time
            server.stubFor(get(urlEqualTo("/slow"))
                    .willReturn(aResponse().withBody(new byte[600]).withChunkedDribbleDelay(600, 60_000)));
            FetchSettings settings = FetchSettings.defaults()
                    .withAllow(AddressPolicy.LOOPBACK)
                    .withRetries(0, Duration.ZERO)
                    .withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(5))
                    .withMinRate(1000, Duration.ofSeconds(2));
            long start = System.nanoTime();
            FetchException e = assertThrows(FetchException.class, () -> new Fetcher(settings, dir).download(
                    URI.create("http://127.0.0.1:" + server.port() + "/slow"), dir.resolve("f"), List.of()));
            long seconds = (System.nanoTime() - start) / 1_000_000_000L;
            assertTrue(e.getMessage().contains("below ingest.download.min-rate (1000 bytes/s)"), e.getMessage());
            assertTrue(seconds < 30, "the slow download ended after " + seconds + " s, not within the rate window");
        } finally {
            server.stop();
        }
    }
}
