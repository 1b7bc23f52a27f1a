package org.cdlib.mrt.ingestqueue.api.http;

import io.vertx.core.Handler;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;

/**
 * Where a room declares its routes. Each room's {@code register} takes this, not the server, so
 * the rooms sit below the server that composes them; the server keeps the table, registers each
 * route and checks it against the OpenAPI document.
 */
public interface Routes {

    default void add(HttpMethod method, String path, Access access, String summary, Handler<RoutingContext> handler) {
        add(method, path, access, summary, 0, handler);
    }

    void add(HttpMethod method, String path, Access access, String summary, long bodyLimit,
            Handler<RoutingContext> handler);

    /** A route whose handler never blocks: it runs on the event loop (it answers when its futures complete). */
    void addNonBlocking(HttpMethod method, String path, Access access, String summary, long bodyLimit,
            Handler<RoutingContext> handler);
}
