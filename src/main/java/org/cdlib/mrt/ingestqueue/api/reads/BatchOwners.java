package org.cdlib.mrt.ingestqueue.api.reads;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.Job;

/**
 * Who submitted a batch, and which batch a job belongs to, remembered for the live feed's
 * depositor streams: a depositor's events carry only their own batches' and jobs' ids. Each id
 * is read once (a batch's submission, a job's nodes) and kept in a bounded LRU; the feed asks for
 * at most its changed ids per message, so the reads per message stay bounded.
 */
public final class BatchOwners {
    static final int KEPT = 10_000;
    private final QueueStore store;
    private final Map<String, String> submitterOf = lru();
    private final Map<String, String> batchOf = lru();

    public BatchOwners(QueueStore store) {
        this.store = store;
    }

    private static Map<String, String> lru() {
        return new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
                return size() > KEPT;
            }
        };
    }

    /** Whether the batch is the user's (as {@link BatchFilters#ownedBy}); false for a batch that cannot be read. */
    public synchronized boolean owns(String user, String bid) {
        String s = submitterOf.computeIfAbsent(bid, b -> {
            try {
                return Optional.ofNullable(store.batches().load(b).submission().submitter()).orElse("");
            } catch (RuntimeException gone) {
                return null; // removed or damaged: not shown, asked again next time
            }
        });
        return BatchFilters.ownedBy(s, user);
    }

    /** Whether the job belongs to one of the user's batches. */
    public synchronized boolean ownsJob(String user, String jid) {
        String bid = batchOf.computeIfAbsent(jid, j -> {
            try {
                return store.jobs().find(j).map(Job::batchId).orElse(null);
            } catch (RuntimeException gone) {
                return null;
            }
        });
        return bid != null && owns(user, bid);
    }
}
