package org.cdlib.mrt.ingestqueue.api.http;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * HTTP/1.1 over a plain socket from a chosen local address (127.0.0.x): a client the service
 * sees at that address, for the tests of what is counted per address.
 */
public record RawHttp(int status, List<String> headers, String body) {

    /** Sends {@code method path} with {@code headers} and {@code body} from {@code from}; reads the whole answer. */
    public static RawHttp send(int port, String from, String method, String path, List<String> headers,
            String body) throws IOException {
        try (Socket s = connect(port, from)) {
            s.setSoTimeout(60_000);
            byte[] b = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
            StringBuilder req = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port
                    + "\r\nConnection: close\r\n");
            headers.forEach(h -> req.append(h).append("\r\n"));
            if (body != null) {
                req.append("Content-Length: ").append(b.length).append("\r\n");
            }
            s.getOutputStream().write(req.append("\r\n").toString().getBytes(StandardCharsets.UTF_8));
            s.getOutputStream().write(b);
            s.getOutputStream().flush();
            return parse(new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    static Socket connect(int port, String from) throws IOException {
        Socket s = new Socket();
        s.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
        s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        return s;
    }

    public static String basic(String user, String password) {
        return "Authorization: Basic " + Base64.getEncoder().encodeToString((user + ":"
                + password).getBytes(StandardCharsets.UTF_8));
    }

    /** Whether the server has closed {@code s}: a read ends (or fails) instead of waiting. */
    static boolean closedByServer(Socket s) {
        try {
            InputStream in = s.getInputStream();
            while (in.read() >= 0) {
                // an answer (a refusal) before the close is fine
            }
            return true;
        } catch (IOException e) {
            return !(e instanceof SocketTimeoutException);
        }
    }

    public String header(String name) {
        for (String h : headers) {
            int colon = h.indexOf(':');
            if (colon > 0 && h.substring(0, colon).equalsIgnoreCase(name)) {
                return h.substring(colon + 1).strip();
            }
        }
        return null;
    }

    static RawHttp parse(String raw) {
        int end = raw.indexOf("\r\n\r\n");
        if (!raw.startsWith("HTTP/1.1 ") || end < 0) {
            return new RawHttp(-1, List.of(), raw);
        }
        String[] lines = raw.substring(0, end).split("\r\n");
        List<String> headers = new ArrayList<>(List.of(lines).subList(1, lines.length));
        return new RawHttp(Integer.parseInt(lines[0].substring(9, 12)), headers, raw.substring(end + 4));
    }
}
