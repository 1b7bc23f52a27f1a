package org.cdlib.mrt.ingestqueue.api.dashboard;

import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.POST;

import io.vertx.ext.web.RoutingContext;
import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.apache.camel.Service;
import org.cdlib.mrt.ingestqueue.api.auth.ApiUsers;
import org.cdlib.mrt.ingestqueue.api.auth.Guard;
import org.cdlib.mrt.ingestqueue.api.http.Access;
import org.cdlib.mrt.ingestqueue.api.http.Answers;
import org.cdlib.mrt.ingestqueue.api.http.ApiError;
import org.cdlib.mrt.ingestqueue.api.http.InputChecks;
import org.cdlib.mrt.ingestqueue.api.http.Routes;
import org.cdlib.mrt.ingestqueue.api.reads.BatchFilters;
import org.cdlib.mrt.ingestqueue.api.reads.QueueOrHistory;
import org.cdlib.mrt.ingestqueue.api.reads.QueueViews;
import org.cdlib.mrt.ingestqueue.api.reads.Search;
import org.cdlib.mrt.ingestqueue.figures.Activity;
import org.cdlib.mrt.ingestqueue.figures.BacklogSample;
import org.cdlib.mrt.ingestqueue.figures.BatchProgress;
import org.cdlib.mrt.ingestqueue.figures.StateArrivals;
import org.cdlib.mrt.ingestqueue.history.HistoryStore;
import org.cdlib.mrt.ingestqueue.history.HistoryUnavailableException;
import org.cdlib.mrt.ingestqueue.objects.StatusLinks;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.errors.NotFoundException;
import org.cdlib.mrt.ingestqueue.queue.hosts.Hosts;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The routes the dashboard and the depositor's status page add: live updates, charts, search,
 * hosts and their drain, the bulk requeue of a batch's failed jobs, and a batch's progress with
 * positions and estimates (for its depositor, by login or by the signed status link).
 */
public final class DashboardRoutes implements Service {
    private static final Logger LOG = LoggerFactory.getLogger(DashboardRoutes.class);
    static final Pattern HOST_ID = Pattern.compile("[A-Za-z0-9_.-]{1,128}");
    /** The most failed jobs one bulk requeue moves (each in its own transaction); the answer says how many are left. */
    static final int REQUEUE_AT_ONCE = 1000;
    static final String STATUS_TOKEN = "X-Status-Token";
    /** A batch whose jobs still run: it has a rate of its own; any later state is finished (its mean rate). */
    static final Set<BatchState> OPEN_BATCH = EnumSet.of(BatchState.PENDING, BatchState.HELD, BatchState.PROCESSING);

    private final QueueStore store;
    private final AdminActions admin;
    private final StatusLinks links;
    private final Activity activity = new Activity(Clock.systemUTC());
    private final BatchProgress progress;
    private final BacklogSample backlog;
    private final LiveFeed live;
    private final StateArrivals arrivals;
    private final Search search;
    private final QueueOrHistory reads;
    private ScheduledExecutorService sampler;
    private ScheduledExecutorService probe;

    public DashboardRoutes(QueueStore store, AdminActions admin, StatusLinks links) {
        this(store, admin, links, null);
    }

    /** {@code history}: where finished work is read once ZooKeeper no longer holds it; null when none is kept. */
    public DashboardRoutes(QueueStore store, AdminActions admin, StatusLinks links, HistoryStore history) {
        this.store = store;
        this.reads = new QueueOrHistory(store, history);
        this.admin = admin;
        this.links = links;
        this.progress = new BatchProgress(store, Clock.systemUTC());
        this.backlog = new BacklogSample(store, Clock.systemUTC());
        this.live = new LiveFeed(store);
        this.arrivals = new StateArrivals(store, activity, Clock.systemUTC());
        this.search = new Search(store, history);
    }

    /**
     * An open batch's rate: its jobs completed per minute over the last 15 minutes, from its completions each time it
     * is shown; null when none completed lately, and for a finished batch (its figure is its mean rate, never the
     * last minutes' rate shown as "now" after it ended).
     */
    /** A batch's rate for a list's row: its own while open ({@code rate_per_minute}), its mean once finished. */
    public Map<String, Object> batchRates(Batch b) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (OPEN_BATCH.contains(b.state())) {
            out.put("rate_per_minute", batchRate(b));
        } else {
            Double mean = progress.meanPerMinute(b);
            if (mean != null) {
                out.put("mean_per_minute", mean);
            }
        }
        return out;
    }

    public Double batchRate(Batch b) {
        if (!OPEN_BATCH.contains(b.state())) {
            return null;
        }
        return activity.batchRate(b.id(), b.count(BatchRef.COMPLETED), b.createdAt());
    }

    public StatusLinks links() {
        return links;
    }

    /** {@code loginHolds}: whether a request's login still holds later on (the live feed ends when it does not). */
    public void register(Routes http, Function<RoutingContext, BooleanSupplier> loginHolds) {
        http.add(GET, "/api/events", Access.USER, "Live changes (server-sent events): counts and the ids that changed",
                rc -> {
            ApiUsers.User u = rc.get("user");
            if (!live.subscribe(rc.response(), loginHolds.apply(rc), BatchFilters.isDepositor(u) ? u.name() : null)) {
                throw new ApiError(503, "the dashboard's live updates serve " + LiveFeed.MAX_CLIENTS
                        + " pages at once; close one or reload later");
            }
        });
        http.add(GET, "/api/batches/:bid", Access.USER,
                "One batch, with its open jobs' positions and estimated completion",
                rc -> Answers.json(rc, 200, batch(rc)));
        http.add(GET, "/api/status/:bid", Access.PUBLIC,
                "A batch's progress for its depositor (the signed link of the queued mail)",
                this::status);
        http.add(GET, "/api/activity", Access.USER, "Jobs completed and failed per minute, backlog and wait samples",
                rc ->
                Answers.json(rc, 200, activity.view(minutes(rc))));
        http.add(GET, "/api/search", Access.USER,
                "Find jobs and batches by job id, batch id, local id, ARK, title, submitter or date range", rc -> {
            operatorsOnly(rc, "search");
            var p = rc.queryParams();
            Answers.json(rc, 200, search.find(Search.Terms.of(p.get("q"), p.get("submitter"), p.get("from"),
                    p.get("to")), p.get("before"), skip(rc), p.get("history")));
        });
        http.add(GET, "/api/hosts", Access.USER, "Service instances alive, what each works on, which are drained",
                rc -> {
            operatorsOnly(rc, "the hosts");
            Answers.json(rc, 200, Map.of("hosts", hosts(), "this_host", store.hosts().id()));
        });
        http.add(POST, "/api/hosts/:host/drain", Access.ADMIN, "Drain a host: it finishes its work and takes no more",
                rc -> {
            store.hosts().drain(host(rc), Guard.user(rc));
            Answers.json(rc, 200, Map.of("drained", host(rc)));
        });
        http.add(POST, "/api/hosts/:host/undrain", Access.ADMIN, "Let a drained host take work again", rc ->
                Answers.json(rc, 200, Map.of("undrained", host(rc), "was_drained", store.hosts().undrain(host(rc),
                Guard.user(rc)))));
        http.add(POST, "/api/batches/:bid/requeue-failed", Access.ADMIN, "Requeue every failed job of a batch",
                this::requeueFailed);
    }

    /** Search and the hosts' work name every depositor's batches and jobs: an operator's, not a depositor's. */
    private static void operatorsOnly(RoutingContext rc, String what) {
        ApiUsers.User u = rc.get("user");
        if (BatchFilters.isDepositor(u)) {
            throw new ApiError(403, what + " is for operators; user '" + u.name()
                    + "' sees their own batches under /api/batches");
        }
    }

    private Map<String, Object> batch(RoutingContext rc) {
        String bid = rc.pathParam("bid");
        ApiUsers.User u = rc.get("user");
        Batch b = reads.batch(bid).item(); // a finished batch ZooKeeper no longer holds: from history
        // a depositor (a submitter who is not an operator) sees their own batches only
        if (BatchFilters.isDepositor(u) && !BatchFilters.ownedBy(b, u.name())) {
            throw new ApiError(404, "no batch " + bid); // word for word what a missing batch answers
        }
        // counted in memory from the open states' views: the same cost for ten jobs and a million
        Map<String, Object> view = QueueViews.batch(b, progress.states(b));
        view.put("progress", progress.of(b));
        view.put("batch_held", store.holds().isBatchHeld(b.id())); // its running jobs stop (issue 45): the buttons' cue
        view.putAll(batchRates(b));
        return view;
    }

    private void status(RoutingContext rc) {
        String bid = rc.pathParam("bid");
        String token = rc.request().getHeader(STATUS_TOKEN);
        if (token == null) {
            token = rc.queryParams().get("token");
        }
        if (!links.valid(bid, token)) {
            // the same answer for a wrong token and a missing batch: a link tells nothing about other batches
            throw new ApiError(404, "no batch for this status link; use the link of your queued mail");
        }
        try {
            // the link holds as long as the batch is found: in ZooKeeper, then in history for as long as it is kept
            Answers.json(rc, 200, progress.of(reads.batch(bid).item()));
        } catch (NotFoundException gone) {
            throw new ApiError(404, "batch " + bid + " is no longer kept (finished batches are kept in the queue's "
                    + "history for as long as the service is set to keep them)");
        }
    }

    private List<Map<String, Object>> hosts() {
        List<Map<String, Object>> hosts = store.hosts().list();
        List<String> jids = new ArrayList<>();
        for (Map<String, Object> h : hosts) {
            for (Object w : (List<?>) h.getOrDefault("work", List.of())) {
                jids.add(((Hosts.Work) w).jobId());
            }
        }
        Map<String, Job> jobs = new HashMap<>();
        store.jobs().load(jids).forEach(j -> jobs.put(j.id(), j));
        for (Map<String, Object> h : hosts) {
            List<Map<String, Object>> work = new ArrayList<>();
            for (Object o : (List<?>) h.getOrDefault("work", List.of())) {
                Hosts.Work w = (Hosts.Work) o;
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("job_id", w.jobId());
                row.put("since", w.since());
                Job j = jobs.get(w.jobId());
                row.put("state", j == null ? null : j.state().wire());
                row.put("batch_id", j == null ? null : j.batchId());
                work.add(row);
            }
            h.put("work", work);
        }
        return hosts;
    }

    private static String host(RoutingContext rc) {
        String h = rc.pathParam("host");
        if (h == null || !HOST_ID.matcher(h).matches()) {
            throw new ApiError(400, "'" + InputChecks.printable(h) + "' is not a host id (letters, digits, _ . -)");
        }
        return h;
    }

    /**
     * Each failed job is requeued by its own transaction, so one that cannot be (locked, damaged,
     * the open states full) is named in {@code refused} and harms no other.
     */
    private void requeueFailed(RoutingContext rc) {
        String bid = rc.pathParam("bid");
        if (!store.batches().exists(bid)) {
            throw new NotFoundException("no batch " + bid);
        }
        List<String> failed = store.batches().jobs(bid, BatchRef.FAILED);
        List<String> requeued = new ArrayList<>();
        List<Map<String, String>> refused = new ArrayList<>();
        for (String jid : failed.subList(0, Math.min(failed.size(), REQUEUE_AT_ONCE))) {
            try {
                admin.requeueJob(jid, Guard.user(rc));
                requeued.add(jid);
            } catch (RuntimeException e) {
                refused.add(Map.of("job_id", jid, "error", String.valueOf(e.getMessage())));
            }
        }
        LOG.info("batch {}: {} failed jobs requeued by {}, {} refused", bid, requeued.size(), Guard.user(rc),
                refused.size());
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("batch_id", bid);
        answer.put("requeued", requeued);
        answer.put("refused", refused);
        answer.put("left", Math.max(0, failed.size() - REQUEUE_AT_ONCE));
        Answers.json(rc, refused.isEmpty() || !requeued.isEmpty() ? 200 : 409, answer);
    }

    private static int minutes(RoutingContext rc) {
        String m = rc.queryParams().get("minutes");
        try {
            return m == null ? 180 : Math.max(1, Math.min(Activity.MINUTES, Integer.parseInt(m)));
        } catch (NumberFormatException e) {
            throw new ApiError(400, "minutes must be a number from 1 to " + Activity.MINUTES);
        }
    }

    private static int skip(RoutingContext rc) {
        String s = rc.queryParams().get("skip");
        try {
            return s == null ? 0 : Math.max(0, Integer.parseInt(s));
        } catch (NumberFormatException e) {
            throw new ApiError(400, "skip must be a whole number");
        }
    }

    @Override
    public void start() {
        live.start();
        sampler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "dashboard-sampler");
            t.setDaemon(true);
            return t;
        });
        sampler.scheduleWithFixedDelay(this::sample, 5, 60, TimeUnit.SECONDS);
        sampler.scheduleWithFixedDelay(arrivals::count, 0, StateArrivals.TICK_MS, TimeUnit.MILLISECONDS);
        if (reads.history() != null) {
            // its own thread: a database that is down takes the pool's connection timeout (5 s) to say so
            probe = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "history-probe");
                t.setDaemon(true);
                return t;
            });
            probe.scheduleWithFixedDelay(this::probeHistory, 0, 60, TimeUnit.SECONDS);
        }
    }

    private boolean filled;

    /**
     * A few bounded reads a minute: the counts (Stat) and the head job of each open state; the
     * last minutes this host watched whole are shared with the others ({@code /activity}), and at
     * the first run the minutes recorded before it started are read back.
     */
    private void sample() {
        try {
            long now = activity.minuteNow();
            if (!filled) {
                activity.fill(store.activity().read(now - Activity.MINUTES, now - 1));
                filled = true;
            }
            Map<String, Object> counts = QueueViews.counts(store); // the tiles' counts, so the charts say the same
            @SuppressWarnings("unchecked")
            Map<String, Integer> jobs = (Map<String, Integer>) counts.get("jobs");
            @SuppressWarnings("unchecked")
            Map<String, Integer> work = (Map<String, Integer>) counts.get("work");
            activity.sample(jobs, work, backlog.times());
            progress.closeIfIdle();
            for (long m = now - 2; m < now; m++) {
                if (activity.watchedWhole(m)) {
                    store.activity().write(m, activity.figures(m));
                }
            }
        } catch (RuntimeException e) {
            LOG.debug("dashboard sample skipped: {}", e.getMessage());
        }
    }

    /** A round trip to history each minute: health and the dashboard's notice say how it is, not how it was. */
    private void probeHistory() {
        try {
            reads.history().ping();
        } catch (HistoryUnavailableException e) {
            // its status says so (logged once when it went down)
        }
    }

    @Override
    public void stop() {
        if (sampler != null) {
            sampler.shutdownNow();
        }
        if (probe != null) {
            probe.shutdownNow();
        }
        live.close();
        progress.close();
        backlog.close();
    }
}
