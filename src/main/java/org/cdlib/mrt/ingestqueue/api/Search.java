package org.cdlib.mrt.ingestqueue.api;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.queue.Batch;
import org.cdlib.mrt.ingestqueue.queue.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.NotFoundException;
import org.cdlib.mrt.ingestqueue.queue.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;

/**
 * Search by job id, batch id, local id, ARK or title. An id is looked up directly. Anything else
 * is matched by a bounded scan, newest batches first: each batch's submission (title, local id,
 * ARK) and its jobs' identifiers nodes (ARK, local ids). The queue keeps no index of local ids or
 * titles, and one would be a second write per transition; so one request reads at most
 * {@link #SCAN_BATCHES} batches and {@link #SCAN_JOBS} jobs, and answers {@code next} to go on
 * from where it stopped (the dashboard's "search older"). Finished batches are cleaned up after
 * the retention, so the scan covers what the queue still holds; older objects are the inventory's.
 */
final class Search {
    static final int SCAN_BATCHES = 200;
    static final int SCAN_JOBS = 2000;
    static final int MAX_RESULTS = 50;
    private final QueueStore store;

    Search(QueueStore store) {
        this.store = store;
    }

    /** {@code before}: continue below this batch; {@code skip}: jobs of that batch already scanned. */
    Map<String, Object> find(String query, String before, int skip) {
        String q = query == null ? "" : query.strip();
        if (q.isEmpty() || q.length() > 256) {
            throw new ApiError(400, "q: give 1 to 256 characters (a job id, batch id, local id, ARK or title)");
        }
        List<Map<String, Object>> results = new ArrayList<>();
        Map<String, Object> answer = new LinkedHashMap<>();
        if (InputChecks.JOB_ID.matcher(q).matches()) {
            store.findJob(q).ifPresent(j -> results.add(hit("job", j.id(), j.batchId(), "job id", j.state().wire(), null)));
            answer.put("results", results);
            return answer;
        }
        if (InputChecks.BATCH_ID.matcher(q).matches()) {
            if (store.batchExists(q)) {
                Batch b = store.loadBatch(q);
                results.add(hit("batch", q, q, "batch id", b.state().wire(), b.submission().ercWhat()));
            }
            answer.put("results", results);
            return answer;
        }
        String needle = q.toLowerCase(Locale.ROOT);
        long top = store.newestBatchNumber();
        if (before != null) {
            long n = QueuePaths.batchNumber(before);
            if (n < 0) {
                throw new ApiError(400, "before must be a batch id, got '" + InputChecks.printable(before) + "'");
            }
            top = Math.min(top, skip > 0 ? n : n - 1);
        }
        long bottom = store.oldestBatchNumber();
        int batches = 0;
        int jobs = 0;
        String next = null;
        int nextSkip = 0;
        for (long n = top; n >= bottom && results.size() < MAX_RESULTS; n--) {
            if (batches >= SCAN_BATCHES || jobs >= SCAN_JOBS) {
                next = QueuePaths.batchId(n);
                break;
            }
            String bid = QueuePaths.batchId(n);
            int from = before != null && bid.equals(before) ? skip : 0;
            Batch b;
            try {
                b = store.loadBatch(bid);
            } catch (NotFoundException | CorruptNodeException gone) {
                continue; // removed, or damaged (fsck names it)
            }
            batches++;
            if (from == 0) {
                String why = batchMatch(b.submission(), needle);
                if (why != null) {
                    results.add(hit("batch", bid, bid, why, b.state().wire(), b.submission().ercWhat()));
                }
            }
            List<String> ids = b.jobIds();
            int to = Math.min(ids.size(), from + (SCAN_JOBS - jobs));
            for (int at = from; at < to && results.size() < MAX_RESULTS; at += 100) {
                List<String> chunk = ids.subList(at, Math.min(to, at + 100));
                jobs += chunk.size();
                store.identifiers(chunk).forEach((jid, idents) -> {
                    String why = jobMatch(idents, needle);
                    if (why != null && results.size() < MAX_RESULTS) {
                        results.add(hit("job", jid, bid, why, null, b.submission().ercWhat()));
                    }
                });
            }
            if (to < ids.size()) {
                next = bid;
                nextSkip = to;
                break;
            }
        }
        answer.put("results", results);
        answer.put("scanned", Map.of("batches", batches, "jobs", jobs));
        if (next != null) {
            answer.put("next", "/api/search?q=" + java.net.URLEncoder.encode(q, java.nio.charset.StandardCharsets.UTF_8)
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

    private static String jobMatch(Identifiers ids, String needle) {
        if (contains(ids.primary(), needle)) {
            return "ARK";
        }
        return ids.localId().stream().anyMatch(l -> contains(l, needle)) ? "local id" : null;
    }

    private static boolean contains(String value, String needle) {
        return value != null && value.toLowerCase(Locale.ROOT).contains(needle);
    }

    private static Map<String, Object> hit(String kind, String id, String bid, String matched, String state, String title) {
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
