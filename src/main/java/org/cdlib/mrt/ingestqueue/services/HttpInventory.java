package org.cdlib.mrt.ingestqueue.services;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.cdlib.mrt.ingestqueue.profile.Profile;

/** Merritt inventory: {@code POST <inventory>/add}, multipart {@code url}, {@code checkVersion}, {@code responseForm}. */
public final class HttpInventory implements Inventory {
    private final HttpService http;
    private final String url;

    public HttpInventory(HttpService http, String url) {
        this.http = http;
        this.url = url.replaceAll("/+$", "");
    }

    @Override
    public void add(Profile profile, StoredVersion version, List<String> localIds, List<ManifestFile> files)
            throws ServiceException, InterruptedException {
        String boundary = "----ingest-queue-" + UUID.randomUUID();
        StringBuilder body = new StringBuilder();
        for (Map.Entry<String, String> f : Map.of("url", version.manifestUrl(), "checkVersion", "true",
                "responseForm", "json").entrySet()) {
            body.append("--").append(boundary).append("\r\n")
                    .append("Content-Disposition: form-data; name=\"").append(f.getKey()).append("\"\r\n\r\n")
                    .append(f.getValue()).append("\r\n");
        }
        body.append("--").append(boundary).append("--\r\n");
        HttpService.expect(http.send(http.request(URI.create(url + "/add"))
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8)).build()),
                200, "inventory");
    }
}
