package org.cdlib.mrt.ingestqueue.api.reads;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
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
import org.cdlib.mrt.ingestqueue.queue.errors.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.errors.NotFoundException;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.model.QueueTime;

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
        boolean indexed = q != null && indexed(t, before == null && historyBelow == null, results, answer);
        String liveNext = DONE.equals(before) ? DONE : scan(t, before, skip, indexed, results, answer);
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

    /** The scan of what ZooKeeper holds; where the next request goes on ({@code before[&skip=]}), or {@link #DONE}. */
    private String scan(Terms t, String before, int skip, boolean indexed, List<Map<String, Object>> results,
            Map<String, Object> answer) {
        String needle = t.text() == null ? null : t.text().toLowerCase(Locale.ROOT);
        try {
            // the numbers drawn since the intake's last pass (usually none): every batch made is found
            store.adoptMerrittBatches();
        } catch (QueueException e) {
            // the timer's pass takes them within seconds; the search covers what the number index holds
        }
        long top = store.batches().newestNumber();
        if (before != null) {
            long n = QueuePaths.batchNumber(before);
            if (n < 0) {
                throw new ApiError(400, "before must be a batch id, got '" + InputChecks.printable(before) + "'");
            }
            top = Math.min(top, skip > 0 ? n : n - 1);
        }
        long bottom = store.batches().oldestNumber();
        int batches = 0;
        int jobs = 0;
        String next = null;
        int nextSkip = 0;
        // the batches that exist, newest first, from the number index: never a number that was not a batch
        BatchNumbers.Page page = new BatchNumbers.Page(List.of(), top);
        Set<String> kept = Set.of(); // of the page's batches, those history holds whole
        Set<String> seen = Set.of(); // of the page's batches, those the search index holds
        int at = 0; // of page.bids()
        for (int walks = 0; ; ) {
            if (at >= page.bids().size()) {
                if (page.nextTop() < 0) {
                    break;
                }
                if (walks++ == MAX_WALKS) {
                    // a long run of empty buckets: the next request goes on
                    next = QueuePaths.batchId(page.nextTop() + 1);
                    break;
                }
                page = store.batches().numbers().newest(page.nextTop(), bottom, indexed ? INDEXED_PAGE : 50);
                kept = kept(page.bids());
                seen = indexed ? seen(page.bids()) : Set.of();
                at = 0;
                continue;
            }
            String bid = page.bids().get(at++);
            if (seen.contains(bid)) {
                continue; // the index's: found above
            }
            if (batches >= SCAN_BATCHES || jobs >= SCAN_JOBS || results.size() >= MAX_RESULTS) {
                // "before" the last batch read in full: this one comes next
                next = QueuePaths.batchId(QueuePaths.batchNumber(bid) + 1);
                break;
            }
            int skipped = before != null && bid.equals(before) ? skip : 0;
            batches++;
            Batch b;
            try {
                b = store.batches().load(bid);
            } catch (NotFoundException gone) {
                store.batches().numbers().forgetGone(List.of(bid)); // removed behind our back
                continue;
            } catch (CorruptNodeException damaged) {
                continue; // fsck names it
            }
            if (kept.contains(bid) && !QueueViews.OPEN_BATCH_STATES.contains(b.state())
                    || !filtersMatch(t, b)) {
                continue; // finished and in history: its search finds it there
            }
            if (skipped == 0) {
                String why = needle == null ? (t.submitter() != null ? "submitter" : "date")
                        : batchMatch(b.submission(), needle);
                if (why != null) {
                    results.add(hit("batch", bid, bid, why, b.state().wire(), b.submission().ercWhat()));
                }
            }
            List<String> ids = needle == null ? List.of() : b.jobIds();
            int j = skipped;
            // whole chunks: the hits of the last chunk may take the results a little past MAX_RESULTS
            while (j < ids.size() && jobs < SCAN_JOBS && results.size() < MAX_RESULTS) {
                List<String> chunk = ids.subList(j, Math.min(ids.size(), j + Math.min(50, SCAN_JOBS - jobs)));
                j += chunk.size();
                jobs += chunk.size();
                matchJobs(chunk, b, needle, results);
            }
            if (j < ids.size()) {
                next = bid;
                nextSkip = j;
                break;
            }
        }
        answer.put("scanned", Map.of("batches", batches, "jobs", jobs));
        return next == null ? DONE : next + (nextSkip > 0 ? "&skip=" + nextSkip : "");
    }

    /**
     * Open work found by the index ({@link OpenIndex}), on the first page ({@code hits}): each hit read
     * again from ZooKeeper (a row is a cache: gone or changed work is not shown), then the jobs of
     * batches the index has not reached whole, scanned. True when the index could be read: the scan
     * then passes over the batches it holds.
     */
    private boolean indexed(Terms t, boolean hits, List<Map<String, Object>> results, Map<String, Object> answer) {
        if (history == null) {
            return false;
        }
        try {
            OpenIndex index = history.open();
            if (hits) {
                Map<String, Batch> batches = new HashMap<>();
                for (HistoryHit h : index.search(t.text(), MAX_RESULTS)) {
                    Map<String, Object> hit = checked(h, t, batches);
                    if (hit != null) {
                        results.add(hit);
                    }
                }
                tails(t, index.toLookAt(false, TAILS), results, answer);
            }
            return true;
        } catch (HistoryUnavailableException e) {
            return false;
        }
    }

    /** Of these batches, those the search index holds; none when it cannot be read (they are scanned then). */
    private Set<String> seen(List<String> bids) {
        try {
            return history.open().seen(bids);
        } catch (HistoryUnavailableException e) {
            return Set.of();
        }
    }

    /** Batches of the number index one walk of an indexed search reads (the index's are passed over unread). */
    static final int INDEXED_PAGE = 1_000;

    /** Batches not indexed whole whose rest one search scans, at most. */
    static final int TAILS = 50;

    /** An index hit as ZooKeeper has it now; null when it is gone, finished (history's) or the filters leave it out. */
    private Map<String, Object> checked(HistoryHit h, Terms t, Map<String, Batch> batches) {
        try {
            Batch b = batches.computeIfAbsent(h.batchId(), bid -> store.batches().load(bid));
            if (!QueueViews.OPEN_BATCH_STATES.contains(b.state()) || !filtersMatch(t, b)) {
                return null;
            }
            if (h.kind().equals("batch")) {
                return hit("batch", b.id(), b.id(), h.matched(), b.state().wire(), b.submission().ercWhat());
            }
            var job = store.jobs().find(h.id());
            return job.map(j -> hit("job", j.id(), b.id(), h.matched(), j.state().wire(),
                    h.title() != null ? h.title() : b.submission().ercWhat())).orElse(null);
        } catch (NotFoundException | CorruptNodeException gone) {
            return null;
        }
    }

    /** The jobs of batches not indexed whole, past what the index holds: scanned, within {@link #SCAN_JOBS}. */
    private void tails(Terms t, List<OpenIndex.Progress> partial, List<Map<String, Object>> results,
            Map<String, Object> answer) {
        String needle = t.text().toLowerCase(Locale.ROOT);
        int jobs = 0;
        for (OpenIndex.Progress p : partial) {
            Batch b;
            try {
                b = store.batches().load(p.batchId());
            } catch (NotFoundException | CorruptNodeException gone) {
                continue;
            }
            if (!filtersMatch(t, b)) {
                continue;
            }
            List<String> ids = new ArrayList<>(b.jobIds());
            ids.addAll(store.batches().othersJobs(b));
            for (int j = Math.min(p.indexed(), ids.size()); j < ids.size(); ) {
                if (jobs >= SCAN_JOBS) {
                    answer.put("incomplete", "the newest jobs of batch " + p.batchId() + " are still being indexed "
                            + "for search; search again in a few seconds to see them all");
                    return;
                }
                List<String> chunk = ids.subList(j, Math.min(ids.size(), j + 50));
                j += chunk.size();
                jobs += chunk.size();
                matchJobs(chunk, b, needle, results);
            }
        }
        if (partial.size() == TAILS) {
            answer.put("incomplete", "more than " + TAILS + " batches are still being indexed for search; search "
                    + "again in a few seconds to see them all");
        }
    }

    /** The jobs of a chunk whose ARK, local id or own title holds the needle, as hits. */
    private void matchJobs(List<String> chunk, Batch b, String needle, List<Map<String, Object>> results) {
        Map<String, Identifiers> idents = store.jobs().identifiers(chunk);
        Map<String, JobConfiguration> configs = store.jobs().configurations(chunk);
        for (String jid : chunk) {
            JobConfiguration c = configs.get(jid);
            String why = jobMatch(idents.get(jid), c, needle);
            if (why != null && results.stream().noneMatch(r -> jid.equals(r.get("id")))) {
                results.add(hit("job", jid, b.id(), why, null, c != null && c.ercWhat() != null ? c.ercWhat()
                        : b.submission().ercWhat()));
            }
        }
    }

    /** Of these batches, those history holds whole; none when there is no history or it cannot be reached. */
    private Set<String> kept(List<String> bids) {
        if (history == null || bids.isEmpty()) {
            return Set.of();
        }
        try {
            return history.held(bids);
        } catch (HistoryUnavailableException e) {
            return Set.of(); // found here then: ZooKeeper still holds it
        }
    }

    /** The submitter as recorded (as history's index has it) and when the batch last changed. */
    private static boolean filtersMatch(Terms t, Batch b) {
        if (t.submitter() != null && (b.submission() == null || !t.submitter().equals(b.submission().submitter()))) {
            return false;
        }
        return t.inRange(QueueTime.parse(b.status().lastModified()));
    }

    private static String batchMatch(BatchSubmission s, String needle) {
        if (s == null) {
            return null;
        }
        if (contains(s.ercWhat(), needle)) {
            return "title";
        }
        if (contains(s.localIdentifier(), needle)) {
            return "local id";
        }
        if (contains(s.primaryIdentifier(), needle)) {
            return "ARK";
        }
        return contains(s.fileName(), needle) ? "file name" : null;
    }

    private static String jobMatch(Identifiers ids, JobConfiguration c, String needle) {
        if (ids != null && contains(ids.primary(), needle)) {
            return "ARK";
        }
        if (ids != null && ids.localId().stream().anyMatch(l -> contains(l, needle)) || c != null
                && contains(c.localId(), needle)) {
            return "local id";
        }
        return c != null && contains(c.ercWhat(), needle) ? "title" : null;
    }

    private static boolean contains(String value, String needle) {
        return value != null && value.toLowerCase(Locale.ROOT).contains(needle);
    }

    private static Map<String, Object> hit(String kind, String id, String bid, String matched, String state,
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
