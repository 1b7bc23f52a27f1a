package org.cdlib.mrt.ingestqueue.api.service;

import static io.vertx.core.http.HttpMethod.GET;

import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.RoutingContext;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.api.http.Access;
import org.cdlib.mrt.ingestqueue.api.http.Answers;
import org.cdlib.mrt.ingestqueue.api.http.ApiError;
import org.cdlib.mrt.ingestqueue.api.http.Routes;
import org.cdlib.mrt.ingestqueue.figures.QueueMetrics;
import org.cdlib.mrt.ingestqueue.history.HistoryStore;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.QueueHealth;

/**
 * What the service says of itself, to anyone: its health (ZooKeeper, working disk, failing
 * consumers, history's database), its Prometheus metrics and this API's OpenAPI document.
 */
public final class ServiceRoutes {
    private final QueueStore store;
    private final QueueMetrics metrics;
    private final HistoryStore history;

    /** {@code history}: null when the service keeps none. */
    public ServiceRoutes(QueueStore store, QueueMetrics metrics, HistoryStore history) {
        this.store = store;
        this.metrics = metrics;
        this.history = history;
    }

    public void register(Routes api) {
        api.add(GET, "/api/health", Access.PUBLIC, "ZooKeeper connection and working disk space", this::health);
        api.add(GET, "/metrics", Access.PUBLIC, "Prometheus metrics", rc -> rc.response()
                .putHeader("Content-Type", "text/plain; version=0.0.4; charset=UTF-8").end(metrics.scrape()));
        api.add(GET, "/api/openapi.json", Access.PUBLIC, "This API's OpenAPI document", this::openApi);
    }

    private void health(RoutingContext rc) {
        boolean zk = store.client().getZookeeperClient().isConnected();
        Map<String, Object> disk = new LinkedHashMap<>();
        boolean diskOk;
        try {
            var fs = Files.getFileStore(Files.createDirectories(store.ingestHome()));
            long total = fs.getTotalSpace();
            long usable = fs.getUsableSpace();
            disk.put("path", store.ingestHome().toString());
            disk.put("total_bytes", total);
            disk.put("usable_bytes", usable);
            disk.put("used_percent", total == 0 ? 0 : Math.round(100.0 * (total - usable) / total));
            diskOk = usable > 0;
        } catch (Exception e) {
            disk.put("error", e.getMessage());
            diskOk = false;
        }
        Map<String, QueueHealth.Problem> consumers = store.health().problems();
        boolean up = zk && diskOk && consumers.isEmpty();
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("status", up ? "UP" : "DOWN");
        answer.put("zookeeper", zk ? "connected" : "disconnected");
        answer.put("disk", disk);
        if (history != null) {
            // named DOWN, but the service stays UP: the queue works on and keeps finished work in ZooKeeper until
            // the database is back, and a restart would not bring the database back (docs/DESIGN.md, issue 44)
            answer.put("history", history.status().view(history.where()));
        }
        if (!consumers.isEmpty()) {
            Map<String, String> failing = new LinkedHashMap<>();
            consumers.forEach((k, v) -> failing.put(k, v.message() + " (since " + v.since() + ")"));
            answer.put("consumers_failing", failing);
        }
        Answers.json(rc, up ? 200 : 503, answer);
    }

    private void openApi(RoutingContext rc) {
        try (InputStream in = ServiceRoutes.class.getResourceAsStream("/api/openapi.json")) {
            rc.response().putHeader("Content-Type", "application/json").end(Buffer.buffer(in.readAllBytes()));
        } catch (Exception e) {
            throw new ApiError(500, "cannot read the OpenAPI document: " + e.getMessage());
        }
    }
}
