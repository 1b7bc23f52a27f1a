package org.cdlib.mrt.ingestqueue.api.reads;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cdlib.mrt.ingestqueue.api.http.ApiError;
import org.cdlib.mrt.ingestqueue.api.http.InputChecks;
import org.cdlib.mrt.ingestqueue.history.HistoryHit;
import org.cdlib.mrt.ingestqueue.history.HistoryQuery;
import org.cdlib.mrt.ingestqueue.history.HistoryStore;
import org.cdlib.mrt.ingestqueue.history.HistoryUnavailableException;
import org.cdlib.mrt.ingestqueue.history.OpenIndex;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.batches.BatchNumbers;
import org.cdlib.mrt.ingestqueue.queue.errors.NotFoundException;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;

/**
 * Search by job id, batch id, local id, ARK, title, submitter and the date range work last changed
 * in (finished work: when it finished). An id is looked up directly, in ZooKeeper then in history.
 * Anything else is matched twice, each part bounded and paged on its own:
 * <ul>
 * <li>the open work the search index holds ({@link OpenIndex}, filled within seconds by its pass):
 * an ARK or a local id exactly, title words each beginning a word of the title; every hit read again
 * from ZooKeeper. Where the index has not reached (the newest seconds' batches, the jobs of a batch
 * not indexed whole, every batch while the index is new), ZooKeeper is scanned as below; so one
 * request finds any open job however old its batch.</li>
 * <li>the work ZooKeeper holds, by a bounded scan of the batches that exist (the number index,
 * {@link BatchNumbers}), newest first: each batch's submission (title, local id, ARK, file name)
 * and its jobs' identifiers and configuration nodes (ARK, local ids, the job's own title from its
 * manifest row). The queue keeps no index of local ids or titles, and one would be a second write
 * per transition; so one request reads at most {@link #SCAN_BATCHES} batches and {@link #SCAN_JOBS}
 * jobs, and answers {@code next} to go on from where it stopped (the dashboard's "search older").
 * A finished batch history already holds is left to history, so nothing is found twice.</li>
 * <li>finished work in history, by its indexes ({@link HistoryStore#search}): an ARK, a local id,
 * title words (each must be in the title), a submitter (as recorded), the finish date; up to
 * {@link HistoryStore#MAX_RESULTS} of each kind, newest first, the next page below the last.</li>
 * </ul>
 */
public final class Search {
    static final int SCAN_BATCHES = 200;
    /**
     * Jobs read per request: their identifiers and configurations (a title may be a job's own, from a manifest row).
     */
    public static final int SCAN_JOBS = 500;
    static final int MAX_RESULTS = 50;
    /** Walks of the number index one request makes, at most (each bounded: {@code BatchNumbers.WALK_BUCKETS}). */
    static final int MAX_WALKS = 5;
    /** The {@code next} link's mark that one part of the search has nothing more. */
    static final String DONE = "done";
    private final QueueStore store;
    private final HistoryStore history;

    public Search(QueueStore store) {
        this(store, null);
    }

    /** {@code history}: null when the service keeps none. */
    public Search(QueueStore store, HistoryStore history) {
        this.store = store;
        this.history = history;
    }

    /**
     * What a search asks: text (an id, local id, ARK or title words), a submitter, and a range of
     * when the work last changed, {@code from} inclusive, {@code to} exclusive (a date alone: its
     * whole day, in UTC). At least the text or one of the others.
     */
    public record Terms(String text, String submitter, Instant from, Instant to) {
        /** The query's parameters, each checked: a bad one is a 400 naming it. */
        public static Terms of(String q, String submitter, String from, String to) {
            String text = q == null || q.isBlank() ? null : q.strip();
            String who = submitter == null || submitter.isBlank() ? null : submitter.strip();
            Instant start = instant(from, "from", false);
            Instant end = instant(to, "to", true);
            if (text == null && who == null && start == null && end == null) {
                throw new ApiError(400, "q: give 1 to 256 characters (a job id, batch id, local id, ARK or title), "
                        + "or a submitter, from or to");
            }
            if (text != null && text.length() > 256) {
                throw new ApiError(400, "q: give 1 to 256 characters (a job id, batch id, local id, ARK or title)");
            }
            if (who != null && who.length() > 255) {
                throw new ApiError(400, "submitter: give at most 255 characters");
            }
            if (start != null && end != null && !start.isBefore(end)) {
                throw new ApiError(400, "from must be before to, got " + from + " and " + to);
            }
            return new Terms(text, who, start, end);
        }

        /** An ISO date (its day's start; {@code to}: the next day's, so the day is in) or an ISO instant. */
        private static Instant instant(String value, String name, boolean end) {
            if (value == null || value.isBlank()) {
                return null;
            }
            String v = value.strip();
            try {
                if (v.length() == 10) {
                    LocalDate day = LocalDate.parse(v);
                    return (end ? day.plusDays(1) : day).atStartOfDay(ZoneOffset.UTC).toInstant();
                }
                return Instant.parse(v);
            } catch (DateTimeParseException e) {
                throw new ApiError(400, name + " must be an ISO date like 2026-11-23 or an instant like "
                        + "2026-11-23T10:15:30Z, got '" + InputChecks.printable(v) + "'");
            }
        }

        boolean inRange(Instant at) {
            return (from == null || at != null && !at.isBefore(from)) && (to == null || at != null && at.isBefore(to));
        }

        /** The parameters again, for {@code next}. */
        String query() {
            StringBuilder q = new StringBuilder();
            add(q, "q", text);
            add(q, "submitter", submitter);
            add(q, "from", from == null ? null : from.toString());
            add(q, "to", to == null ? null : to.toString());
            return q.substring(1);
        }

        private static void add(StringBuilder q, String k, String v) {
            if (v != null) {
                q.append('&').append(k).append('=').append(URLEncoder.encode(v, StandardCharsets.UTF_8));
            }
        }
    }

    /** {@code before}: continue below this batch; {@code skip}: jobs of that batch already scanned. */
    public Map<String, Object> find(String query, String before, int skip) {
        return find(Terms.of(query, null, null, null), before, skip, null);
    }

    /**
     * {@code before}, {@code skip}: where the scan of ZooKeeper goes on ({@link #DONE}: it is over);
     * {@code historyBelow}: where history's pages go on, the last job id and batch id of the page
     * before, comma separated (a kind left out is over; {@link #DONE}: both; null: from the newest).
     */
    public Map<String, Object> find(Terms t, String before, int skip, String historyBelow) {
        Map<String, Object> answer = new LinkedHashMap<>();
        List<Map<String, Object>> results = new ArrayList<>();
        answer.put("results", results);
        String q = t.text();
        if (q != null && InputChecks.JOB_ID.matcher(q).matches()) {
            QueueOrHistory reads = new QueueOrHistory(store, history);
            try {
                var j = reads.job(q).item();
                results.add(hit("job", j.id(), j.batchId(), "job id", j.state().wire(), null));
            } catch (NotFoundException missing) {
                // nothing found
            }
            return answer;
        }
        if (q != null && InputChecks.BATCH_ID.matcher(q).matches()) {
            try {
                Batch b = new QueueOrHistory(store, history).batch(q).item();
                results.add(hit("batch", q, q, "batch id", b.state().wire(), b.submission().ercWhat()));
            } catch (NotFoundException missing) {
                // nothing found
            }
            return answer;
        }
        // the open work the index holds (the first request: its hits are the newest, up to the limit),
        // then ZooKeeper scanned only where the index has not reached (every batch while it is new)
        OpenWorkSearch open = new OpenWorkSearch(store, history);
        boolean indexed = q != null && open.indexed(t, before == null && historyBelow == null, results, answer);
        String liveNext = DONE.equals(before) ? DONE : open.scan(t, before, skip, indexed, results, answer);
        // the index's hits and the scan's in one order: newest batch first, a batch before its jobs
        results.sort(Comparator.comparing((Map<String, Object> r) -> String.valueOf(r.get("batch_id")))
                .reversed().thenComparing(r -> !"batch".equals(r.get("kind")))
                .thenComparing(r -> String.valueOf(r.get("id"))));
        String historyNext = DONE.equals(historyBelow) || history == null ? DONE
                : history(t, historyBelow, results, answer);
        Set<String> once = new HashSet<>();
        results.removeIf(r -> !once.add(r.get("kind") + " " + r.get("id"))); // the index and a scan may both find one
        if (!DONE.equals(liveNext) || !DONE.equals(historyNext)) {
            answer.put("next", "/api/search?" + t.query() + "&before=" + liveNext + "&history="
                    + URLEncoder.encode(historyNext, StandardCharsets.UTF_8));
        }
        return answer;
    }

    /** Finished work's hits from history's indexes; where its next page goes on, or {@link #DONE}. */
    private String history(Terms t, String below, List<Map<String, Object>> results, Map<String, Object> answer) {
        List<String> cursors = below == null ? Arrays.asList((String) null) : List.of(below.split(","));
        Set<String> shown = new HashSet<>();
        results.forEach(r -> shown.add(r.get("kind") + " " + r.get("id")));
        List<String> next = new ArrayList<>();
        try {
            for (String c : cursors) {
                if (c != null && !InputChecks.JOB_ID.matcher(c).matches()
                        && !InputChecks.BATCH_ID.matcher(c).matches()) {
                    throw new ApiError(400, "history must be job and batch ids, got '" + InputChecks.printable(below)
                            + "'");
                }
                List<HistoryHit> hits = history.search(new HistoryQuery(t.text(), t.submitter(), t.from(), t.to(), c,
                        HistoryStore.MAX_RESULTS));
                for (String kind : List.of("job", "batch")) {
                    List<HistoryHit> ofKind = hits.stream().filter(h -> h.kind().equals(kind)).toList();
                    if (ofKind.size() >= HistoryStore.MAX_RESULTS) {
                        next.add(ofKind.stream().map(HistoryHit::id).min(String::compareTo).orElseThrow());
                    }
                }
                for (HistoryHit h : hits) {
                    if (shown.add(h.kind() + " " + h.id())) {
                        results.add(hit(h.kind(), h.id(), h.batchId(), h.matched(), h.state(), h.title()));
                    }
                }
            }
        } catch (HistoryUnavailableException e) {
            // the open work is still found; the reader is told the finished is not
            answer.put("incomplete", "finished work in history was not searched: the history database cannot be "
                    + "reached now; try again shortly");
            return below == null ? DONE : below;
        }
        return next.isEmpty() ? DONE : String.join(",", next);
    }

    static Map<String, Object> hit(String kind, String id, String bid, String matched, String state,
            String title) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kind", kind);
        m.put("id", id);
        m.put("batch_id", bid);
        m.put("matched", matched);
        if (state != null) {
            m.put("state", state);
        }
        if (title != null) {
            m.put("title", title);
        }
        return m;
    }
}
