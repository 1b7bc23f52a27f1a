package org.cdlib.mrt.ingestqueue.runtime;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.api.HttpApi;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;

/**
 * The service with recording steps on a test ZooKeeper, its API on a free port, and one admin
 * user ({@code alice:pw-a}) to call it with: what tests over real HTTP start from.
 */
public final class RunningService implements AutoCloseable {
    static final HttpClient CLIENT = HttpClient.newHttpClient();
    private final IngestService service;
    private final ServiceTestSupport support = new ServiceTestSupport();
    private final String base;

    private RunningService(String zookeeper, Path dir, Map<String, String> extra) throws Exception {
        Map<String, String> config = new HashMap<>(ServiceTestSupport.config(zookeeper, dir));
        config.put("ingest.api.users", "alice:pw-a:admin|submitter");
        config.putAll(extra);
        service = new IngestService(config, support.beans()).start();
        base = "http://127.0.0.1:" + service.camel().getRegistry().lookupByNameAndType("httpApi", HttpApi.class).port();
    }

    public static RunningService start(String zookeeper, Path dir) throws Exception {
        return new RunningService(zookeeper, dir, Map.of());
    }

    public static RunningService start(String zookeeper, Path dir, Map<String, String> extra) throws Exception {
        return new RunningService(zookeeper, dir, extra);
    }

    public QueueStore store() {
        return service.store();
    }

    public ServiceTestSupport support() {
        return support;
    }

    public String base() {
        return base;
    }

    /** A request as the admin user, with no body. */
    public HttpResponse<String> call(String method, String path) throws Exception {
        return CLIENT.send(
                HttpRequest.newBuilder(URI.create(base + path))
                        .method(method, HttpRequest.BodyPublishers.noBody())
                        .header(
                                "Authorization",
                                "Basic "
                                        + Base64.getEncoder()
                                                .encodeToString("alice:pw-a".getBytes(StandardCharsets.UTF_8)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() {
        service.close();
    }
}
