package org.cdlib.mrt.ingestqueue.api.reads;

import io.vertx.ext.web.RoutingContext;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.api.auth.ApiUsers;
import org.cdlib.mrt.ingestqueue.api.http.ApiError;
import org.cdlib.mrt.ingestqueue.api.http.InputChecks;
import org.cdlib.mrt.ingestqueue.figures.OpenStates;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;

/**
 * The batch list's filters besides the state: profile, submitter, and a submission date range
 * ({@code from}, {@code to}: ISO dates or instants, compared as text on the submission's ISO-8601
 * timestamp), and for a depositor their own. They apply to the batches the page's bounded walk
 * reads; they never widen it.
 */
public record BatchFilters(String profile, String submitter, String from, String to, String owner) {

    /** The query's filters; a depositor (a submitter who is not an operator) lists their own batches only. */
    static BatchFilters of(RoutingContext rc) {
        ApiUsers.User u = rc.get("user");
        return new BatchFilters(blank(rc.queryParams().get("profile")), blank(rc.queryParams().get("submitter")),
                date(rc.queryParams().get("from"), "from"), date(rc.queryParams().get("to"), "to"),
                isDepositor(u) ? u.name() : null);
    }

    public static boolean isDepositor(ApiUsers.User u) {
        return u != null && u.has("submitter") && !u.has("admin") && !u.has("poster");
    }

    /** The batch's submitter is the user, or (Merritt's form) {@code user/Display Name}. */
    public static boolean ownedBy(Batch b, String user) {
        return ownedBy(b.submission().submitter(), user);
    }

    public static boolean ownedBy(String submitter, String user) {
        return submitter != null && (submitter.equals(user) || submitter.startsWith(user + "/"));
    }

    private static String blank(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }

    private static String date(String s, String name) {
        s = blank(s);
        if (s != null && !s.matches("\\d{4}-\\d{2}-\\d{2}([T ][0-9:.]+Z?)?")) {
            throw new ApiError(400, name + " must be a date like 2026-11-23 (or an ISO-8601 instant), got '"
                    + InputChecks.printable(s) + "'");
        }
        return s;
    }

    boolean matches(Batch b) {
        var s = b.submission();
        if (owner != null && !ownedBy(b, owner)) {
            return false;
        }
        if (profile != null && !profile.equals(s.profileName())) {
            return false;
        }
        if (submitter != null && (s.submitter() == null || !s.submitter().toLowerCase()
                .contains(submitter.toLowerCase()))) {
            return false;
        }
        String when = s.submitted() == null ? "" : s.submitted();
        if (from != null && when.compareTo(from) < 0) {
            return false;
        }
        // a date alone means the whole day
        return to == null || when.compareTo(to.length() == 10 ? to + "T99" : to) <= 0;
    }

    String query() {
        StringBuilder q = new StringBuilder();
        add(q, "profile", profile);
        add(q, "submitter", submitter);
        add(q, "from", from);
        add(q, "to", to);
        return q.toString();
    }

    private static void add(StringBuilder q, String k, String v) {
        if (v != null) {
            q.append('&').append(k).append('=').append(URLEncoder.encode(v, StandardCharsets.UTF_8));
        }
    }

    /**
     * The states of an open batch's jobs for a list row (so held jobs show), read from their status
     * nodes; the rows of one page together read at most {@link #BUDGET} statuses, the rest show
     * their completed / failed / open counts only.
     */
    static final class OpenStates {
        static final int BUDGET = 500;
        private final QueueStore store;
        private int used;

        OpenStates(QueueStore store) {
            this.store = store;
        }

        Map<JobState, Integer> of(Batch b) {
            int open = b.count(BatchRef.PROCESSING);
            if (open == 0 || used + open > BUDGET) {
                return null;
            }
            used += open;
            Map<JobState, Integer> states = new EnumMap<>(JobState.class);
            states.putAll(store.jobs().states(store.batches().jobs(b.id(), BatchRef.PROCESSING)));
            return states;
        }
    }
}
