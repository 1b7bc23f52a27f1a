package org.cdlib.mrt.ingestqueue.api;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The dashboard's logins: a random session id in an {@code HttpOnly; SameSite=Strict} cookie
 * and a CSRF token the page sends back as {@code X-CSRF-Token} on every state-changing request.
 * Sessions live in this host's memory and end after {@code ingest.api.session-idle} without use
 * (or at logout, or at a restart).
 */
final class Sessions {
    static final String COOKIE = "iq_session";
    static final String CSRF_HEADER = "X-CSRF-Token";
    private static final SecureRandom RANDOM = new SecureRandom();
    static final int MAX_SESSIONS = 10_000;
    static final int MAX_PER_USER = 20;

    record Session(String id, ApiUsers.User user, String csrf, Instant created) {
    }

    private record Held(Session session, Instant lastUse) {
    }

    private final Map<String, Held> sessions = new ConcurrentHashMap<>();
    private final Duration idle;
    private final Clock clock;

    Sessions(Duration idle, Clock clock) {
        this.idle = idle;
        this.clock = clock;
    }

    Duration idle() {
        return idle;
    }

    /**
     * A new session for {@code user}. A user holds at most {@link #MAX_PER_USER} (their least
     * recently used goes); when all {@link #MAX_SESSIONS} are taken by others, the login is refused
     * rather than anyone else's session ended.
     */
    synchronized Session create(ApiUsers.User user) {
        Instant now = clock.instant();
        sessions.entrySet().removeIf(e -> e.getValue().lastUse().plus(idle).isBefore(now));
        List<Map.Entry<String, Held>> own = sessions.entrySet().stream()
                .filter(e -> e.getValue().session().user().name().equals(user.name()))
                .sorted(java.util.Comparator.comparing(e -> e.getValue().lastUse())).toList();
        for (int i = 0; i <= own.size() - MAX_PER_USER; i++) {
            sessions.remove(own.get(i).getKey());
        }
        if (sessions.size() >= MAX_SESSIONS) {
            throw new ApiError(503, "all " + MAX_SESSIONS + " dashboard sessions are in use; log in again later (or use Basic authentication)");
        }
        Session s = new Session(token(), user, token(), now);
        sessions.put(s.id(), new Held(s, now));
        return s;
    }

    Optional<Session> find(String id) {
        if (id == null) {
            return Optional.empty();
        }
        Held h = sessions.get(id);
        Instant now = clock.instant();
        if (h == null) {
            return Optional.empty();
        }
        if (h.lastUse().plus(idle).isBefore(now)) {
            sessions.remove(id);
            return Optional.empty();
        }
        sessions.put(id, new Held(h.session(), now));
        return Optional.of(h.session());
    }

    /** Whether the session is still open, without counting this as a use (a live page alone does not keep it open). */
    boolean isOpen(String id) {
        Held h = id == null ? null : sessions.get(id);
        return h != null && !h.lastUse().plus(idle).isBefore(clock.instant());
    }

    void end(String id) {
        if (id != null) {
            sessions.remove(id);
        }
    }

    private static String token() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }
}
