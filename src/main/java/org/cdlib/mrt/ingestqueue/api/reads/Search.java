package org.cdlib.mrt.ingestqueue.api.reads;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.api.http.ApiError;
import org.cdlib.mrt.ingestqueue.api.http.InputChecks;
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

/**
 * Search by job id, batch id, local id, ARK or title. An id is looked up directly. Anything else
 * is matched by a bounded scan of the batches that exist (the number index, {@link BatchNumbers}),
 * newest first: each batch's submission (title, local id,
 * ARK, file name) and its jobs' identifiers and configuration nodes (ARK, local ids, the job's own
 * title from its manifest row). The queue keeps no index of local ids or
 * titles, and one would be a second write per transition; so one request reads at most
 * {@link #SCAN_BATCHES} batches and {@link #SCAN_JOBS} jobs, and answers {@code next} to go on
 * from where it stopped (the dashboard's "search older"). Finished batches are cleaned up after
 * the retention, so the scan covers what the queue still holds; older objects are the inventory's.
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
    private final QueueStore store;

    public Search(QueueStore store) {
        this.store = store;
    }

    /** {@code before}: continue below this batch; {@code skip}: jobs of that batch already scanned. */
    public Map<String, Object> find(String query, String before, int skip) {
        String q = query == null ? "" : query.strip();
        if (q.isEmpty() || q.length() > 256) {
            throw new ApiError(400, "q: give 1 to 256 characters (a job id, batch id, local id, ARK or title)");
        }
        List<Map<String, Object>> results = new ArrayList<>();
        Map<String, Object> answer = new LinkedHashMap<>();
        if (InputChecks.JOB_ID.matcher(q).matches()) {
            store.jobs().find(q).ifPresent(j -> results.add(hit("job", j.id(), j.batchId(), "job id", j.state().wire(),
                    null)));
            answer.put("results", results);
            return answer;
        }
        if (InputChecks.BATCH_ID.matcher(q).matches()) {
            if (store.batches().exists(q)) {
                Batch b = store.batches().load(q);
                results.add(hit("batch", q, q, "batch id", b.state().wire(), b.submission().ercWhat()));
            }
            answer.put("results", results);
            return answer;
        }
        String needle = q.toLowerCase(Locale.ROOT);
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
                page = store.batches().numbers().newest(page.nextTop(), bottom, 50);
                at = 0;
                continue;
            }
            String bid = page.bids().get(at++);
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
            if (skipped == 0) {
                String why = batchMatch(b.submission(), needle);
                if (why != null) {
                    results.add(hit("batch", bid, bid, why, b.state().wire(), b.submission().ercWhat()));
                }
            }
            List<String> ids = b.jobIds();
            int j = skipped;
            // whole chunks: the hits of the last chunk may take the results a little past MAX_RESULTS
            while (j < ids.size() && jobs < SCAN_JOBS && results.size() < MAX_RESULTS) {
                List<String> chunk = ids.subList(j, Math.min(ids.size(), j + Math.min(50, SCAN_JOBS - jobs)));
                j += chunk.size();
                jobs += chunk.size();
                Map<String, Identifiers> idents = store.jobs().identifiers(chunk);
                Map<String, JobConfiguration> configs = store.jobs().configurations(chunk);
                for (String jid : chunk) {
                    JobConfiguration c = configs.get(jid);
                    String why = jobMatch(idents.get(jid), c, needle);
                    if (why != null) {
                        results.add(hit("job", jid, bid, why, null, c != null && c.ercWhat() != null ? c.ercWhat()
                                : b.submission().ercWhat()));
                    }
                }
            }
            if (j < ids.size()) {
                next = bid;
                nextSkip = j;
                break;
            }
        }
        answer.put("results", results);
        answer.put("scanned", Map.of("batches", batches, "jobs", jobs));
        if (next != null) {
            answer.put("next", "/api/search?q=" + URLEncoder.encode(q, StandardCharsets.UTF_8)
                    + "&before=" + next + (nextSkip > 0 ? "&skip=" + nextSkip : ""));
        }
        return answer;
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
