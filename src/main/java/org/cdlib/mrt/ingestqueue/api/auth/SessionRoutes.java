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
import org.cdlib.mrt.ingestqueue.api.http.ApiError;
import org.cdlib.mrt.ingestqueue.api.http.HttpApi;
import org.cdlib.mrt.ingestqueue.api.http.HttpApi.Access;

/**
 * The dashboard's session: who is logged in, logging in (a session cookie; its CSRF token comes
 * with the next request's answer, as the {@code XSRF-TOKEN} cookie) and logging out, on every
 * host at once; each login and logout has its line in the audit log.
 */
public final class SessionRoutes {

    public void register(HttpApi http) {
        // the sessions are asked for per request: the module sets them after these routes are declared
        http.add(GET, "/api/session", Access.USER,
                "Who is logged in (on a session, its XSRF-TOKEN cookie comes with the answer)", this::session);
        http.addNonBlocking(POST, "/api/login", Access.PUBLIC, "Log in: a session cookie for the dashboard", 4096,
                rc -> login(rc, http));
        http.addNonBlocking(POST, "/api/logout", Access.USER, "Log out: ends the session", 0, rc -> logout(rc,
                http.sessions()));
    }

    private void session(RoutingContext rc) {
        ApiUsers.User u = rc.get("user");
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("user", u.name());
        body.put("roles", new TreeSet<>(u.roles()));
        HttpApi.json(rc, 200, body);
    }

    /**
     * {@code POST /api/login} with {@code {"username": ..., "password": ...}} and the
     * {@code X-Requested-By} header (a form on another site can send neither JSON nor the header).
     */
    private void login(RoutingContext rc, HttpApi http) {
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
            j = HttpApi.JSON.readTree(HttpApi.text(rc));
        } catch (Exception e) {
            j = null;
        }
        if (j == null || !j.isObject() || !j.path("username").isTextual() || !j.path("password").isTextual()) {
            throw new ApiError(400, "send {\"username\": \"...\", \"password\": \"...\"} as JSON");
        }
        String name = j.get("username").asText();
        String from = http.proxies().client(rc.request());
        http.logins().check(name, j.get("password").asText(), from, "session").onComplete(r -> {
            if (r.failed()) {
                rc.fail(r.cause());
                return;
            }
            Logins.Outcome o = r.result();
            if (o.user() == null) {
                if (o.retryAfter() > 0) {
                    rc.response().putHeader("Retry-After", Long.toString(o.retryAfter()));
                }
                HttpApi.fail(rc, o.status(), o.message(), List.of());
                return;
            }
            loggedIn(rc, http, o.user(), from);
        });
    }

    private static void loggedIn(RoutingContext rc, HttpApi http, ApiUsers.User user, String from) {
        http.sessions().login(rc, user).onComplete(r -> {
            if (r.failed()) {
                if (r.cause() instanceof ApiError err) {
                    HttpApi.fail(rc, err.status(), err.getMessage(), List.of());
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
            HttpApi.json(rc, 200, body);
        });
    }

    private void logout(RoutingContext rc, Sessions sessions) {
        ApiUsers.User u = rc.get("user");
        boolean onSession = rc.get(Guard.CSRF_CHECKED) != null; // logged in on the session, not with Basic
        (onSession ? sessions.logout(rc) : Future.<Void>succeededFuture()).onComplete(r -> {
            if (r.failed()) {
                rc.fail(r.cause());
                return;
            }
            Guard.AUDIT.info("user={} action=\"logout\" target=- result=ok status=200", u.name());
            HttpApi.json(rc, 200, Map.of("logged_out", u.name()));
        });
    }
}
