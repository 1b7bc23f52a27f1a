package org.cdlib.mrt.ingestqueue.routes;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A hostile payload server on 127.0.0.1: every GET is answered 200 with a long Content-Length,
 * no Content-Type, and then one byte every {@code everyMs} (a HEAD gets the headers alone). Each
 * connection has a thread of its own; {@link #close} ends them all.
 */
final class TrickleServer implements AutoCloseable {
    private final ServerSocket server;
    private final long everyMs;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    final AtomicInteger requests = new AtomicInteger();

    TrickleServer(long everyMs) throws IOException {
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.everyMs = everyMs;
        Thread accept = new Thread(this::accept, "trickle-accept");
        accept.setDaemon(true);
        accept.start();
    }

    String url(String path) {
        return "http://127.0.0.1:" + server.getLocalPort() + path;
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                open.add(s);
                Thread t = new Thread(() -> serve(s), "trickle-" + s.getPort());
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket s) {
        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            StringBuilder head = new StringBuilder();
            while (!head.toString().endsWith("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) {
                    return;
                }
                head.append((char) b);
            }
            requests.incrementAndGet();
            out.write("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            if (head.toString().startsWith("HEAD ")) {
                return;
            }
            for (int i = 0; i < 1_000_000 && !s.isClosed(); i++) {
                out.write('x');
                out.flush();
                Thread.sleep(everyMs); // the server's own pace, not a test's wait
            }
        } catch (IOException | InterruptedException e) {
            // the client gave up, or the server closed
        } finally {
            open.remove(s);
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : open) {
            s.close();
        }
    }
}
