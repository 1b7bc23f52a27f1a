package org.cdlib.mrt.ingestqueue.api.dashboard;

import io.vertx.core.http.HttpServerResponse;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.cdlib.mrt.ingestqueue.api.reads.BatchOwners;

/**
 * The pages connected to the live feed ({@link LiveFeed}): each greeted once the feed's watches
 * are in place, then sent the changes, scoped to a depositor's own ids for a depositor's page, and
 * ended when its login ends. A page that does not read is skipped, not buffered without end.
 */
final class FeedPages {
    static final long GREET_MS = 5_000;
    private final int max;
    private final BatchOwners owners;
    /** Pages connected and not yet greeted, with when they connected: they get no change before their greeting. */
    private final Map<HttpServerResponse, Long> greeting = new LinkedHashMap<>();
    private final List<HttpServerResponse> pages = new CopyOnWriteArrayList<>();
    /** Whether each page's login still holds (a session ends at logout or when idle): its stream ends with it. */
    private final Map<HttpServerResponse, BooleanSupplier> logins = new ConcurrentHashMap<>();
    /** A depositor's page: the user whose batches' and jobs' ids alone it carries (operators' pages are not here). */
    private final Map<HttpServerResponse, String> depositors = new ConcurrentHashMap<>();

    FeedPages(int max, BatchOwners owners) {
        this.max = max;
        this.owners = owners;
    }

    /** A page connects; false when there are {@code max} already. */
    synchronized boolean add(HttpServerResponse r, BooleanSupplier loggedIn, String depositor) {
        if (pages.size() + greeting.size() >= max) {
            return false;
        }
        logins.put(r, loggedIn);
        if (depositor != null) {
            depositors.put(r, depositor);
        }
        r.setChunked(true).putHeader("Content-Type", "text/event-stream; charset=UTF-8").putHeader("X-Accel-Buffering",
                "no");
        r.closeHandler(v -> drop(r));
        r.exceptionHandler(t -> drop(r));
        greeting.put(r, System.currentTimeMillis());
        return true;
    }

    /**
     * The first message tells a page it is live and to load what it shows: sent once the watches are
     * in place ({@code live}), or, ZooKeeper being away, after {@link #GREET_MS} (the page reloads
     * when they are). True when a page was greeted.
     */
    synchronized boolean greet(boolean live, long now) {
        int waiting = greeting.size();
        greeting.entrySet().removeIf(e -> {
            if (live || now - e.getValue() > GREET_MS) {
                pages.add(e.getKey());
                write(e.getKey(), "retry: 2000\nevent: hello\ndata: {}\n\n");
                return true;
            }
            return false;
        });
        return greeting.size() < waiting;
    }

    boolean isEmpty() {
        return count() == 0;
    }

    synchronized int count() {
        return pages.size() + greeting.size();
    }

    /** {@code message}: what a page is sent, given the depositor it is scoped to (null: an operator's page). */
    void send(Function<String, String> message) {
        Map<String, String> own = new HashMap<>(); // one message per depositor, however many pages they have open
        for (HttpServerResponse page : pages) {
            String user = depositors.get(page);
            String data = own.computeIfAbsent(user == null ? "" : user, u -> message.apply(user));
            if (data != null) {
                write(page, data);
            }
        }
    }

    /** The message as a depositor may see it: only their own batches' and jobs' ids. */
    @SuppressWarnings("unchecked")
    Map<String, Object> scoped(Map<String, Object> msg, String user) {
        Map<String, Object> m = new LinkedHashMap<>(msg);
        m.put("batches_changed", ((List<String>) msg.get("batches_changed")).stream().filter(b -> owners.owns(user,
                b)).toList());
        m.put("jobs_changed", ((List<String>) msg.get("jobs_changed")).stream().filter(j -> owners.ownsJob(user,
                j)).toList());
        return m;
    }

    private void write(HttpServerResponse c, String data) {
        try {
            if (c.closed() || c.ended()) {
                drop(c);
            } else if (!logins.getOrDefault(c, () -> true).getAsBoolean()) {
                drop(c);
                c.end("event: logged-out\ndata: {}\n\n");
            } else if (!c.writeQueueFull()) {
                c.write(data);
            }
        } catch (RuntimeException e) {
            drop(c);
        }
    }

    private void drop(HttpServerResponse c) {
        pages.remove(c);
        logins.remove(c);
        depositors.remove(c);
        synchronized (this) {
            greeting.remove(c);
        }
    }

    synchronized void endAll() {
        for (HttpServerResponse c : pages) {
            try {
                c.end();
            } catch (RuntimeException e) {
                // already gone
            }
        }
        pages.clear();
        greeting.clear();
    }
}
