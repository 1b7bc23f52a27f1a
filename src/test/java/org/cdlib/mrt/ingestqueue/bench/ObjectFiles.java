package org.cdlib.mrt.ingestqueue.bench;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.Executors;

/** The benchmarks' local file server: the named documents as given, any other path a small text file (HEAD and GET). */
final class ObjectFiles {
    private ObjectFiles() {
    }

    static HttpServer serve(Map<String, byte[]> documents) throws IOException {
        // the JDK server sends headers and body as two writes; with Nagle on, each response waits ~40 ms
        // for the client's delayed ACK (read when the first server starts)
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        http.setExecutor(Executors.newFixedThreadPool(4));
        http.createContext("/", exchange -> {
            String name = exchange.getRequestURI().getPath();
            byte[] body = documents.containsKey(name) ? documents.get(name)
                    : ("object " + name + "\n").repeat(8).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Length", Integer.toString(body.length));
            boolean head = exchange.getRequestMethod().equals("HEAD");
            exchange.sendResponseHeaders(200, head ? -1 : body.length);
            if (!head) {
                exchange.getResponseBody().write(body);
            }
            exchange.close();
        });
        http.start();
        return http;
    }
}
