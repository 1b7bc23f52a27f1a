package org.cdlib.mrt.ingestqueue.api;

import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.POST;

import io.vertx.ext.web.RoutingContext;
import java.util.LinkedHashMap;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.api.HttpApi.Access;

/**
 * The dashboard's session: who is logged in, logging in (a session cookie and its CSRF token)
 * and logging out; each login and logout has its line in the audit log.
 */
final class SessionRoutes {

    void register(HttpApi http) {
        // the sessions are asked for per request: the module sets them after these routes are declared
        http.add(GET, "/api/session", Access.USER, "Who is logged in (and the session's CSRF token)", this::session);
        http.addNonBlocking(POST, "/api/login", Access.PUBLIC, "Log in: a session cookie for the dashboard", 4096,
                rc -> login(rc, http));
        http.add(POST, "/api/logout", Access.USER, "Log out: ends the session", rc -> logout(rc, http.sessions()));
    }

    private void session(RoutingContext rc) {
        ApiUsers.User u = rc.get("user");
        Sessions.Session s = rc.get("session");
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("user", u.name());
        body.put("roles", new java.util.TreeSet<>(u.roles()));
        if (s != null) {
            body.put("csrf_token", s.csrf());
        }
        HttpApi.json(rc, 200, body);
    }

    /**
     * {@code POST /api/login} with {@code {"username": ..., "password": ...}} and the
     * {@code X-Requested-By} header (a form on another site can send neither JSON nor the header).
     */
    private void login(RoutingContext rc, HttpApi http) {
        if (rc.request().getHeader(Guard.REQUESTED_BY) == null) {
            throw new ApiError(403, "log in from the dashboard's login page (the request lacks the " + Guard.REQUESTED_BY + " header)");
        }
        String site = rc.request().getHeader("Sec-Fetch-Site");
        if (site != null && !site.equals("same-origin") && !site.equals("none")) {
            throw new ApiError(403, "refused: a " + site + " login");
        }
        com.fasterxml.jackson.databind.JsonNode j;
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
                HttpApi.fail(rc, o.status(), o.message(), java.util.List.of());
                return;
            }
            try {
                loggedIn(rc, http, o.user(), from);
            } catch (ApiError err) {
                HttpApi.fail(rc, err.status(), err.getMessage(), java.util.List.of());
            }
        });
    }

    private static void loggedIn(RoutingContext rc, HttpApi http, ApiUsers.User user, String from) {
        Sessions sessions = http.sessions();
        Sessions.Session s = sessions.create(user);
        io.vertx.core.http.Cookie cookie = io.vertx.core.http.Cookie.cookie(Sessions.COOKIE, s.id()).setPath("/").setHttpOnly(true)
                .setSameSite(io.vertx.core.http.CookieSameSite.STRICT).setSecure(http.proxies().https(rc.request()))
                .setMaxAge(sessions.idle().toSeconds());
        rc.response().addCookie(cookie);
        Guard.AUDIT.info("user={} action=\"login\" via=session target=- result=ok status=200 from={}", user.name(), from);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("user", user.name());
        body.put("roles", new java.util.TreeSet<>(user.roles()));
        body.put("csrf_token", s.csrf());
        HttpApi.json(rc, 200, body);
    }

    private void logout(RoutingContext rc, Sessions sessions) {
        Sessions.Session s = rc.get("session");
        if (s != null) {
            sessions.end(s.id());
        }
        rc.response().addCookie(io.vertx.core.http.Cookie.cookie(Sessions.COOKIE, "").setPath("/").setHttpOnly(true)
                .setSameSite(io.vertx.core.http.CookieSameSite.STRICT).setMaxAge(0));
        ApiUsers.User u = rc.get("user");
        Guard.AUDIT.info("user={} action=\"logout\" target=- result=ok status=200", u.name());
        HttpApi.json(rc, 200, Map.of("logged_out", u.name()));
    }
}
