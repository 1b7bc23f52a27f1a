package org.cdlib.mrt.ingestqueue.api.reads;

import static io.vertx.core.http.HttpMethod.GET;

import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import org.cdlib.mrt.ingestqueue.api.auth.ApiUsers;
import org.cdlib.mrt.ingestqueue.api.http.Access;
import org.cdlib.mrt.ingestqueue.api.http.Answers;
import org.cdlib.mrt.ingestqueue.api.http.ApiError;
import org.cdlib.mrt.ingestqueue.api.http.Routes;
import org.cdlib.mrt.ingestqueue.history.HistoryStore;
import org.cdlib.mrt.ingestqueue.history.HistoryUnavailableException;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.batches.BatchNumbers;
import org.cdlib.mrt.ingestqueue.queue.errors.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.errors.NotFoundException;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchStatus;
import org.cdlib.mrt.ingestqueue.queue.model.Damaged;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.slf4j.LoggerFactory;

/**
 * What any user reads of the queue: its counts and holds, batches newest first, the jobs of a
 * batch or state, one job; each read bounded, a page at a time, and a depositor's limited to
 * their own batches. Also the views of the queue and of one batch that other answers reuse.
 */
public final class ReadRoutes {
    /** How many batches one page of /api/batches looks at, at most, to fill itself (then its next page goes on). */
    private static final int BATCH_PAGE_SCAN = 10_000;
    /** Walks of the number index one page makes, at most (each bounded: {@code BatchNumbers.WALK_BUCKETS}). */
    private static final int MAX_WALKS = 5;

    private final QueueStore store;
    private final QueueOrHistory reads;
    /** A batch's current rate (jobs ended per minute lately), known to the dashboard's live feed; null when none. */
    private Function<Batch, Map<String, Object>> batchRates = b -> Map.of();

    public ReadRoutes(QueueStore store) {
        this(store, null);
    }

    /** {@code history}: where finished work is read once ZooKeeper no longer holds it; null when none is kept. */
    /**
     * True when history holds this batch or job id and ZooKeeper does not (finished and handed
     * over); false for any other id, and while history cannot be reached.
     */
    public boolean finished(String id) {
        HistoryStore history = reads.history();
        if (history == null) {
            return false;
        }
        try {
            return id.startsWith("jid") ? history.job(id).isPresent() && !store.jobs().find(id).isPresent()
                    : history.batch(id).isPresent() && !store.batches().exists(id);
        } catch (HistoryUnavailableException | QueueException e) {
            return false;
        }
    }

    public ReadRoutes(QueueStore store, HistoryStore history) {
        this.store = store;
        this.reads = new QueueOrHistory(store, history);
    }

    public void batchRates(Function<Batch, Map<String, Object>> rates) {
        this.batchRates = rates;
    }

    public void register(Routes api) {
        api.add(GET, "/api/queue", Access.USER, "Counts per state and holds", rc -> Answers.json(rc, 200, queue()));
        api.add(GET, "/api/batches", Access.USER, "Batches, newest first", this::batches);
        // GET /api/batches/:bid is DashboardRoutes': this view with the batch's progress, for its depositor too
        api.add(GET, "/api/jobs", Access.USER, "Jobs of a state and/or batch", this::jobs);
        api.add(GET, "/api/jobs/:jid", Access.USER, "One job, from ZooKeeper or (finished) from history", rc -> {
            QueueOrHistory.Found<Job> found = reads.job(rc.pathParam("jid"));
            Job j = found.item();
            requireOwn(rc, j.batchId(), "no job " + j.id());
            // one more node: bounded; a finished job's effects are
            // in its record's summary (completed) or kept beside it
            JobEffects effects = !found.finished() ? store.jobs().effects(j.id())
                    : j.status().summary() != null && j.status().summary().jobEffects() != null
                    ? j.status().summary().jobEffects()
                    : reads.history().effects(j.id()).orElse(JobEffects.none());
            Answers.json(rc, 200, QueueViews.job(j, effects));
        });
    }

    public Map<String, Object> queue() {
        Map<String, Object> q = QueueViews.counts(store);
        q.put("holds", Map.of("queue", store.holds().isQueueHeld(), "collections", store.holds().heldCollections()));
        HistoryStore history = reads.history();
        if (history != null) {
            // as the last call found the database (no call here): the dashboard's notice while it is down
            q.put("history", history.status().view(history.where()));
        }
        return q;
    }

    /** One batch with its jobs counted by state: the open ones read (bounded by the batch window), the rest counted. */
    public Map<String, Object> batch(String bid) {
        return batch(store.batches().load(bid));
    }

    Map<String, Object> batch(Batch b) {
        String bid = b.id();
        Map<JobState, Integer> states = new EnumMap<>(JobState.class);
        states.putAll(store.jobs().states(store.batches().jobs(bid, BatchRef.PROCESSING)));
        if (b.count(BatchRef.COMPLETED) > 0) {
            states.put(JobState.COMPLETED, b.count(BatchRef.COMPLETED));
        }
        if (b.count(BatchRef.FAILED) > 0) {
            states.put(JobState.FAILED, b.count(BatchRef.FAILED));
        }
        return QueueViews.batch(b, states);
    }

    /**
     * Batches newest first, a page at a time: an open state is listed from its index; otherwise
     * from the number index ({@link BatchNumbers}), newest
     * bucket first, below {@code before}, reading statuses in bounded transactions; at most
     * {@link #BATCH_PAGE_SCAN} batches a page, then {@code next} goes on. Before it, the intake
     * takes in the numbers drawn since its last pass (usually none: two reads), so a batch another
     * writer made is listed at once. An entry whose batch is gone (removed behind our back) is
     * skipped and dropped. A damaged batch appears as an entry naming the damage.
     */
    private void batches(RoutingContext rc) {
        String state = rc.queryParams().get("state");
        BatchState filter = state == null ? null : parse(() -> BatchState.fromWire(state), "state");
        int limit = limit(rc);
        String before = rc.queryParams().get("before");
        long top = store.batches().newestNumber();
        if (before != null) {
            long n = QueuePaths.batchNumber(before);
            if (n < 0) {
                throw new ApiError(400, "before must be a batch id like bid0000000042, got '" + before + "'");
            }
            top = Math.min(top, n - 1);
        }
        List<Object> out = new ArrayList<>();
        BatchFilters filters = BatchFilters.of(rc);
        BatchFilters.OpenStates openStates = new BatchFilters.OpenStates(store);
        List<String> candidates = new ArrayList<>();
        boolean open = filter != null && QueueViews.OPEN_BATCH_STATES.contains(filter);
        long below = -1; // where the number index's walk goes on, -1 when it reached the oldest batch
        if (open) {
            for (String bid : store.batches().ids(filter)) {
                if (QueuePaths.batchNumber(bid) <= top) {
                    candidates.add(bid);
                }
            }
            candidates.sort(Comparator.reverseOrder());
        } else {
            catchUp();
            below = top;
        }
        long bottom = store.batches().oldestNumber();
        String next = null;
        int scanned = 0;
        int from = 0; // candidates before it were looked at
        int walks = 0;
        while (out.size() < limit && scanned < BATCH_PAGE_SCAN) {
            if (from >= candidates.size()) {
                if (below < 0 || walks++ == MAX_WALKS) {
                    break;
                }
                BatchNumbers.Page page = store.batches().numbers().newest(below, bottom, 100);
                candidates = page.bids();
                from = 0;
                below = page.nextTop();
                continue; // none found: a walk's budget of empty buckets, the next goes on below
            }
            List<String> chunk = candidates.subList(from, Math.min(candidates.size(), from + 100));
            List<Damaged> damaged = new ArrayList<>();
            Map<String, BatchStatus> statuses = store.batches().statuses(chunk, damaged::add);
            List<String> gone = new ArrayList<>();
            for (String bid : chunk) {
                if (out.size() >= limit) {
                    break;
                }
                next = bid;
                scanned++;
                from++;
                Damaged d = damaged.stream().filter(x -> x.id().equals(bid)).findFirst().orElse(null);
                if (d != null) {
                    out.add(Map.of("batch_id", bid, "damaged", d.problem()));
                }
                BatchStatus st = statuses.get(bid);
                if (st == null && d == null) {
                    gone.add(bid);
                }
                if (st == null || (filter != null && st.state() != filter)) {
                    continue;
                }
                try {
                    Batch b = store.batches().load(bid);
                    if (!filters.matches(b)) {
                        continue;
                    }
                    Map<String, Object> row = QueueViews.batch(b, openStates.of(b));
                    row.putAll(batchRates.apply(b));
                    out.add(row);
                } catch (NotFoundException removed) {
                    gone.add(bid);
                } catch (CorruptNodeException e) {
                    out.add(Map.of("batch_id", bid, "damaged", e.getMessage()));
                }
            }
            if (!open) {
                store.batches().numbers().forgetGone(gone);
            }
        }
        if (from >= candidates.size() && below >= 0 && (next == null || QueuePaths.batchNumber(next) > below + 1)) {
            next = QueuePaths.batchId(below + 1); // everything above the walk's stop was looked at
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("batches", out);
        if ((from < candidates.size() || below >= 0) && next != null) {
            answer.put("next", "/api/batches?limit=" + limit + (state == null ? "" : "&state=" + state)
                    + filters.query() + "&before=" + next);
        }
        Answers.json(rc, 200, answer);
    }

    /**
     * The intake's pass over the numbers drawn since its last one (usually none), so the list holds every batch made.
     */
    private void catchUp() {
        try {
            store.adoptMerrittBatches();
        } catch (QueueException e) {
            // the timer's pass takes them within seconds; the list shows what the index holds
            LoggerFactory.getLogger(ReadRoutes.class).info("batch list: the intake's pass failed ({}); listed what the "
                    + "number index holds", e.getMessage());
        }
    }

    /**
     * Jobs of a batch (paged by {@code offset} over the batch's run of job ids) or of a state (an
     * open state is small; a terminal one is listed only while it is, else the caller is pointed to
     * the per-batch listing). A damaged job appears as an entry naming the damage.
     */
    private void jobs(RoutingContext rc) {
        String state = rc.queryParams().get("state");
        String bid = rc.queryParams().get("batch");
        if (state == null && bid == null) {
            throw new ApiError(400, "give state=<job state> or batch=<batch id> (or both)");
        }
        if (bid == null && BatchFilters.isDepositor(rc.get("user"))) {
            throw new ApiError(400, "give batch=<batch id>: a depositor lists the jobs of their own batches");
        }
        QueueOrHistory.Found<Batch> batch = bid == null ? null : reads.batch(bid);
        if (bid != null) {
            requireOwn(rc, batch.item(), "no batch " + bid);
        }
        JobState s = state == null ? null : parse(() -> JobState.fromWire(state), "state");
        int limit = limit(rc);
        int offset = offset(rc);
        if (batch != null && batch.finished()) {
            Answers.json(rc, 200, finishedJobs(bid, s, offset, limit));
            return;
        }
        List<String> jids;
        if (bid != null) {
            jids = batchJobs(batch.item(), s);
        } else {
            int count = store.jobs().counts().getOrDefault(s, 0);
            if (count > QueueLimits.LISTED_CHILDREN) {
                throw new ApiError(400, "state " + s + " holds " + count + " jobs, more than are listed at once ("
                        + QueueLimits.LISTED_CHILDREN + "); list them per batch: /api/jobs?batch=<bid>&state=" + s);
            }
            jids = store.jobs().refs(s).stream().map(QueuePaths::jidOfRef).toList();
        }
        List<Object> out = new ArrayList<>();
        int skipped = 0;
        int at = 0;
        for (int from = 0; from < jids.size() && out.size() < limit; from += 100) {
            List<String> chunk = jids.subList(from, Math.min(jids.size(), from + 100));
            List<Damaged> damaged = new ArrayList<>();
            List<Job> loaded = store.jobs().load(chunk, damaged::add);
            Map<String, Job> byId = new HashMap<>();
            loaded.forEach(j -> byId.put(j.id(), j));
            for (String jid : chunk) {
                if (out.size() >= limit) {
                    break; // this one is not looked at: the next page starts with it
                }
                at = from + chunk.indexOf(jid) + 1;
                Job j = byId.get(jid);
                Damaged d = damaged.stream().filter(x -> x.id().equals(jid)).findFirst().orElse(null);
                if (j == null && d == null || j != null && s != null && j.state() != s) {
                    continue;
                }
                if (skipped++ < offset) {
                    continue;
                }
                out.add(j != null ? QueueViews.job(j) : Map.of("job_id", jid, "damaged", d.problem()));
            }
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("jobs", out);
        if (out.size() >= limit && at < jids.size()) {
            answer.put("next_offset", offset + out.size());
        }
        Answers.json(rc, 200, answer);
    }

    /**
     * A page of the jobs of a batch only history holds, in the live answer's shape: a page from
     * history's index on the batch's job ids (one more row read tells whether a next page follows).
     */
    private Map<String, Object> finishedJobs(String bid, JobState s, int offset, int limit) {
        List<Object> out = new ArrayList<>();
        boolean more = false;
        for (int from = offset; out.size() < limit; ) {
            int want = Math.min(1000, limit - out.size() + 1);
            List<Job> page = reads.history().jobs(bid, s == null ? null : s.wire(), from, want);
            for (Job j : page) {
                if (out.size() == limit) {
                    more = true;
                    break;
                }
                out.add(QueueViews.job(j));
            }
            if (more || page.size() < want) {
                break;
            }
            from += page.size();
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("jobs", out);
        if (more) {
            answer.put("next_offset", offset + out.size());
        }
        return answer;
    }

    /**
     * The jobs of a batch to page through, without reading one per job to find those of a state:
     * an open state's from its (small) folder, those of the batch's runs; an ended state's from
     * the batch's reference folder when it is listable; else the batch's runs of ids, read a page
     * at a time (an ended state too large to list holds most of the batch: its pages fill at once).
     */
    private List<String> batchJobs(Batch b, JobState s) {
        if (s != null && s.batchRef() == BatchRef.PROCESSING) {
            return store.jobs().refs(s).stream().map(QueuePaths::jidOfRef).filter(b.status()::holds).sorted().toList();
        }
        if (s != null && s.batchRef() != null && b.count(s.batchRef()) <= QueueLimits.LISTED_CHILDREN) {
            return store.batches().jobs(b.id(), s.batchRef()).stream().sorted().toList();
        }
        return b.jobIds();
    }

    /**
     * A depositor (a submitter who is not an operator) reads their own batches' jobs only: others' are 404, as missing
     * ones.
     */
    private void requireOwn(RoutingContext rc, String bid, String notFound) {
        ApiUsers.User u = rc.get("user");
        if (BatchFilters.isDepositor(u) && (bid == null
                || !BatchFilters.ownedBy(reads.submitter(bid).orElse(null), u.name()))) {
            // word for word what a missing id answers: nothing tells others' ids apart
            throw new ApiError(404, notFound);
        }
    }

    private static void requireOwn(RoutingContext rc, Batch b, String notFound) {
        ApiUsers.User u = rc.get("user");
        if (BatchFilters.isDepositor(u) && !BatchFilters.ownedBy(b, u.name())) {
            throw new ApiError(404, notFound);
        }
    }

    private static int offset(RoutingContext rc) {
        return number(rc, "offset", 0, 0, Integer.MAX_VALUE, "a whole number from 0");
    }

    private static int limit(RoutingContext rc) {
        return number(rc, "limit", 100, 1, 10_000, "a number from 1 to 10000");
    }

    /**
     * A whole number of the query, {@code absent} when not given; outside min..max it is a 400 saying what it must be.
     */
    private static int number(RoutingContext rc, String name, int absent, int min, int max, String expected) {
        String v = rc.queryParams().get(name);
        if (v == null) {
            return absent;
        }
        try {
            int n = Integer.parseInt(v);
            if (n < min || n > max) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new ApiError(400, name + " must be " + expected + ", got '" + v + "'");
        }
    }

    private static <T> T parse(Supplier<T> p, String what) {
        try {
            return p.get();
        } catch (IllegalArgumentException e) {
            throw new ApiError(400, what + ": " + e.getMessage());
        }
    }
}
