package org.cdlib.mrt.ingestqueue.api.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Connections over real sockets: half-sent requests and trickled bodies are closed, one address
 * holds a bounded number of connections, and the service answers others meanwhile. Here the
 * header timeout is 10 s and the cap 50 a client address.
 */
class ConnectionLimitsTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().keepNodesBetweenTests();
    @RegisterExtension
    static final RunningApi API = new RunningApi(ZK);
    static int port;
    static final int CAP = 50;

    @BeforeAll
    static void start() throws Exception {
        Map<String, String> config = API.realSteps();
        config.put("ingest.api.users", "ops:pw-o:admin");
        config.put("ingest.http.header-timeout", "PT10S");
        config.put("ingest.http.max-connections-per-address", Integer.toString(CAP));
        port = API.start(config).port();
    }

    static int health(String from) throws IOException {
        return RawHttp.send(port, from, "GET", "/api/health", List.of(), null).status();
    }

    @Test
    void twoHundredHalfSentRequestsAreClosedWithinAMinuteAndOthersAreServedMeanwhile() throws Exception {
        List<Socket> open = new ArrayList<>();
        try {
            for (int i = 0; i < 200; i++) {
                Socket s = RawHttp.connect(port, "127.0.0." + (40 + i / CAP)); // 4 addresses, each at its cap
                s.getOutputStream().write("GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: ".getBytes(
                StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                open.add(s);
            }
            assertEquals(200, health("127.0.0.45"), "another client is served while they hang");
            long deadline = System.currentTimeMillis() + 60_000;
            for (Socket s : open) {
                s.setSoTimeout((int) Math.max(1, deadline - System.currentTimeMillis()));
                assertTrue(RawHttp.closedByServer(s), "a half-sent request still open after a minute");
            }
        } finally {
            for (Socket s : open) {
                s.close();
            }
        }
        assertEquals(200, health("127.0.0.40"), "the addresses are served again once their connections closed");
    }

    @Test
    void oneAddressHoldsAtMostItsCapOfConnections() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(10);
        List<Socket> held = new ArrayList<>();
        try {
            List<Future<Socket>> opening = new ArrayList<>();
            for (int i = 0; i < CAP; i++) {
                opening.add(pool.submit(() -> {
                    Socket s = RawHttp.connect(port, "127.0.0.50");
                    s.setSoTimeout(30_000);
                    s.getOutputStream().write("GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(
                            StandardCharsets.US_ASCII));
                    assertEquals(200, readKeptAliveAnswer(s.getInputStream()));
                    return s;
                }));
            }
            for (Future<Socket> f : opening) {
                held.add(f.get());
            }
            // all 50 are answered and kept alive: the 51st is closed before it is answered
            try (Socket extra = RawHttp.connect(port, "127.0.0.50")) {
                extra.setSoTimeout(30_000);
                extra.getOutputStream().write("GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(
                        StandardCharsets.US_ASCII));
                InputStream in = extra.getInputStream();
                ByteArrayOutputStream got = new ByteArrayOutputStream();
                try {
                    in.transferTo(got);
                } catch (IOException reset) {
                    // closed: what is expected
                }
                assertEquals("", got.toString(StandardCharsets.US_ASCII), "the connection over the cap got an answer");
            }
            assertEquals(200, health("127.0.0.51"), "another address is not held to 127.0.0.50's cap");
        } finally {
            pool.shutdownNow();
            for (Socket s : held) {
                s.close();
            }
        }
    }

    @Test
    void aBodyTrickledInBelowTheMinimumRateIsClosed() throws Exception {
        try (Socket s = RawHttp.connect(port, "127.0.0.52")) {
            s.getOutputStream().write(("POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 4000\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            long deadline = System.currentTimeMillis() + 60_000;
            boolean closed = false;
            for (int i = 0; i < 600 && !closed && System.currentTimeMillis() < deadline; i++) {
                try {
                    s.getOutputStream().write("          ".getBytes(StandardCharsets.US_ASCII)); // 10 bytes a tick
                    s.getOutputStream().flush();
                    s.setSoTimeout(100);
                    closed = s.getInputStream().read() < 0; // the tick: a read that waits 100 ms
                } catch (SocketTimeoutException stillOpen) {
                    // not closed yet
                } catch (IOException e) {
                    closed = true;
                }
            }
            assertTrue(closed, "a body trickled at ~100 bytes a second still open after a minute");
        }
    }

    /** The status of an answer on a kept-alive connection, read to the end of its body. */
    static int readKeptAliveAnswer(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                return -1;
            }
            head.append((char) c);
        }
        int length = 0;
        for (String line : head.toString().split("\r\n")) {
            if (line.toLowerCase().startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).strip());
            }
        }
        in.readNBytes(length);
        return Integer.parseInt(head.substring(9, 12));
    }
}
