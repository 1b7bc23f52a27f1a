package org.cdlib.mrt.ingestqueue.api.submissions;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How many bytes each user may upload within a rolling window
 * ({@code ingest.api.max-upload-per-user} per {@code ingest.api.upload-window}; 0: no limit).
 * Counted by this host, in memory, as bodies are received, for the user an upload is for: the
 * user who sent it, or, for a poster (Merritt's UI, one account posting for its users), the user
 * its form names in {@code submitter} ({@link #account}): each of those users has an allowance
 * of their own, and the poster's account none to share among them.
 */
public final class UploadQuota {
    private record Upload(Instant at, long bytes) {
    }

    private final long limit;
    private final Duration window;
    private final Clock clock;
    private final Map<String, Deque<Upload>> byUser = new ConcurrentHashMap<>();

    public UploadQuota(long limit, Duration window, Clock clock) {
        this.limit = limit;
        this.window = window;
        this.clock = clock;
    }

    public long limit() {
        return limit;
    }

    public Duration window() {
        return window;
    }

    /** The bytes {@code user} may still upload now ({@link Long#MAX_VALUE} without a limit). */
    public long left(String user) {
        if (limit <= 0) {
            return Long.MAX_VALUE;
        }
        Deque<Upload> d = byUser.get(user);
        if (d == null) {
            return limit;
        }
        synchronized (d) {
            Instant since = clock.instant().minus(window);
            while (!d.isEmpty() && d.peekFirst().at().isBefore(since)) {
                d.pollFirst();
            }
            long used = d.stream().mapToLong(Upload::bytes).sum();
            return Math.max(0, limit - used);
        }
    }

    /**
     * The account a submitter names: Merritt's {@code user/Display Name} is {@code user}'s; blank
     * is {@code poster}'s own.
     */
    public static String account(String named, String poster) {
        if (named == null || named.isBlank()) {
            return poster;
        }
        String n = named.strip();
        int slash = n.indexOf('/');
        return slash > 0 ? n.substring(0, slash) : n;
    }

    /** Counts {@code bytes} for {@code user} if they fit in what is left; false (nothing counted) if not. */
    public boolean take(String user, long bytes) {
        if (limit <= 0 || bytes <= 0) {
            return true;
        }
        Deque<Upload> d = byUser.computeIfAbsent(user, u -> new ArrayDeque<>());
        synchronized (d) {
            if (left(user) < bytes) {
                return false;
            }
            d.addLast(new Upload(clock.instant(), bytes));
            return true;
        }
    }

    public void add(String user, long bytes) {
        if (limit <= 0 || bytes <= 0) {
            return;
        }
        Deque<Upload> d = byUser.computeIfAbsent(user, u -> new ArrayDeque<>());
        synchronized (d) {
            d.addLast(new Upload(clock.instant(), bytes));
        }
    }
}
