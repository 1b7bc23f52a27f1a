package org.cdlib.mrt.ingestqueue.api.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A multipart body posted over a raw socket in two writes, cut between the CR and the LF of the CRLF before the
 * closing boundary: the split netty#12729 and netty#17383 mishandle. The body is sent chunked, one HTTP chunk a
 * write, so the server's decoder is handed exactly these two pieces however TCP delivers them.
 */
public final class SplitBody {
    private SplitBody() {
    }

    /** The status and body of the answer to {@code form} posted to {@code path} of {@code base} as {@code user}. */
    public static RawHttp post(String base, String path, String user, String password, MultipartForm form)
            throws IOException {
        byte[] body = form.body();
        String close = "\n--" + form.contentType().substring(form.contentType().indexOf("boundary=") + 9) + "--";
        int cut = indexOf(body, close.getBytes(StandardCharsets.US_ASCII));
        if (cut < 1 || body[cut - 1] != '\r') {
            throw new IllegalArgumentException("the form has no CRLF before its closing boundary");
        }
        URI uri = URI.create(base);
        try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nHost: " + uri.getHost() + "\r\n" + RawHttp.basic(user, password)
                    + "\r\nContent-Type: " + form.contentType()
                    + "\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(chunk(Arrays.copyOfRange(body, 0, cut))); // ends with the CR
            out.flush();
            out.write(chunk(Arrays.copyOfRange(body, cut, body.length))); // begins with the LF
            out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return RawHttp.parse(new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    private static byte[] chunk(byte[] data) {
        ByteArrayOutputStream c = new ByteArrayOutputStream();
        c.writeBytes((Integer.toHexString(data.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        c.writeBytes(data);
        c.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        return c.toByteArray();
    }

    private static int indexOf(byte[] data, byte[] part) {
        for (int i = data.length - part.length; i >= 0; i--) {
            if (Arrays.equals(data, i, i + part.length, part, 0, part.length)) {
                return i;
            }
        }
        return -1;
    }
}
