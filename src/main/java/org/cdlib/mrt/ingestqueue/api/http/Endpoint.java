package org.cdlib.mrt.ingestqueue.api.http;

import io.vertx.core.Handler;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;

/**
 * One route; {@code bodyLimit} &gt; 0 reads a POST body in memory up to that many bytes and
 * refuses a larger one with 413 (otherwise bodies are bounded by ingest.api.max-upload).
 */
public record Endpoint(HttpMethod method, String path, Access access, String summary, long bodyLimit,
        Handler<RoutingContext> handler) {
    String openApiPath() {
        return path.replaceAll(":(\\w+)", "{$1}");
    }
}
