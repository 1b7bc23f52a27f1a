package org.cdlib.mrt.ingestqueue.api.auth;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.CookieSameSite;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.Session;
import io.vertx.ext.web.handler.CSRFHandler;
import io.vertx.ext.web.handler.PlatformHandler;
import io.vertx.ext.web.handler.SessionHandler;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.cdlib.mrt.ingestqueue.api.http.ApiError;
import org.cdlib.mrt.ingestqueue.api.http.Proxies;
import org.cdlib.mrt.ingestqueue.queue.hosts.SessionNodes;
import org.cdlib.mrt.ingestqueue.queue.hosts.SessionsFullException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dashboard's logins on Vert.x Web's parts: {@link SessionHandler} over {@link SharedSessions}
 * (an {@code HttpOnly; SameSite=Strict} cookie; the session itself in ZooKeeper, shared by the
 * hosts) and {@link CSRFHandler} for requests on that cookie (the page sends the {@code XSRF-TOKEN}
 * cookie's value back as {@code X-XSRF-TOKEN}). Each comes twice, with and without the cookies'
 * {@code Secure} flag, since only a request that came over https (from a trusted proxy) may set
 * it. Without {@link SessionNodes} (an API alone, in tests) there are no dashboard logins.
 */
public final class Sessions {
    private static final Logger LOG = LoggerFactory.getLogger(Sessions.class);
    public static final String COOKIE = "iq_session";
    public static final String CSRF_COOKIE = "XSRF-TOKEN";
    public static final String CSRF_HEADER = "X-XSRF-TOKEN";
    /** One folder of sessions is swept at most this often (all of them in 16 times this). */
    static final long SWEEP_MILLIS = 5_000;
    /** A live stream asks whether its session is open at most this often. */
    private static final long OPEN_CHECK_MILLIS = 1_000;

    private final SessionNodes nodes;
    private final Duration idle;
    private final Proxies proxies;
    /** Sessions lately found open, by id (bounded; a logout here forgets its own at once). */
    private final Map<String, Long> openUntil = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > 1000;
        }
    };
    private SessionHandler plain;
    private SessionHandler secure;
    private CSRFHandler csrfPlain;
    private CSRFHandler csrfSecure;

    public Sessions(SessionNodes nodes, Duration idle, Proxies proxies) {
        this.nodes = nodes;
        this.idle = idle;
        this.proxies = proxies;
    }

    Duration idle() {
        return idle;
    }

    public void start(Vertx vertx) {
        if (nodes == null) {
            return;
        }
        SharedSessions store = new SharedSessions(nodes, idle);
        store.init(vertx, new JsonObject());
        plain = sessionHandler(store, false);
        secure = sessionHandler(store, true);
        // the tokens' signing key is one for all hosts: a token issued by one is checked by another
        String secret = Base64.getEncoder().encodeToString(nodes.secret());
        csrfPlain = csrfHandler(vertx, secret, false);
        csrfSecure = csrfHandler(vertx, secret, true);
        // every session is looked at about once per idle limit, one folder at a time
        long sweep = Math.max(100, Math.min(SWEEP_MILLIS, idle.toMillis() / 16));
        vertx.setPeriodic(sweep, t -> vertx.executeBlocking(nodes::sweep, false)
                .onFailure(e -> LOG.debug("sessions not swept now: {}", e.getMessage())));
    }

    private SessionHandler sessionHandler(SharedSessions store, boolean https) {
        return SessionHandler.create(store).setSessionCookieName(COOKIE).setCookieHttpOnlyFlag(true)
                .setCookieSameSite(CookieSameSite.STRICT).setCookieSecureFlag(https).setSessionTimeout(idle.toMillis())
                .setLazySession(true).setNagHttps(false);
    }

    private CSRFHandler csrfHandler(Vertx vertx, String secret, boolean https) {
        return CSRFHandler.create(vertx, secret).setCookieName(CSRF_COOKIE).setHeaderName(CSRF_HEADER)
                .setCookiePath("/")
                .setCookieSecure(https).setTimeout(idle.toMillis()).setNagHttps(false);
    }

    /** Loads the request's session, if its cookie names one (a platform handler: first on a route). */
    public PlatformHandler handler() {
        return rc -> {
            if (plain == null) {
                rc.next();
            } else {
                pick(rc).handle(rc);
            }
        };
    }

    private SessionHandler pick(RoutingContext rc) {
        return proxies.https(rc.request()) ? secure : plain;
    }

    /** The user of the request's session; null without one (a request without the cookie touches no session). */
    ApiUsers.User user(RoutingContext rc, ApiUsers users) {
        if (plain == null || rc.request().getCookie(COOKIE) == null) {
            return null;
        }
        Session s = rc.session();
        String name = s == null ? null : s.get(SharedSessions.USER);
        return name == null ? null : users.named(name).orElse(null);
    }

    /** Checks (unsafe methods) or issues (safe ones) the session's CSRF token; the route goes on, or fails with 403. */
    void csrf(RoutingContext rc) {
        (proxies.https(rc.request()) ? csrfSecure : csrfPlain).handle(rc);
    }

    /** A new session (a new id, whatever the request had) for {@code user}, stored before the login answers. */
    Future<Void> login(RoutingContext rc, ApiUsers.User user) {
        if (plain == null) {
            return Future.failedFuture(new ApiError(503,
                    "dashboard logins are not served here; use Basic authentication"));
        }
        Session s = rc.session();
        s.destroy(); // the next put gives it a new id: the id a browser had before logging in is not the logged-in one
        s.put(SharedSessions.USER, user.name());
        return pick(rc).flush(rc, true).recover(e -> Future.failedFuture(e instanceof SessionsFullException
                ? new ApiError(503, e.getMessage()) : e));
    }

    /** Ends the request's session on every host before the logout answers. */
    Future<Void> logout(RoutingContext rc) {
        Session s = rc.session();
        synchronized (openUntil) {
            openUntil.remove(s.id());
        }
        s.destroy();
        return pick(rc).flush(rc, true);
    }

    /** Whether the request's session is still open later on, without counting that as a use (a live stream asks). */
    public BooleanSupplier holds(RoutingContext rc) {
        if (plain == null || rc.request().getCookie(COOKIE) == null || rc.session() == null) {
            return () -> true;
        }
        String id = rc.session().id();
        return () -> {
            long now = System.currentTimeMillis();
            synchronized (openUntil) {
                Long until = openUntil.get(id);
                if (until != null && until > now) {
                    return true;
                }
            }
            boolean open = nodes.find(id).isPresent();
            synchronized (openUntil) {
                if (open) {
                    openUntil.put(id, now + OPEN_CHECK_MILLIS);
                } else {
                    openUntil.remove(id);
                }
            }
            return open;
        };
    }
}
