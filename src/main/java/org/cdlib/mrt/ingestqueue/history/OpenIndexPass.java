package org.cdlib.mrt.ingestqueue.history;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.batches.BatchNumbers;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionEvent;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fills the {@link OpenIndex} from the queue's nodes, a bounded pass every few seconds on the
 * cleanup leader (route {@code open-index}): the newest batches first (a batch is found by search
 * within seconds of its creation), then a page of the older ones in turn (those the index has not
 * seen: all of them once, when it is new), then the jobs of batches not indexed whole (a budget of jobs
 * a pass), and last whether batches indexed whole are still open (forgotten when they are not: history
 * has them). A job's ARK, minted in processing, is written when one of our workers moves it to storing.
 */
public final class OpenIndexPass implements Consumer<TransitionEvent> {
    private static final Logger LOG = LoggerFactory.getLogger(OpenIndexPass.class);
    /** Batches of the number index one page of the walk holds (at least). */
    static final int WALK = 500;
    /** Batches whose jobs one pass indexes, or whose state it checks, at most. */
    static final int BATCHES = 20;
    /** Jobs indexed in one pass, at most, read in chunks of {@link #CHUNK}. */
    static final int JOBS = 2_000;
    static final int CHUNK = 100;
    static final Set<BatchState> OPEN = EnumSet.of(BatchState.PENDING, BatchState.HELD, BatchState.PROCESSING,
            BatchState.REPORTING, BatchState.UPDATE_REPORTING);
    private final QueueStore store;
    private final OpenIndex index;
    private final int jobsPerPass;

    public OpenIndexPass(QueueStore store, OpenIndex index) {
        this(store, index, JOBS);
    }

    /** {@code jobsPerPass}: the jobs one pass indexes, at most. */
    public OpenIndexPass(QueueStore store, OpenIndex index, int jobsPerPass) {
        this.store = store;
        this.index = index;
        this.jobsPerPass = jobsPerPass;
    }

    /** One pass; the database or ZooKeeper out of reach ends it early, the next goes on. */
    public void run() {
        try {
            walk();
            int budget = jobsPerPass;
            for (OpenIndex.Progress p : index.toLookAt(false, BATCHES)) {
                budget -= indexJobs(p, Math.max(0, budget));
            }
            for (OpenIndex.Progress p : index.toLookAt(true, BATCHES)) {
                if (load(p.batchId()) == null) {
                    index.forget(p.batchId());
                } else {
                    index.lookedAt(p.batchId());
                }
            }
        } catch (HistoryUnavailableException | QueueException e) {
            LOG.debug("search index: pass cut short: {}", e.getMessage());
        }
    }

    /**
     * The newest batches of the number index, and the next page of the older ones from where the last
     * pass stopped (from the newest again once it reached the oldest). Numbers are not drawn in order
     * of creation (a host draws from its block of ids), so no range is taken as seen: every batch is
     * looked up, a page at a time.
     */
    private void walk() {
        long newest = store.batches().newestNumber();
        long oldest = store.batches().oldestNumber();
        if (newest < 0) {
            return;
        }
        BatchNumbers numbers = store.batches().numbers();
        BatchNumbers.Page page = numbers.newest(newest, oldest, WALK);
        register(page.bids());
        long from = cursor < 0 || cursor > page.nextTop() ? page.nextTop() : cursor;
        if (from >= 0) {
            BatchNumbers.Page older = numbers.newest(from, oldest, WALK);
            register(older.bids());
            cursor = older.nextTop();
        } else {
            cursor = -1;
        }
    }

    /** Where the walk of older batches goes on (-1: from below the newest page). */
    private long cursor = -1;

    /** Batches the index has not seen: an open one gets its own entry and a mark of no job indexed. */
    private void register(List<String> bids) {
        for (int from = 0; from < bids.size(); from += 100) {
            List<String> some = bids.subList(from, Math.min(bids.size(), from + 100));
            Set<String> seen = index.seen(some);
            for (String bid : some) {
                Batch b = seen.contains(bid) ? null : load(bid);
                if (b != null) {
                    index.put(List.of(entry(b)), new OpenIndex.Progress(bid, 0, false));
                }
            }
        }
    }

    /** The next of a batch's jobs, up to {@code budget}; how many were read. */
    private int indexJobs(OpenIndex.Progress p, int budget) {
        Batch b = load(p.batchId());
        if (b == null) {
            index.forget(p.batchId());
            return 0;
        }
        List<String> ids = new ArrayList<>(b.jobIds());
        ids.addAll(store.batches().othersJobs(b));
        int done = Math.min(p.indexed(), ids.size());
        int read = 0;
        while (done < ids.size() && read < budget) {
            List<String> chunk = ids.subList(done, Math.min(ids.size(), done + Math.min(CHUNK, budget - read)));
            Map<String, Identifiers> idents = store.jobs().identifiers(chunk);
            Map<String, JobConfiguration> configs = store.jobs().configurations(chunk);
            List<OpenIndex.Entry> entries = new ArrayList<>();
            for (String jid : chunk) {
                entries.add(entry(jid, b.id(), idents.get(jid), configs.get(jid)));
            }
            done += chunk.size();
            read += chunk.size();
            index.put(entries, new OpenIndex.Progress(b.id(), done, whole(b, done, ids.size())));
        }
        if (read == 0) {
            if (whole(b, done, ids.size())) {
                index.put(List.of(), new OpenIndex.Progress(b.id(), done, true));
            } else {
                index.lookedAt(b.id());
            }
        }
        return read;
    }

    /** Every job indexed, and no more to come: the batch has left pending (its jobs are all created). */
    private static boolean whole(Batch b, int indexed, int jobs) {
        return indexed >= jobs && b.state() != BatchState.PENDING && b.state() != BatchState.HELD;
    }

    /** The batch when it is open; null when it is gone, damaged or finished (history's then). */
    private Batch load(String bid) {
        try {
            Batch b = store.batches().load(bid);
            return OPEN.contains(b.state()) ? b : null;
        } catch (QueueException e) {
            return null;
        }
    }

    private static OpenIndex.Entry entry(Batch b) {
        BatchSubmission s = b.submission();
        if (s == null) {
            return new OpenIndex.Entry(b.id(), b.id(), null, null, List.of());
        }
        List<String> locals = new ArrayList<>();
        if (s.localIdentifier() != null) {
            locals.add(s.localIdentifier());
        }
        if (s.fileName() != null) {
            locals.add(s.fileName()); // found as a local id is: the whole name
        }
        String ark = s.primaryIdentifier() == null || s.primaryIdentifier().isBlank() ? null : s.primaryIdentifier();
        return new OpenIndex.Entry(b.id(), b.id(), ark, s.ercWhat(), locals);
    }

    private static OpenIndex.Entry entry(String jid, String bid, Identifiers ids, JobConfiguration c) {
        List<String> locals = new ArrayList<>();
        if (ids != null) {
            locals.addAll(ids.localId());
        }
        if (c != null && c.localId() != null) {
            locals.add(c.localId());
        }
        return new OpenIndex.Entry(jid, bid, ids == null ? null : ids.primary(), c == null ? null : c.ercWhat(),
                locals);
    }

    /** A job one of our workers moved to storing has its ARK: the index's row learns it, off the worker's thread. */
    @Override
    public void accept(TransitionEvent e) {
        if (TransitionEvent.JOB.equals(e.kind()) && JobState.STORING.wire().equals(e.to()) && e.id() != null) {
            arks.submit(e.id());
        }
    }

    private final ArkWrites arks = new ArkWrites();

    /** ARKs to write, a bounded queue on one daemon thread: when it is full one is left to the report's hand-over. */
    private final class ArkWrites {
        private final ThreadPoolExecutor pool = new ThreadPoolExecutor(
                1, 1, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(10_000),
                r -> {
                    Thread t = new Thread(r, "search-index-arks");
                    t.setDaemon(true);
                    return t;
                }, new ThreadPoolExecutor.DiscardPolicy());

        void submit(String jid) {
            pool.execute(() -> {
                try {
                    Identifiers ids = store.jobs().identifiers(List.of(jid)).get(jid);
                    if (ids != null && ids.primary() != null) {
                        index.ark(jid, ids.primary());
                    }
                } catch (HistoryUnavailableException | QueueException ex) {
                    LOG.debug("search index: {}'s ARK not written: {}", jid, ex.getMessage());
                }
            });
        }
    }
}
