package org.cdlib.mrt.ingestqueue.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.POST;
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

    /**
     * Who may call a route: nobody needs to log in, any listed user, a user with a role, or
     * (working files) a signed URL or a user with the role storage.
     */
    enum Access { PUBLIC, USER, SUBMITTER, ADMIN, STORAGE }

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

    /** The Content-Security-Policy of every answer: the dashboard's own scripts and styles, nothing inline, no frames. */
    static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
    /** A header the dashboard sends with every request (a page elsewhere cannot without the API's consent). */
    static final String REQUESTED_BY = "X-Requested-By";
    private static final Logger AUDIT = LoggerFactory.getLogger("ingestqueue.audit");

    private final ApiUsers users;
    private final String host;
    private final int requestedPort;
    private final long maxUpload;
    private final Path uploadsTmp;
    private final List<Endpoint> endpoints = new ArrayList<>();
    private Sessions sessions = new Sessions(java.time.Duration.ofHours(1), java.time.Clock.systemUTC());
    private UploadQuota quota = new UploadQuota(0, java.time.Duration.ofDays(1), java.time.Clock.systemUTC());
    private org.cdlib.mrt.ingestqueue.objects.FileUrlSigner signer;
    private Vertx vertx;
    private HttpServer server;

    HttpApi(ApiUsers users, String host, int port, long maxUpload, Path uploadsTmp) {
        this.users = users;
        this.host = host;
        this.requestedPort = port;
        this.maxUpload = maxUpload;
        this.uploadsTmp = uploadsTmp;
        add(GET, "/api/session", Access.USER, "Who is logged in (and the session's CSRF token)", this::session);
        add(POST, "/api/login", Access.PUBLIC, "Log in: a session cookie for the dashboard", 4096, this::login);
        add(POST, "/api/logout", Access.USER, "Log out: ends the session", this::logout);
    }

    HttpApi sessions(Sessions s) {
        this.sessions = s;
        return this;
    }

    HttpApi uploadQuota(UploadQuota q) {
        this.quota = q;
        return this;
    }

    /** Working files answer to URLs this signer signed (and to users with the role storage). */
    HttpApi fileSigner(org.cdlib.mrt.ingestqueue.objects.FileUrlSigner s) {
        this.signer = s;
        return this;
    }

    void add(HttpMethod method, String path, Access access, String summary, Handler<RoutingContext> handler) {
        add(method, path, access, summary, 0, handler);
    }

    void add(HttpMethod method, String path, Access access, String summary, long bodyLimit, Handler<RoutingContext> handler) {
        endpoints.add(new Endpoint(method, path, access, summary, bodyLimit, handler));
    }

    /** Whether the request's login still holds later on: its session is open (Basic credentials always hold). */
    java.util.function.BooleanSupplier loginHolds(RoutingContext rc) {
        Sessions.Session s = rc.get("session");
        Sessions current = sessions;
        return s == null ? () -> true : () -> current.isOpen(s.id());
    }

    List<Endpoint> endpoints() {
        return List.copyOf(endpoints);
    }

    /** A route path ({@code /api/jobs/:jid/hold}, {@code /files/:bid/:jid/*}) as a pattern over request paths. */
    static java.util.regex.Pattern pattern(String routePath) {
        return java.util.regex.Pattern.compile(java.util.Arrays.stream(routePath.split("/", -1))
                .map(part -> part.startsWith(":") ? "[^/]+" : part.equals("*") ? ".*" : java.util.regex.Pattern.quote(part))
                .collect(java.util.stream.Collectors.joining("/")));
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
            rc.response().putHeader("X-Content-Type-Options", "nosniff")
                    .putHeader("Content-Security-Policy", CSP)
                    .putHeader("X-Frame-Options", "DENY")
                    .putHeader("Referrer-Policy", "no-referrer")
                    .putHeader("Cross-Origin-Opener-Policy", "same-origin")
                    .putHeader("Cross-Origin-Resource-Policy", "same-origin")
                    .putHeader("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
                    .putHeader("Cache-Control", "no-store");
            if (rc.request().isSSL()) {
                rc.response().putHeader("Strict-Transport-Security", "max-age=31536000");
            }
            rc.next();
        });
        for (Endpoint e : endpoints) {
            var route = router.route(e.method(), e.path());
            // who is asking is settled before any body is read: a refused upload is never read
            route.handler(new Guard(e));
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
                // bounded by ingest.api.max-upload and what the user's quota leaves
                route.handler(this::uploadBody);
            }
            route.blockingHandler(rc -> {
                try {
                    InputChecks.pathParams(rc); // ids and names are what they claim before the queue sees them
                    e.handler().handle(rc);
                } catch (ApiError err) {
                    fail(rc, err.status(), err.getMessage(), err.allowed());
                } catch (RuntimeException err) {
                    Errors.answer(rc, err);
                }
            }, false);
        }
        // a known resource asked with another method: 405 naming the methods it takes, not a 404
        router.route().handler(rc -> {
            String path = rc.request().path();
            java.util.Set<String> allow = new java.util.TreeSet<>();
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
            fail(rc, 405, rc.request().method() + " " + path + " is not served; it takes " + String.join(", ", allow), List.of());
        });
        router.route("/*").handler(StaticHandler.create("dashboard").setCachingEnabled(false).setIndexPage("index.html"));
        router.route().last().handler(rc -> fail(rc, 404, "no such resource: " + rc.request().method() + " " + rc.request().path(), List.of()));
        router.route().failureHandler(rc -> {
            int status = rc.statusCode() > 0 ? rc.statusCode() : 500;
            if (status == 500 && rc.failure() != null) {
                LOG.error("{} {} failed", rc.request().method(), rc.request().path(), rc.failure());
            }
            fail(rc, status, status == 413 ? tooLarge(rc)
                    : status == 400 && formFieldTooLarge(rc.failure()) ? "a form field is larger than " + MAX_FORM_ATTRIBUTE_BYTES
                            + " bytes; a field takes at most " + QueueLimits.FIELD_BYTES + " bytes (a URL " + QueueLimits.URL_BYTES
                            + ", the Dublin Core fields " + QueueLimits.DUBLIN_CORE_BYTES + " together)"
                    : status == 500 ? "the request failed inside the service; the service log has the details"
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
        org.cdlib.mrt.ingestqueue.fetch.AddressPolicy.registerOwnPort(server.actualPort());
        LOG.info("HTTP API and dashboard on http://{}:{}/", host, server.actualPort());
    }

    @Override
    public void stop() {
        if (vertx != null) {
            if (server != null) {
                org.cdlib.mrt.ingestqueue.fetch.AddressPolicy.unregisterOwnPort(server.actualPort());
            }
            try {
                vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                LOG.warn("closing the HTTP server: {}", e.getMessage());
            }
            vertx = null;
        }
    }

    /** Reads an upload's body within ingest.api.max-upload and the user's remaining quota. */
    private void uploadBody(RoutingContext rc) {
        long limit = maxUpload;
        ApiUsers.User u = rc.get("user");
        long left = u == null ? Long.MAX_VALUE : quota.left(u.name());
        if (left < limit || limit <= 0) {
            limit = limit <= 0 ? left : Math.min(limit, left);
        }
        rc.put("bodyLimit", limit);
        // a body declared larger than the limit is refused by the body handler before it is read (413)
        if (u != null && quota.limit() > 0) {
            rc.addEndHandler(done -> quota.add(u.name(), rc.request().bytesRead()));
        }
        BodyHandler.create(uploadsTmp.toString()).setBodyLimit(limit == Long.MAX_VALUE ? -1 : limit)
                .setDeleteUploadedFilesOnEnd(true).setHandleFileUploads(true).handle(rc);
    }

    /** The 413's message: the request limit, or the user's quota when that is what is short. */
    private String tooLarge(RoutingContext rc) {
        ApiUsers.User u = rc.get("user");
        long left = u == null ? Long.MAX_VALUE : quota.left(u.name());
        if (u != null && quota.limit() > 0 && (maxUpload <= 0 || left < maxUpload)) {
            return "user '" + u.name() + "' may upload " + quota.limit() + " bytes per " + quota.window()
                    + " (ingest.api.max-upload-per-user); " + left + " bytes are left";
        }
        return "the request is larger than ingest.api.max-upload (" + maxUpload + " bytes)";
    }

    /** A refused body up to this size is left to Vert.x (nothing of it is kept), so that any client reads the answer cleanly. */
    static final long DISCARD_BYTES = 1024 * 1024;

    /**
     * Answers a refusal without keeping any of the request's body: a small body (up to
     * {@link #DISCARD_BYTES}) is dropped; of a larger one nothing more is read, and
     * the connection closes once the answer is out (an HTTP/2 stream is reset instead).
     */
    private static void refuse(RoutingContext rc, int status, String message) {
        String length = rc.request().getHeader("Content-Length");
        long declared = length != null && length.strip().matches("\\d{1,18}") ? Long.parseLong(length.strip()) : -1;
        boolean chunked = rc.request().getHeader("Transfer-Encoding") != null;
        if (rc.request().isEnded() || declared <= 0 && !chunked) {
            fail(rc, status, message, List.of());
            return;
        }
        if (rc.request().version() == io.vertx.core.http.HttpVersion.HTTP_2) {
            fail(rc, status, message, List.of());
            rc.response().reset(0x8); // CANCEL: no more of this stream's body
            return;
        }
        if (declared >= 0 && declared <= DISCARD_BYTES) {
            fail(rc, status, message, List.of()); // Vert.x drops the unread rest of a small body
            return;
        }
        rc.response().putHeader("Connection", "close");
        rc.response().endHandler(v -> rc.request().connection().close());
        fail(rc, status, message, List.of());
    }

    /** The guard runs before Vert.x may read a body (a security policy handler comes before body handlers). */
    private final class Guard implements io.vertx.ext.web.handler.SecurityPolicyHandler {
        private final Endpoint endpoint;

        Guard(Endpoint endpoint) {
            this.endpoint = endpoint;
        }

        @Override
        public void handle(RoutingContext rc) {
            guard(rc, endpoint);
        }
    }

    private void guard(RoutingContext rc, Endpoint e) {
        Access access = e.access();
        if (access == Access.PUBLIC) {
            rc.next();
            return;
        }
        String authorization = rc.request().getHeader("Authorization");
        ApiUsers.User user = null;
        Sessions.Session session = null;
        if (authorization != null) {
            user = users.authenticate(authorization).orElse(null);
        } else {
            io.vertx.core.http.Cookie c = rc.request().getCookie(Sessions.COOKIE);
            session = c == null ? null : sessions.find(c.getValue()).orElse(null);
            user = session == null ? null : session.user();
        }
        if (access == Access.STORAGE && user == null) {
            String why = signer == null ? "working files are not served without credentials here"
                    : signer.verify(rc.pathParam("bid"), rc.pathParam("jid"), decodedRest(rc),
                            rc.queryParams().get("expires"), rc.queryParams().get("signature"));
            if (why == null) {
                rc.next();
                return;
            }
            refuse(rc, 403, why);
            return;
        }
        if (user == null) {
            // the dashboard asks with X-Requested-By (its live stream, which cannot set headers, with its Accept):
            // it goes to its login page rather than the browser's dialog
            String accept = rc.request().getHeader("Accept");
            if (rc.request().getHeader(REQUESTED_BY) == null && (accept == null || !accept.contains("text/event-stream"))) {
                rc.response().putHeader("WWW-Authenticate", "Basic realm=\"ingest-queue\", charset=\"UTF-8\"");
            }
            refuse(rc, 401, authorization != null ? "the user name or password is wrong"
                    : "log in: this resource needs a user of ingest.api.users (Basic authentication, or the dashboard's login at /login.html)");
            return;
        }
        if (isStateChanging(rc)) {
            String refused = session != null ? csrfRefusal(rc, session) : crossSiteRefusal(rc);
            if (refused != null) {
                audit(rc, user, e, 403, refused);
                refuse(rc, 403, refused);
                return;
            }
        }
        String role = switch (access) {
            case ADMIN -> "admin";
            case SUBMITTER -> "submitter";
            case STORAGE -> user.has("admin") ? "admin" : "storage";
            default -> null;
        };
        if (!user.has(role)) {
            if (access == Access.ADMIN) {
                audit(rc, user, e, 403, "lacks role admin");
            }
            refuse(rc, 403, "user '" + user.name() + "' lacks role '" + role + "'");
            return;
        }
        rc.put("user", user);
        rc.put("session", session);
        if (access == Access.ADMIN) {
            ApiUsers.User who = user;
            rc.addEndHandler(done -> audit(rc, who, e, rc.response().getStatusCode(), null));
        }
        rc.next();
    }

    private static boolean isStateChanging(RoutingContext rc) {
        HttpMethod m = rc.request().method();
        return !(m == HttpMethod.GET || m == HttpMethod.HEAD || m == HttpMethod.OPTIONS);
    }

    /** A request on a session cookie must carry the session's CSRF token. */
    private static String csrfRefusal(RoutingContext rc, Sessions.Session session) {
        String token = rc.request().getHeader(Sessions.CSRF_HEADER);
        if (token == null || !java.security.MessageDigest.isEqual(token.getBytes(StandardCharsets.UTF_8),
                session.csrf().getBytes(StandardCharsets.UTF_8))) {
            return "refused: a request on the dashboard's session must carry its " + Sessions.CSRF_HEADER
                    + " header (reload the dashboard; scripts use Basic authentication)";
        }
        return null;
    }

    /**
     * A request with Basic credentials that a browser sent from another site (a browser may
     * attach cached credentials to a form another page posts) is refused: browsers name the
     * page's origin in {@code Origin} and {@code Sec-Fetch-Site}; curl and Merritt clients send neither.
     */
    private static String crossSiteRefusal(RoutingContext rc) {
        String site = rc.request().getHeader("Sec-Fetch-Site");
        if (site != null && !site.equals("same-origin") && !site.equals("none")) {
            return "refused: a " + site + " request (Sec-Fetch-Site) may not change anything; use the dashboard or a script";
        }
        String origin = rc.request().getHeader("Origin");
        if (origin != null) {
            String hostHeader = rc.request().getHeader("Host");
            String scheme = rc.request().isSSL() ? "https" : "http";
            if (hostHeader == null || !origin.equalsIgnoreCase(scheme + "://" + hostHeader)) {
                return "refused: a request from " + origin + " (Origin) may not change anything here";
            }
        }
        return null;
    }

    private static void audit(RoutingContext rc, ApiUsers.User user, Endpoint e, int status, String note) {
        StringBuilder target = new StringBuilder();
        rc.pathParams().forEach((k, v) -> target.append(target.length() == 0 ? "" : ",").append(k).append('=').append(v));
        String result = status / 100 == 2 ? "ok" : "refused";
        AUDIT.info("user={} action=\"{} {}\" target={} result={} status={}{}", user == null ? "-" : user.name(), e.method(),
                e.path(), target.length() == 0 ? "-" : target, result, status, note == null ? "" : " reason=\"" + note + "\"");
    }

    private static String decodedRest(RoutingContext rc) {
        String rest = rc.pathParam("*");
        return rest == null ? "" : java.net.URLDecoder.decode(rest.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------ the dashboard's session

    private void session(RoutingContext rc) {
        ApiUsers.User u = rc.get("user");
        Sessions.Session s = rc.get("session");
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("user", u.name());
        body.put("roles", new java.util.TreeSet<>(u.roles()));
        if (s != null) {
            body.put("csrf_token", s.csrf());
        }
        json(rc, 200, body);
    }

    /**
     * {@code POST /api/login} with {@code {"username": ..., "password": ...}} and the
     * {@code X-Requested-By} header (a form on another site can send neither JSON nor the header).
     */
    private void login(RoutingContext rc) {
        if (rc.request().getHeader(REQUESTED_BY) == null) {
            throw new ApiError(403, "log in from the dashboard's login page (the request lacks the " + REQUESTED_BY + " header)");
        }
        String site = rc.request().getHeader("Sec-Fetch-Site");
        if (site != null && !site.equals("same-origin") && !site.equals("none")) {
            throw new ApiError(403, "refused: a " + site + " login");
        }
        com.fasterxml.jackson.databind.JsonNode j;
        try {
            j = JSON.readTree(text(rc));
        } catch (Exception e) {
            j = null;
        }
        if (j == null || !j.isObject() || !j.path("username").isTextual() || !j.path("password").isTextual()) {
            throw new ApiError(400, "send {\"username\": \"...\", \"password\": \"...\"} as JSON");
        }
        String name = j.get("username").asText();
        var user = users.authenticate(name, j.get("password").asText());
        if (user.isEmpty()) {
            AUDIT.info("user={} action=\"login\" target=- result=refused status=401 from={}", name.replaceAll("[^\\p{Graph}]", "?"),
                    rc.request().remoteAddress());
            throw new ApiError(401, "the user name or password is wrong");
        }
        Sessions.Session s = sessions.create(user.get());
        io.vertx.core.http.Cookie cookie = io.vertx.core.http.Cookie.cookie(Sessions.COOKIE, s.id()).setPath("/").setHttpOnly(true)
                .setSameSite(io.vertx.core.http.CookieSameSite.STRICT).setSecure(rc.request().isSSL())
                .setMaxAge(sessions.idle().toSeconds());
        rc.response().addCookie(cookie);
        AUDIT.info("user={} action=\"login\" target=- result=ok status=200 from={}", name, rc.request().remoteAddress());
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("user", user.get().name());
        body.put("roles", new java.util.TreeSet<>(user.get().roles()));
        body.put("csrf_token", s.csrf());
        json(rc, 200, body);
    }

    private void logout(RoutingContext rc) {
        Sessions.Session s = rc.get("session");
        if (s != null) {
            sessions.end(s.id());
        }
        rc.response().addCookie(io.vertx.core.http.Cookie.cookie(Sessions.COOKIE, "").setPath("/").setHttpOnly(true)
                .setSameSite(io.vertx.core.http.CookieSameSite.STRICT).setMaxAge(0));
        ApiUsers.User u = rc.get("user");
        AUDIT.info("user={} action=\"logout\" target=- result=ok status=200", u.name());
        json(rc, 200, Map.of("logged_out", u.name()));
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
