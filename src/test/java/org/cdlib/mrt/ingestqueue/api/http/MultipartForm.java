package org.cdlib.mrt.ingestqueue.api.http;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** A multipart/form-data body as a Merritt client sends it: fields, then the optional file. */
public record MultipartForm(String contentType, byte[] body) {

    public static MultipartForm of(Map<String, String> fields, String fileName, byte[] file) {
        String boundary = "----form" + System.nanoTime();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (var f : fields.entrySet()) {
            out.writeBytes(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + f.getKey() + "\"\r\n\r\n"
                    + f.getValue() + "\r\n").getBytes(StandardCharsets.UTF_8));
        }
        if (file != null) {
            out.writeBytes(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\""
                    + fileName
                    + "\"\r\nContent-Type: application/octet-stream\r\n\r\n").getBytes(StandardCharsets.UTF_8));
            out.writeBytes(file);
            out.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
        }
        out.writeBytes(("--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
        return new MultipartForm("multipart/form-data; boundary=" + boundary, out.toByteArray());
    }

    public HttpRequest.BodyPublisher publisher() {
        return HttpRequest.BodyPublishers.ofByteArray(body);
    }
}
