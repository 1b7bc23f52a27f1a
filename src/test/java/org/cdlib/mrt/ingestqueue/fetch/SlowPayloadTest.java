package org.cdlib.mrt.ingestqueue.fetch;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
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
        try (ServerSocket server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            Thread dripper = new Thread(() -> {
                try (Socket s = server.accept()) {
                    OutputStream out = s.getOutputStream();
                    out.write("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    for (int i = 0; i < 600; i++) { // a byte every 100 ms: a minute of drip, far under the read timeout each time
                        out.write('x');
                        out.flush();
                        Thread.sleep(100);
                    }
                } catch (Exception e) {
                    // the client hung up: what this test expects
                }
            });
            dripper.setDaemon(true);
            dripper.start();
            FetchSettings settings = FetchSettings.defaults().withAllow(AddressPolicy.LOOPBACK).withRetries(0, Duration.ZERO)
                    .withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(5)).withMinRate(1000, Duration.ofSeconds(2));
            long start = System.nanoTime();
            FetchException e = assertThrows(FetchException.class, () -> new Fetcher(settings, dir).download(
                    URI.create("http://127.0.0.1:" + server.getLocalPort() + "/slow"), dir.resolve("f"), List.of()));
            long seconds = (System.nanoTime() - start) / 1_000_000_000L;
            assertTrue(e.getMessage().contains("below ingest.download.min-rate (1000 bytes/s)"), e.getMessage());
            assertTrue(seconds < 30, "the slow download ended after " + seconds + " s, not within the rate window");
        }
    }
}
