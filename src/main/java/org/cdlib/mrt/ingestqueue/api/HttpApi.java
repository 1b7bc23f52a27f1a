package org.cdlib.mrt.ingestqueue.api;

import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.StaticHandler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.camel.Service;
import org.cdlib.mrt.ingestqueue.api.auth.ApiUsers;
import org.cdlib.mrt.ingestqueue.api.auth.Guard;
import org.cdlib.mrt.ingestqueue.api.auth.LoginThrottle;
import org.cdlib.mrt.ingestqueue.api.auth.Logins;
import org.cdlib.mrt.ingestqueue.api.auth.SessionRoutes;
import org.cdlib.mrt.ingestqueue.api.auth.Sessions;
import org.cdlib.mrt.ingestqueue.api.http.Access;
import org.cdlib.mrt.ingestqueue.api.http.Answers;
import org.cdlib.mrt.ingestqueue.api.http.ApiError;
import org.cdlib.mrt.ingestqueue.api.http.ConnectionLimits;
import org.cdlib.mrt.ingestqueue.api.http.Endpoint;
import org.cdlib.mrt.ingestqueue.api.http.Errors;
import org.cdlib.mrt.ingestqueue.api.http.InputChecks;
import org.cdlib.mrt.ingestqueue.api.http.Proxies;
import org.cdlib.mrt.ingestqueue.api.http.Routes;
import org.cdlib.mrt.ingestqueue.api.submissions.Submissions;
import org.cdlib.mrt.ingestqueue.api.submissions.UploadQuota;
import org.cdlib.mrt.ingestqueue.fetch.AddressPolicy;
import org.cdlib.mrt.ingestqueue.objects.FileUrlSigner;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP side of the service on Vert.x: the Merritt submission endpoint, the JSON API, the
 * files storage fetches, health, metrics and the dashboard. Each route is declared once in
 * {@link #endpoints}, which both registers it and is checked against the OpenAPI document.
 * Here: the server, its route table and the headers of every answer; who may call a route is
 * {@link Guard}'s, how much of a body is read {@link RequestBodies}', the answers every route shares
 * {@link Answers}'. It sits above every room of the API (it composes the guard, the sessions and the
 * body reading); the rooms declare their routes on {@link Routes} and know nothing of it.
 */
public final class HttpApi implements Service, Routes {
    private static final Logger LOG = LoggerFactory.getLogger(HttpApi.class);
    /**
     * What Vert.x holds of one form field: far above {@link QueueLimits#FIELD_BYTES}, so that
     * {@link Submissions} refuses an oversized field by name; beyond it Vert.x stops decoding.
     */
    static final int MAX_FORM_ATTRIBUTE_BYTES = 2 * 1024 * 1024;

    /**
     * The Content-Security-Policy of every answer: the dashboard's own scripts and styles, nothing inline, no frames.
     */
    static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; "
            + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

    private final ApiUsers users;
    private final String host;
    private final int requestedPort;
    private final long maxUpload;
    private final Path uploadsTmp;
    private final List<Endpoint> endpoints = new ArrayList<>();
    /** Endpoints whose handlers do not block (they wait on futures): run on the event loop, not a worker. */
    private final Set<Endpoint> nonBlocking = new HashSet<>();
    private LoginThrottle throttle = new LoginThrottle(10, 20, Clock.systemUTC());
    private Proxies proxies = Proxies.none();
    private Logins logins;
    private ConnectionLimits.Settings connections = ConnectionLimits.Settings.defaults();
    private Sessions sessions = new Sessions(null, Duration.ofHours(1), Proxies.none());
    private UploadQuota quota = new UploadQuota(0, Duration.ofDays(1), Clock.systemUTC());
    private FileUrlSigner signer;
    private Vertx vertx;
    private HttpServer server;

    public HttpApi(ApiUsers users, String host, int port, long maxUpload, Path uploadsTmp) {
        this.users = users;
        this.host = host;
        this.requestedPort = port;
        this.maxUpload = maxUpload;
        this.uploadsTmp = uploadsTmp;
        new SessionRoutes(this::sessions, this::logins, this::proxies).register(this);
    }

    public HttpApi sessions(Sessions s) {
        this.sessions = s;
        return this;
    }

    public Sessions sessions() {
        return sessions;
    }

    public HttpApi loginThrottle(LoginThrottle t) {
        this.throttle = t;
        return this;
    }

    public HttpApi connectionLimits(ConnectionLimits.Settings s) {
        this.connections = s;
        return this;
    }

    public HttpApi proxies(Proxies p) {
        this.proxies = p;
        return this;
    }

    public Proxies proxies() {
        return proxies;
    }

    /** Who may use the API (tests count its password hashes). */
    public ApiUsers users() {
        return users;
    }

    /** The password checks (set when the server starts). */
    public Logins logins() {
        return logins;
    }

    public HttpApi uploadQuota(UploadQuota q) {
        this.quota = q;
        return this;
    }

    /** Working files answer to URLs this signer signed (and to users with the role storage). */
    public HttpApi fileSigner(FileUrlSigner s) {
        this.signer = s;
        return this;
    }

    @Override
    public void add(HttpMethod method, String path, Access access, String summary, long bodyLimit,
            Handler<RoutingContext> handler) {
        endpoints.add(new Endpoint(method, path, access, summary, bodyLimit, handler));
    }

    @Override
    public void addNonBlocking(HttpMethod method, String path, Access access, String summary, long bodyLimit,
            Handler<RoutingContext> handler) {
        Endpoint e = new Endpoint(method, path, access, summary, bodyLimit, handler);
        endpoints.add(e);
        nonBlocking.add(e);
    }

    /** Whether the request's login still holds later on: its session is open (Basic credentials always hold). */
    public BooleanSupplier loginHolds(RoutingContext rc) {
        return rc.get(Guard.CSRF_CHECKED) == null ? () -> true : sessions.holds(rc);
    }

    /** The routes as declared (the OpenAPI document is checked against them). */
    public List<Endpoint> endpoints() {
        return List.copyOf(endpoints);
    }

    /** A route path ({@code /api/jobs/:jid/hold}, {@code /files/:bid/:jid/*}) as a pattern over request paths. */
    static Pattern pattern(String routePath) {
        return Pattern.compile(Arrays.stream(routePath.split("/", -1))
                .map(part -> part.startsWith(":") ? "[^/]+" : part.equals("*") ? ".*" : Pattern.quote(part))
                .collect(Collectors.joining("/")));
    }

    /** The port the server listens on (the requested one, or the one picked for port 0). */
    public int port() {
        return server == null ? requestedPort : server.actualPort();
    }

    @Override
    public void start() {
        try {
            Files.createDirectories(uploadsTmp);
        } catch (IOException e) {
            throw new IllegalStateException("cannot create " + uploadsTmp + ": " + e.getMessage(), e);
        }
        // the sessions, the upload quota and the file signer are set before the server starts
        RequestBodies bodies = new RequestBodies(maxUpload, uploadsTmp, quota);
        vertx = Vertx.vertx();
        logins = new Logins(vertx, users, throttle);
        sessions.start(vertx);
        Guard guard = new Guard(logins, users, sessions, signer, proxies);
        Router router = Router.router(vertx);
        ConnectionLimits limits = new ConnectionLimits(connections, proxies);
        limits.start(vertx);
        router.route().handler(rc -> {
            limits.started(rc.request());
            HttpConnection connection = rc.request().connection();
            rc.addEndHandler(v -> limits.answered(connection));
            rc.response().putHeader("X-Content-Type-Options", "nosniff")
                    .putHeader("Content-Security-Policy", CSP)
                    .putHeader("X-Frame-Options", "DENY")
                    .putHeader("Referrer-Policy", "no-referrer")
                    .putHeader("Cross-Origin-Opener-Policy", "same-origin")
                    .putHeader("Cross-Origin-Resource-Policy", "same-origin")
                    .putHeader("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
                    .putHeader("Cache-Control", "no-store");
            if (proxies.https(rc.request())) {
                rc.response().putHeader("Strict-Transport-Security", "max-age=31536000");
            }
            rc.next();
        });
        for (Endpoint e : endpoints) {
            var route = router.route(e.method(), e.path());
            // who is asking is settled before any body is read: a refused upload is never read
            route.handler(sessions.handler()).handler(guard.of(e));
            bodies.read(route, e);
            Handler<RoutingContext> handler = rc -> {
                try {
                    InputChecks.pathParams(rc); // ids and names are what they claim before the queue sees them
                    e.handler().handle(rc);
                } catch (ApiError err) {
                    Answers.fail(rc, err.status(), err.getMessage(), err.allowed());
                } catch (RuntimeException err) {
                    Errors.answer(rc, err);
                }
            };
            if (nonBlocking.contains(e)) {
                route.handler(handler);
            } else {
                route.blockingHandler(handler, false);
            }
        }
        // a known resource asked with another method: 405 naming the methods it takes, not a 404
        router.route().handler(rc -> {
            String path = rc.request().path();
            Set<String> allow = new TreeSet<>();
            for (Endpoint e : endpoints) {
                if (pattern(e.path()).matcher(path).matches() && e.method() != rc.request().method()) {
                    allow.add(e.method().name());
                }
            }
            if (allow.isEmpty()) {
                rc.next();
                return;
            }
            rc.response().putHeader("Allow", String.join(", ", allow));
            Answers.fail(rc, 405, rc.request().method() + " " + path + " is not served; it takes "
                    + String.join(", ", allow), List.of());
        });
        router.route("/*").handler(StaticHandler.create("dashboard").setCachingEnabled(false)
                .setIndexPage("index.html"));
        router.route().last().handler(rc -> Answers.fail(rc, 404, "no such resource: " + rc.request().method() + " "
                + rc.request().path(), List.of()));
        router.route().failureHandler(rc -> FailedRequests.failed(rc, bodies));
        // no cleartext HTTP/2: with it Vert.x makes a connection only once its first bytes name the protocol,
        // so a silent or half-sent one would escape the connection limits until the idle timeout
        HttpServerOptions options = new HttpServerOptions().setHost(host).setPort(requestedPort)
                .setMaxFormAttributeSize(MAX_FORM_ATTRIBUTE_BYTES).setMaxFormFields(256)
                .setMaxFormBufferedBytes(1024 * 1024)
                .setMaxHeaderSize(16 * 1024).setIdleTimeout((int) Math.max(1, connections.idleTimeout().toSeconds()))
                .setHttp2ClearTextEnabled(false);
        try {
            server = vertx.createHttpServer(options).connectionHandler(limits::opened).requestHandler(router).listen()
                    .toCompletionStage()
                    .toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            vertx.close();
            throw new IllegalStateException("cannot listen on " + host + ":" + requestedPort + " (ingest.http.port): "
                    + e.getMessage(), e);
        }
        AddressPolicy.registerOwnPort(server.actualPort());
        LOG.info("HTTP API and dashboard on http://{}:{}/", host, server.actualPort());
    }

    @Override
    public void stop() {
        if (vertx != null) {
            if (server != null) {
                AddressPolicy.unregisterOwnPort(server.actualPort());
            }
            try {
                vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                LOG.warn("closing the HTTP server: {}", e.getMessage());
            }
            vertx = null;
        }
    }
}
