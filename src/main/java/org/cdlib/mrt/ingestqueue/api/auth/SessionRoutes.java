package org.cdlib.mrt.ingestqueue.api.auth;

import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.POST;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.cdlib.mrt.ingestqueue.api.http.Access;
import org.cdlib.mrt.ingestqueue.api.http.Answers;
import org.cdlib.mrt.ingestqueue.api.http.ApiError;
import org.cdlib.mrt.ingestqueue.api.http.Proxies;
import org.cdlib.mrt.ingestqueue.api.http.Routes;

/**
 * The dashboard's session: who is logged in, logging in (a session cookie; its CSRF token comes
 * with the next request's answer, as the {@code XSRF-TOKEN} cookie) and logging out, on every
 * host at once; each login and logout has its line in the audit log.
 */
public final class SessionRoutes {
    private final Supplier<Sessions> sessions;
    private final Supplier<Logins> logins;
    private final Supplier<Proxies> proxies;

    /**
     * The sessions, the password checks and the proxies are asked for per request: the module sets them after
     * these routes are declared, and the password checks exist once the server has started.
     */
    public SessionRoutes(Supplier<Sessions> sessions, Supplier<Logins> logins, Supplier<Proxies> proxies) {
        this.sessions = sessions;
        this.logins = logins;
        this.proxies = proxies;
    }

    public void register(Routes http) {
        http.add(GET, "/api/session", Access.USER,
                "Who is logged in (on a session, its XSRF-TOKEN cookie comes with the answer)", this::session);
        http.addNonBlocking(POST, "/api/login", Access.PUBLIC, "Log in: a session cookie for the dashboard", 4096,
                this::login);
        http.addNonBlocking(POST, "/api/logout", Access.USER, "Log out: ends the session", 0, this::logout);
    }

    private void session(RoutingContext rc) {
        ApiUsers.User u = rc.get("user");
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("user", u.name());
        body.put("roles", new TreeSet<>(u.roles()));
        Answers.json(rc, 200, body);
    }

    /**
     * {@code POST /api/login} with {@code {"username": ..., "password": ...}} and the
     * {@code X-Requested-By} header (a form on another site can send neither JSON nor the header).
     */
    private void login(RoutingContext rc) {
        if (rc.request().getHeader(Guard.REQUESTED_BY) == null) {
            throw new ApiError(403, "log in from the dashboard's login page (the request lacks the "
                    + Guard.REQUESTED_BY + " header)");
        }
        String site = rc.request().getHeader("Sec-Fetch-Site");
        if (site != null && !site.equals("same-origin") && !site.equals("none")) {
            throw new ApiError(403, "refused: a " + site + " login");
        }
        JsonNode j;
        try {
            j = Answers.JSON.readTree(Answers.text(rc));
        } catch (Exception e) {
            j = null;
        }
        if (j == null || !j.isObject() || !j.path("username").isTextual() || !j.path("password").isTextual()) {
            throw new ApiError(400, "send {\"username\": \"...\", \"password\": \"...\"} as JSON");
        }
        String name = j.get("username").asText();
        String from = proxies.get().client(rc.request());
        logins.get().check(name, j.get("password").asText(), from, "session").onComplete(r -> {
            if (r.failed()) {
                rc.fail(r.cause());
                return;
            }
            Logins.Outcome o = r.result();
            if (o.user() == null) {
                if (o.retryAfter() > 0) {
                    rc.response().putHeader("Retry-After", Long.toString(o.retryAfter()));
                }
                Answers.fail(rc, o.status(), o.message(), List.of());
                return;
            }
            loggedIn(rc, o.user(), from);
        });
    }

    private void loggedIn(RoutingContext rc, ApiUsers.User user, String from) {
        sessions.get().login(rc, user).onComplete(r -> {
            if (r.failed()) {
                if (r.cause() instanceof ApiError err) {
                    Answers.fail(rc, err.status(), err.getMessage(), List.of());
                } else {
                    rc.fail(r.cause());
                }
                return;
            }
            Guard.AUDIT.info("user={} action=\"login\" via=session target=- result=ok status=200 from={}", user.name(),
                    from);
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("user", user.name());
            body.put("roles", new TreeSet<>(user.roles()));
            Answers.json(rc, 200, body);
        });
    }

    private void logout(RoutingContext rc) {
        ApiUsers.User u = rc.get("user");
        boolean onSession = rc.get(Guard.CSRF_CHECKED) != null; // logged in on the session, not with Basic
        (onSession ? sessions.get().logout(rc) : Future.<Void>succeededFuture()).onComplete(r -> {
            if (r.failed()) {
                rc.fail(r.cause());
                return;
            }
            Guard.AUDIT.info("user={} action=\"logout\" target=- result=ok status=200", u.name());
            Answers.json(rc, 200, Map.of("logged_out", u.name()));
        });
    }
}
