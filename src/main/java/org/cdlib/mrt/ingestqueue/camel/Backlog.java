package org.cdlib.mrt.ingestqueue.camel;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.cdlib.mrt.ingestqueue.queue.zk.StateView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The candidates a consumer works through, and which of them wait until when (one that stayed,
 * a damaged one, one whose lock vanished as it was watched). A busy state changes with every
 * transition; re-reading a long list each time would cost more than the work, so a backlog is
 * worked from the last list for up to a moment.
 */
final class Backlog {
    private static final Logger LOG = LoggerFactory.getLogger(Backlog.class);
    private static final long REFRESH_MS = 200;

    private final String name;
    /** The job or batch id a candidate names: the waits are kept by id, so an event clears them without a walk. */
    private final UnaryOperator<String> idOf;
    private final Map<String, Long> notBefore = new ConcurrentHashMap<>();
    /** Items this consumer moved on, left alone until then: no pass needs to wake for their end. */
    private final Map<String, Long> movedOn = new ConcurrentHashMap<>();
    private volatile long movedSweptAt;
    private volatile List<String> cached = new ArrayList<>();
    private volatile boolean stale = true;
    private volatile long fetchedAt;
    private volatile long refreshAt;
    /** When the earliest grace of a candidate passed over as just moved on ends (0: none): a pass is due then. */
    private volatile long graceEndsAt;
    private long relistAt;

    Backlog(String name, UnaryOperator<String> idOf) {
        this.name = name;
        this.idOf = idOf;
    }

    /** The state may have changed: the next pass lists it afresh (once the moment has passed). */
    void stale() {
        stale = true;
    }

    /** Whether the last listing still holds: the state has not changed since. */
    boolean current() {
        return !stale;
    }

    /** The candidate is not tried before {@code at} (ms since the epoch). */
    void notBefore(String candidate, long at) {
        notBefore.put(idOf.apply(candidate), at);
    }

    /**
     * The candidate has just left this state by this consumer's own move: its reference is gone,
     * but the view may list it until the deletion's event arrives. Left alone until {@code until}.
     */
    void movedOn(String candidate, long until) {
        movedOn.put(idOf.apply(candidate), until);
    }

    boolean waiting(String candidate) {
        String id = idOf.apply(candidate);
        return notBefore.containsKey(id) || recentlyMoved(id);
    }

    private boolean recentlyMoved(String id) {
        Long until = movedOn.get(id);
        if (until == null) {
            return false;
        }
        if (until > System.currentTimeMillis()) {
            // it may be back already (another writer, e.g. Merritt's Admin Tool requeuing it, with no event
            // of ours to clear this): look again when the grace ends
            long at = graceEndsAt;
            if (at == 0 || until < at) {
                graceEndsAt = until;
            }
            return true;
        }
        movedOn.remove(id, until);
        return false;
    }

    /** Whatever kept this job or batch waiting no longer holds. */
    void clear(String id) {
        notBefore.remove(id);
        movedOn.remove(id);
    }

    /** When the next pass is due: no later than {@code until}, earlier if a wait or a refresh ends first. */
    long dueBy(long until) {
        long due = until;
        for (long t : notBefore.values()) {
            due = Math.min(due, t);
        }
        if (refreshAt > 0) {
            due = Math.min(due, refreshAt);
            refreshAt = 0;
        }
        if (graceEndsAt > 0) {
            due = Math.min(due, graceEndsAt);
            graceEndsAt = 0;
            stale = true; // the pass then lists afresh: the candidate is either gone or back
        }
        return due;
    }

    /**
     * The candidates to go through now; a pass removes what it takes. {@code inHand} tells which
     * are being worked on; the view is listed afresh every {@code rescanMs}.
     */
    Iterator<String> next(StateView view, Supplier<List<String>> fresh, Predicate<String> inHand, long rescanMs) {
        long now = System.currentTimeMillis();
        notBefore.values().removeIf(t -> t <= now);
        if (now - movedSweptAt >= 1_000) { // once a second, not once a pass: a busy state moves hundreds a second
            movedSweptAt = now;
            movedOn.values().removeIf(t -> t <= now);
        }
        boolean exhausted = cached.stream().allMatch(id -> inHand.test(id) || waiting(id));
        if (now >= relistAt) {
            // the safety net: the view is kept by events; a listing now and then catches anything missed
            relistAt = now + rescanMs;
            view.relist();
        }
        if (stale && (exhausted || now - fetchedAt >= REFRESH_MS)) {
            stale = false;
            fetchedAt = now;
            cached = new ArrayList<>(fresh.get());
            LOG.debug("zkqueue {}: candidates {}", name, cached);
        } else if (stale) {
            refreshAt = fetchedAt + REFRESH_MS; // come back for the fresh list once the moment has passed
        }
        return cached.iterator();
    }
}
