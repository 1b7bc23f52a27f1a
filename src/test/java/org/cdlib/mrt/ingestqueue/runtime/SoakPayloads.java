package org.cdlib.mrt.ingestqueue.runtime;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.cdlib.mrt.ingestqueue.runtime.ChaosObjects.ChaosObject;

/**
 * The soak's slow payloads: the same objects as {@link ChaosServices} serves, each GET answered
 * after the object's own delay (0.5–3 s, drawn from the run's seed), so a download is on the wire
 * while the sweep passes over its job many times. Counts every GET by object (a HEAD is not a download).
 */
final class SoakPayloads implements AutoCloseable {
    final HttpServer server;
    final Map<Integer, AtomicInteger> downloads = new ConcurrentHashMap<>();
    private final List<ChaosObject> objects;
    private final Map<Integer, Integer> delayMillis;

    SoakPayloads(List<ChaosObject> objects, Map<Integer, Integer> delayMillis) throws IOException {
        this.objects = objects;
        this.delayMillis = delayMillis;
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 128);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/data/", this::handle);
        server.start();
    }

    String base() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String path = ex.getRequestURI().getRawPath();
            int i = Integer.parseInt(path.substring("/data/f".length(), path.indexOf('.')));
            ChaosObject o = objects.get(i);
            if (ex.getRequestMethod().equals("HEAD")) {
                ex.getResponseHeaders().set("Content-Length", String.valueOf(o.content().length));
                ex.sendResponseHeaders(200, -1);
                return;
            }
            downloads.computeIfAbsent(i, k -> new AtomicInteger()).incrementAndGet();
            try {
                Thread.sleep(delayMillis.getOrDefault(i, 0)); // the slow payload itself, not a test's wait
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            ex.sendResponseHeaders(200, o.content().length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(o.content());
            }
        } catch (RuntimeException e) {
            ex.sendResponseHeaders(404, -1);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
