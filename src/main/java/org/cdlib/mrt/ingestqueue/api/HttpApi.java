package org.cdlib.mrt.ingestqueue.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.handler.StaticHandler;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.camel.Service;
import org.cdlib.mrt.ingestqueue.queue.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.QueueLimits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP side of the service on Vert.x: the Merritt submission endpoint, the JSON API, the
 * files storage fetches, health, metrics and the dashboard. Each route is declared once in
 * {@link #endpoints}, which both registers it and is checked against the OpenAPI document.
 */
public final class HttpApi implements Service {
    private static final Logger LOG = LoggerFactory.getLogger(HttpApi.class);
    static final ObjectMapper JSON = QueueJson.MAPPER;
    /**
     * What Vert.x holds of one form field: far above {@link QueueLimits#FIELD_BYTES}, so that
     * {@link Submissions} refuses an oversized field by name; beyond it Vert.x stops decoding.
     */
    static final int MAX_FORM_ATTRIBUTE_BYTES = 2 * 1024 * 1024;

    /** Who may call a route: nobody needs to log in, any listed user, or a user with a role. */
    enum Access { PUBLIC, USER, SUBMITTER, ADMIN }

    /**
     * One route; {@code bodyLimit} &gt; 0 reads a POST body in memory up to that many bytes and
     * refuses a larger one with 413 (otherwise bodies are bounded by ingest.api.max-upload).
     */
    record Endpoint(HttpMethod method, String path, Access access, String summary, long bodyLimit,
            Handler<RoutingContext> handler) {
        String openApiPath() {
            return path.replaceAll(":(\\w+)", "{$1}");
        }
    }

    private final ApiUsers users;
    private final String host;
    private final int requestedPort;
    private final long maxUpload;
    private final Path uploadsTmp;
    private final List<Endpoint> endpoints = new ArrayList<>();
    private Vertx vertx;
    private HttpServer server;

    HttpApi(ApiUsers users, String host, int port, long maxUpload, Path uploadsTmp) {
        this.users = users;
        this.host = host;
        this.requestedPort = port;
        this.maxUpload = maxUpload;
        this.uploadsTmp = uploadsTmp;
    }

    void add(HttpMethod method, String path, Access access, String summary, Handler<RoutingContext> handler) {
        add(method, path, access, summary, 0, handler);
    }

    void add(HttpMethod method, String path, Access access, String summary, long bodyLimit, Handler<RoutingContext> handler) {
        endpoints.add(new Endpoint(method, path, access, summary, bodyLimit, handler));
    }

    List<Endpoint> endpoints() {
        return List.copyOf(endpoints);
    }

    /** The port the server listens on (the requested one, or the one picked for port 0). */
    public int port() {
        return server == null ? requestedPort : server.actualPort();
    }

    @Override
    public void start() {
        try {
            Files.createDirectories(uploadsTmp);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot create " + uploadsTmp + ": " + e.getMessage(), e);
        }
        vertx = Vertx.vertx();
        Router router = Router.router(vertx);
        router.route().handler(rc -> {
            rc.response().putHeader("X-Content-Type-Options", "nosniff");
            rc.next();
        });
        BodyHandler bodies = BodyHandler.create(uploadsTmp.toString()).setBodyLimit(maxUpload)
                .setDeleteUploadedFilesOnEnd(true).setHandleFileUploads(true);
        for (Endpoint e : endpoints) {
            var route = router.route(e.method(), e.path());
            if (e.method() == HttpMethod.POST && e.bodyLimit() > 0) {
                long limit = maxUpload > 0 ? Math.min(e.bodyLimit(), maxUpload) : e.bodyLimit();
                // a body declared larger is refused before it is read; one sent in chunks as soon as it grows past the limit
                route.handler(BodyHandler.create(false).setBodyLimit(limit));
                route.failureHandler(rc -> {
                    if (rc.statusCode() != 413) {
                        rc.next();
                        return;
                    }
                    String length = rc.request().getHeader("Content-Length");
                    fail(rc, 413, "the body is " + (length != null && length.matches("\\d{1,19}") ? length : "more than " + limit)
                            + " bytes; " + e.method() + " " + e.path() + " takes at most " + limit + " bytes", List.of());
                });
            } else if (e.method() == HttpMethod.POST) {
                route.handler(bodies); // Vert.x reads bodies before any other handler (bounded by ingest.api.max-upload)
            }
            route.handler(rc -> guard(rc, e.access()));
            route.blockingHandler(rc -> {
                try {
                    e.handler().handle(rc);
                } catch (ApiError err) {
                    fail(rc, err.status(), err.getMessage(), err.allowed());
                } catch (RuntimeException err) {
                    Errors.answer(rc, err);
                }
            }, false);
        }
        router.route("/*").handler(StaticHandler.create("dashboard").setCachingEnabled(false).setIndexPage("index.html"));
        router.route().last().handler(rc -> fail(rc, 404, "no such resource: " + rc.request().method() + " " + rc.request().path(), List.of()));
        router.route().failureHandler(rc -> {
            int status = rc.statusCode() > 0 ? rc.statusCode() : 500;
            fail(rc, status, status == 413 ? "the request is larger than ingest.api.max-upload (" + maxUpload + " bytes)"
                    : status == 400 && formFieldTooLarge(rc.failure()) ? "a form field is larger than " + MAX_FORM_ATTRIBUTE_BYTES
                            + " bytes; a field takes at most " + QueueLimits.FIELD_BYTES + " bytes (a URL " + QueueLimits.URL_BYTES
                            + ", the Dublin Core fields " + QueueLimits.DUBLIN_CORE_BYTES + " together)"
                    : rc.failure() != null ? String.valueOf(rc.failure().getMessage()) : "request failed", List.of());
        });
        HttpServerOptions options = new HttpServerOptions().setHost(host).setPort(requestedPort)
                .setMaxFormAttributeSize(MAX_FORM_ATTRIBUTE_BYTES).setMaxFormFields(256).setMaxFormBufferedBytes(1024 * 1024)
                .setMaxHeaderSize(16 * 1024);
        try {
            server = vertx.createHttpServer(options).requestHandler(router).listen().toCompletionStage()
                    .toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            vertx.close();
            throw new IllegalStateException("cannot listen on " + host + ":" + requestedPort + " (ingest.http.port): " + e.getMessage(), e);
        }
        LOG.info("HTTP API and dashboard on http://{}:{}/", host, server.actualPort());
    }

    @Override
    public void stop() {
        if (vertx != null) {
            try {
                vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                LOG.warn("closing the HTTP server: {}", e.getMessage());
            }
            vertx = null;
        }
    }

    private void guard(RoutingContext rc, Access access) {
        if (access == Access.PUBLIC) {
            rc.next();
            return;
        }
        var user = users.authenticate(rc.request().getHeader("Authorization"));
        if (user.isEmpty()) {
            rc.response().putHeader("WWW-Authenticate", "Basic realm=\"ingest-queue\", charset=\"UTF-8\"");
            fail(rc, 401, "log in: this resource needs a user of ingest.api.users", List.of());
            return;
        }
        String role = access == Access.ADMIN ? "admin" : access == Access.SUBMITTER ? "submitter" : null;
        if (!user.get().has(role)) {
            fail(rc, 403, "user '" + user.get().name() + "' lacks role '" + role + "'", List.of());
            return;
        }
        rc.put("user", user.get());
        rc.next();
    }

    static String user(RoutingContext rc) {
        ApiUsers.User u = rc.get("user");
        return u == null ? "anonymous" : u.name();
    }

    static void json(RoutingContext rc, int status, Object body) {
        try {
            rc.response().setStatusCode(status).putHeader("Content-Type", "application/json; charset=UTF-8")
                    .end(io.vertx.core.buffer.Buffer.buffer(JSON.writeValueAsBytes(body)));
        } catch (Exception e) {
            rc.response().setStatusCode(500).end();
        }
    }

    static void fail(RoutingContext rc, int status, String message, List<String> allowed) {
        if (rc.response().ended()) {
            return;
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", message);
        body.put("status", status);
        if (!allowed.isEmpty()) {
            body.put("allowed", allowed);
        }
        json(rc, status, body);
    }

    /** Netty's refusal of a form field over {@link #MAX_FORM_ATTRIBUTE_BYTES} (or of a field it cannot buffer). */
    private static boolean formFieldTooLarge(Throwable t) {
        return t instanceof io.netty.handler.codec.http.multipart.HttpPostRequestDecoder.TooLongFormFieldException
                || t != null && String.valueOf(t.getMessage()).contains("Size exceed allowed maximum capacity");
    }

    static String text(RoutingContext rc) {
        return rc.body() == null || rc.body().buffer() == null ? "" : rc.body().buffer().toString(StandardCharsets.UTF_8);
    }
}
