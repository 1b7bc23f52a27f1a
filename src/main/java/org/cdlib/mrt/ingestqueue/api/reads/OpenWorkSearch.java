package org.cdlib.mrt.ingestqueue.api.reads;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.cdlib.mrt.ingestqueue.api.http.ApiError;
import org.cdlib.mrt.ingestqueue.api.http.InputChecks;
import org.cdlib.mrt.ingestqueue.api.reads.Search.Terms;
import org.cdlib.mrt.ingestqueue.history.HistoryHit;
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
 * The open work's part of a search ({@link Search}): the search index's hits ({@link OpenIndex}),
 * each read again from ZooKeeper, the jobs of batches it has not reached whole, and a bounded scan
 * of the batches ZooKeeper holds that the index has not seen (all of them when it cannot be read).
 */
final class OpenWorkSearch {
    private final QueueStore store;
    private final HistoryStore history;

    /** {@code history}: null when the service keeps none (then every batch is scanned). */
    OpenWorkSearch(QueueStore store, HistoryStore history) {
        this.store = store;
        this.history = history;
    }

    /**
     * The scan of what ZooKeeper holds; where the next request
     * goes on ({@code before[&skip=]}), or {@link Search#DONE}.
     */
    String scan(Terms t, String before, int skip, boolean indexed, List<Map<String, Object>> results,
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
                if (walks++ == Search.MAX_WALKS) {
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
            if (batches >= Search.SCAN_BATCHES || jobs >= Search.SCAN_JOBS || results.size() >= Search.MAX_RESULTS) {
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
                    results.add(Search.hit("batch", bid, bid, why, b.state().wire(), b.submission().ercWhat()));
                }
            }
            List<String> ids = needle == null ? List.of() : b.jobIds();
            int j = skipped;
            // whole chunks: the hits of the last chunk may take the results a little past Search.MAX_RESULTS
            while (j < ids.size() && jobs < Search.SCAN_JOBS && results.size() < Search.MAX_RESULTS) {
                List<String> chunk = ids.subList(j, Math.min(ids.size(), j + Math.min(50, Search.SCAN_JOBS - jobs)));
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
        return next == null ? Search.DONE : next + (nextSkip > 0 ? "&skip=" + nextSkip : "");
    }

    /**
     * Open work found by the index ({@link OpenIndex}), on the first page ({@code hits}): each hit read
     * again from ZooKeeper (a row is a cache: gone or changed work is not shown), then the jobs of
     * batches the index has not reached whole, scanned. True when the index could be read: the scan
     * then passes over the batches it holds.
     */
    boolean indexed(Terms t, boolean hits, List<Map<String, Object>> results, Map<String, Object> answer) {
        if (history == null) {
            return false;
        }
        try {
            OpenIndex index = history.open();
            if (hits) {
                Map<String, Batch> batches = new HashMap<>();
                for (HistoryHit h : index.search(t.text(), Search.MAX_RESULTS)) {
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
                return Search.hit("batch", b.id(), b.id(), h.matched(), b.state().wire(), b.submission().ercWhat());
            }
            var job = store.jobs().find(h.id());
            return job.map(j -> Search.hit("job", j.id(), b.id(), h.matched(), j.state().wire(),
                    h.title() != null ? h.title() : b.submission().ercWhat())).orElse(null);
        } catch (NotFoundException | CorruptNodeException gone) {
            return null;
        }
    }

    /** The jobs of batches not indexed whole, past what the index holds: scanned, within {@link Search#SCAN_JOBS}. */
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
                if (jobs >= Search.SCAN_JOBS) {
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
                results.add(Search.hit("job", jid, b.id(), why, null, c != null && c.ercWhat() != null ? c.ercWhat()
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
}
