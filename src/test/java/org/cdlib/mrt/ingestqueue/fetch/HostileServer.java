package org.cdlib.mrt.ingestqueue.fetch;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A payload (or callback) server on 127.0.0.1 that answers as a hostile one would: endless header
 * lines, a line without end, a head or body a byte at a time, more body than it declares. Each
 * connection reads one request's head (its line kept in {@link #requests}), then the answer
 * writes until it ends or the client hangs up.
 */
public final class HostileServer implements AutoCloseable {
    /** Writes an answer to a request (its first line given). */
    public interface Answer {
        void write(String requestLine, OutputStream out) throws IOException, InterruptedException;
    }

    public final List<String> requests = new CopyOnWriteArrayList<>();
    private final ServerSocket socket;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "hostile-server");
        t.setDaemon(true);
        return t;
    });

    public HostileServer(Answer answer) throws IOException {
        socket = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
        threads.execute(() -> {
            while (!socket.isClosed()) {
                try {
                    Socket s = socket.accept();
                    threads.execute(() -> serve(s, answer));
                } catch (IOException e) {
                    return; // closed
                }
            }
        });
    }

    private void serve(Socket s, Answer answer) {
        try (s) {
            String line = readHead(s.getInputStream());
            requests.add(line);
            OutputStream out = s.getOutputStream();
            answer.write(line, out);
            out.flush();
        } catch (IOException | InterruptedException e) {
            // the client hung up: what a hostile server expects
        }
    }

    /** The request's head, read up to its empty line; its first line returned. */
    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int last4 = 0;
        for (int b; (b = in.read()) >= 0 && head.size() < 65536; ) {
            head.write(b);
            last4 = (last4 << 8) | b;
            if (last4 == 0x0d0a0d0a) {
                break;
            }
        }
        String text = head.toString(StandardCharsets.ISO_8859_1);
        int eol = text.indexOf("\r\n");
        return eol < 0 ? text : text.substring(0, eol);
    }

    public String url(String path) {
        return "http://127.0.0.1:" + socket.getLocalPort() + path;
    }

    public int port() {
        return socket.getLocalPort();
    }

    @Override
    public void close() throws IOException {
        socket.close();
        threads.shutdownNow();
    }

    // the answers

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A status line, then header lines without end. */
    public static Answer endlessHeaders() {
        return (line, out) -> {
            out.write(ascii("HTTP/1.1 200 OK\r\n"));
            byte[] h = ascii("X-Filler: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n");
            for (;;) {
                out.write(h);
            }
        };
    }

    /** A status line, then one header line that never ends. */
    public static Answer endlessLine() {
        return (line, out) -> {
            out.write(ascii("HTTP/1.1 200 OK\r\nX-Filler: "));
            byte[] a = new byte[8192];
            Arrays.fill(a, (byte) 'a');
            for (;;) {
                out.write(a);
            }
        };
    }

    /** A complete answer whose head has {@code count} header lines of {@code length} bytes each. */
    public static Answer head(int count, int length, String body) {
        return (line, out) -> {
            StringBuilder b = new StringBuilder("HTTP/1.1 200 OK\r\n");
            String value = "a".repeat(Math.max(1, length - 10));
            for (int i = 0; i < count; i++) {
                b.append("X-F").append(i % 10).append("-: ").append(value).append("\r\n");
            }
            b.append("Content-Length: ").append(body.length()).append("\r\nConnection: close\r\n\r\n").append(body);
            out.write(ascii(b.toString()));
        };
    }

    /** A head (and for a GET a body) sent a byte every {@code millis} ms, without end. */
    public static Answer trickleHead(long millis) {
        return (line, out) -> {
            byte[] h = ascii("HTTP/1.1 200 OK\r\nX-Slow: ");
            for (byte b : h) {
                out.write(b);
                out.flush();
                Thread.sleep(millis);
            }
            for (;;) {
                out.write('a');
                out.flush();
                Thread.sleep(millis);
            }
        };
    }

    /**
     * A proper head announcing {@code declared} bytes (none: -1, the body ends
     * when the connection does), then a body a byte every {@code millis} ms.
     */
    public static Answer trickleBody(long declared, long millis) {
        return (line, out) -> {
            out.write(ascii("HTTP/1.1 200 OK\r\n" + (declared >= 0 ? "Content-Length: " + declared + "\r\n" : "")
                    + "Connection: close\r\n\r\n"));
            out.flush();
            if (line.startsWith("HEAD")) {
                return;
            }
            for (;;) {
                out.write('a');
                out.flush();
                Thread.sleep(millis);
            }
        };
    }

    /** A proper head announcing {@code declared} bytes (none: -1), then a body as fast as it goes, without end. */
    public static Answer endlessBody(long declared) {
        return (line, out) -> {
            out.write(ascii("HTTP/1.1 200 OK\r\n" + (declared >= 0 ? "Content-Length: " + declared + "\r\n" : "")
                    + "Connection: close\r\n\r\n"));
            if (line.startsWith("HEAD")) {
                return;
            }
            byte[] a = new byte[65536];
            for (;;) {
                out.write(a);
            }
        };
    }
}
