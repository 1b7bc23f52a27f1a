package org.cdlib.mrt.ingestqueue.api.auth;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.SecurityPolicyHandler;
import java.util.List;
import org.cdlib.mrt.ingestqueue.api.http.Access;
import org.cdlib.mrt.ingestqueue.api.http.Answers;
import org.cdlib.mrt.ingestqueue.api.http.ApiError;
import org.cdlib.mrt.ingestqueue.api.http.Endpoint;
import org.cdlib.mrt.ingestqueue.api.http.InputChecks;
import org.cdlib.mrt.ingestqueue.api.http.Proxies;
import org.cdlib.mrt.ingestqueue.objects.FileUrlSigner;
import org.cdlib.mrt.ingestqueue.text.Text;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may call a route: the user of the Basic credentials or of the session cookie, the route's
 * role, the CSRF check (Vert.x Web's, on the session's requests) and the cross-site check (on
 * Basic ones) of a request that changes something, the signed URL of a working file; a refusal is
 * answered before any of the body is read, and admin actions are audited. Basic authentication
 * stays here rather than in Vert.x's {@code BasicAuthHandler}: that one would answer the
 * dashboard's own requests with the browser's login dialog, has no 429, and runs after the body
 * is read (docs/DESIGN.md).
 */
public final class Guard {
    /** A header the dashboard sends with every request (a page elsewhere cannot without the API's consent). */
    static final String REQUESTED_BY = "X-Requested-By";
    public static final Logger AUDIT = LoggerFactory.getLogger("ingestqueue.audit");
    /**
     * A refused body up to this size is left to Vert.x (nothing of it is kept), so that any client reads the answer
     * cleanly.
     */
    static final long DISCARD_BYTES = 1024 * 1024;

    /** Set on a request whose CSRF token {@link Sessions#csrf} checks: a 403 then is that check's. */
    public static final String CSRF_CHECKED = "csrfChecked";
    static final String CSRF_REFUSAL = "refused: a request on the dashboard's session must carry its "
            + Sessions.CSRF_HEADER
            + " header, the value of its " + Sessions.CSRF_COOKIE
            + " cookie (reload the dashboard; scripts use Basic authentication)";

    private final Logins logins;
    private final ApiUsers users;
    private final Sessions sessions;
    private final FileUrlSigner signer;
    private final Proxies proxies;

    public Guard(Logins logins, ApiUsers users, Sessions sessions, FileUrlSigner signer, Proxies proxies) {
        this.logins = logins;
        this.users = users;
        this.sessions = sessions;
        this.signer = signer;
        this.proxies = proxies;
    }

    /** The guard runs before Vert.x may read a body (a security policy handler comes before body handlers). */
    public SecurityPolicyHandler of(Endpoint endpoint) {
        return rc -> guard(rc, endpoint);
    }

    private void guard(RoutingContext rc, Endpoint e) {
        if (e.access() == Access.PUBLIC) {
            rc.next();
            return;
        }
        String authorization = rc.request().getHeader("Authorization");
        if (authorization == null) {
            ApiUsers.User user = sessions.user(rc, users);
            decide(rc, e, user, user != null, false);
            return;
        }
        var credentials = ApiUsers.basic(authorization);
        if (credentials.isEmpty()) {
            AUDIT.info(
                    "user=- action=\"login\" via=basic target=- result=refused status=401 from={} reason=\"not Basic "
                    + "credentials\"",
                    proxies.client(rc.request()));
            decide(rc, e, null, false, true);
            return;
        }
        // the password may need hashing, off this event loop: the body waits unread meanwhile
        boolean paused = !rc.request().isEnded();
        if (paused) {
            rc.request().pause();
        }
        logins.check(credentials.get().name(), credentials.get().password(), proxies.client(rc.request()),
                "basic").onComplete(r -> {
            if (paused) {
                rc.request().resume();
            }
            if (r.failed()) {
                rc.fail(r.cause());
            } else if (r.result().status() == 429) {
                rc.response().putHeader("Retry-After", Long.toString(r.result().retryAfter()));
                refuse(rc, 429, r.result().message());
            } else {
                decide(rc, e, r.result().user(), false, true);
            }
        });
    }

    /** With the user settled (null: none), whether the route may be called. */
    private void decide(RoutingContext rc, Endpoint e, ApiUsers.User user, boolean onSession, boolean basic) {
        Access access = e.access();
        if (access == Access.STORAGE && user == null) {
            String path;
            try {
                path = InputChecks.filePath(rc);
            } catch (ApiError bad) {
                refuse(rc, bad.status(), bad.getMessage());
                return;
            }
            String why = signer == null ? "working files are not served without credentials here"
                    : signer.verify(rc.pathParam("bid"), rc.pathParam("jid"), path,
                            rc.queryParams().get("expires"), rc.queryParams().get("signature"),
                            rc.queryParams().get("lease"));
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
            if (rc.request().getHeader(REQUESTED_BY) == null && (accept == null || !accept.contains(
                    "text/event-stream"))) {
                rc.response().putHeader("WWW-Authenticate", "Basic realm=\"ingest-queue\", charset=\"UTF-8\"");
            }
            refuse(rc, 401, basic ? "the user name or password is wrong"
                    : "log in: this resource needs a user of ingest.api.users (Basic authentication, or the "
                    + "dashboard's login at /login.html)");
            return;
        }
        if (isStateChanging(rc)) {
            // a missing token is refused here, before any body is read; a wrong one by the CSRF handler below
            String refused = onSession ? (rc.request().getHeader(Sessions.CSRF_HEADER) == null ? CSRF_REFUSAL : null)
                    : crossSiteRefusal(rc, proxies);
            if (refused != null) {
                audit(rc, user, e, 403, refused);
                refuse(rc, 403, refused);
                return;
            }
        }
        String role = switch (access) {
            case ADMIN -> "admin";
            case SUBMITTER -> user.has("poster") ? "poster" : "submitter";
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
        if (access == Access.ADMIN) {
            ApiUsers.User who = user;
            rc.addEndHandler(done -> audit(rc, who, e, rc.response().getStatusCode(), null));
        }
        if (onSession) {
            rc.put(CSRF_CHECKED, true);
            sessions.csrf(rc);
        } else {
            rc.next();
        }
    }

    /** The name of the user the guard let in ({@code anonymous} on a public route). */
    public static String user(RoutingContext rc) {
        ApiUsers.User u = rc.get("user");
        return u == null ? "anonymous" : u.name();
    }

    /** The CSRF handler's refusal (a token that is not the session's, or too old), with its reason. */
    public static void csrfRefused(RoutingContext rc) {
        String why = rc.failure() == null ? null : rc.failure().getMessage();
        refuse(rc, 403, CSRF_REFUSAL + (why == null ? "" : ": " + why));
    }

    /**
     * Answers a refusal without keeping any of the request's body: a small body (up to
     * {@link #DISCARD_BYTES}) is dropped; of a larger one nothing more is read, and
     * the connection closes once the answer is out (an HTTP/2 stream is reset instead).
     */
    static void refuse(RoutingContext rc, int status, String message) {
        String length = rc.request().getHeader("Content-Length");
        long declared = length != null && length.strip().matches("\\d{1,18}") ? Long.parseLong(length.strip()) : -1;
        boolean chunked = rc.request().getHeader("Transfer-Encoding") != null;
        if (rc.request().isEnded() || declared <= 0 && !chunked) {
            Answers.fail(rc, status, message, List.of());
            return;
        }
        if (rc.request().version() == HttpVersion.HTTP_2) {
            Answers.fail(rc, status, message, List.of());
            rc.response().reset(0x8); // CANCEL: no more of this stream's body
            return;
        }
        if (declared >= 0 && declared <= DISCARD_BYTES) {
            Answers.fail(rc, status, message, List.of()); // Vert.x drops the unread rest of a small body
            return;
        }
        rc.response().putHeader("Connection", "close");
        rc.response().endHandler(v -> rc.request().connection().close());
        Answers.fail(rc, status, message, List.of());
    }

    private static boolean isStateChanging(RoutingContext rc) {
        HttpMethod m = rc.request().method();
        return !(m == HttpMethod.GET || m == HttpMethod.HEAD || m == HttpMethod.OPTIONS);
    }

    /**
     * A request with Basic credentials that a browser sent from another site (a browser may
     * attach cached credentials to a form another page posts) is refused: browsers name the
     * page's origin in {@code Origin} and {@code Sec-Fetch-Site}; curl and Merritt clients send neither.
     */
    private static String crossSiteRefusal(RoutingContext rc, Proxies proxies) {
        String site = rc.request().getHeader("Sec-Fetch-Site");
        if (site != null && !site.equals("same-origin") && !site.equals("none")) {
            return "refused: a " + site
                    + " request (Sec-Fetch-Site) may not change anything; use the dashboard or a script";
        }
        String origin = rc.request().getHeader("Origin");
        if (origin != null) {
            String hostHeader = rc.request().getHeader("Host");
            String scheme = proxies.https(rc.request()) ? "https" : "http";
            if (hostHeader == null || !origin.equalsIgnoreCase(scheme + "://" + hostHeader)) {
                return "refused: a request from " + origin + " (Origin) may not change anything here";
            }
        }
        return null;
    }

    private static void audit(RoutingContext rc, ApiUsers.User user, Endpoint e, int status, String note) {
        StringBuilder target = new StringBuilder();
        // a path's values are the client's: quoted when they hold more than an id's characters, so no key=value can be
        // forged
        rc.pathParams().forEach((k, v) -> target.append(target.length() == 0 ? "" : ",").append(k).append('=')
                .append(v.matches("[\\w.:/-]*") ? v : Text.quoted(v)));
        String result = status / 100 == 2 ? "ok" : "refused";
        AUDIT.info("user={} action=\"{} {}\" target={} result={} status={}{}", user == null ? "-" : user.name(),
                e.method(),
                e.path(), target.length() == 0 ? "-" : target, result, status, note == null ? "" : " reason=\"" + note
                + "\"");
    }
}
