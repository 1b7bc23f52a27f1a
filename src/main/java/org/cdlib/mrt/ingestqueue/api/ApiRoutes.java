package org.cdlib.mrt.ingestqueue.api;

import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.POST;

import io.vertx.ext.web.RoutingContext;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.api.HttpApi.Access;
import org.cdlib.mrt.ingestqueue.fetch.FetchException;
import org.cdlib.mrt.ingestqueue.fetch.SafeName;
import org.cdlib.mrt.ingestqueue.queue.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.Batch;
import org.cdlib.mrt.ingestqueue.queue.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.BatchState;
import org.cdlib.mrt.ingestqueue.queue.BatchStatus;
import org.cdlib.mrt.ingestqueue.queue.BatchSubmission;
import org.cdlib.mrt.ingestqueue.maintenance.CleanupStep;
import org.cdlib.mrt.ingestqueue.queue.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.Damaged;
import org.cdlib.mrt.ingestqueue.queue.QueueHealth;
import org.cdlib.mrt.ingestqueue.queue.QueueLimits;
import org.cdlib.mrt.ingestqueue.queue.Job;
import org.cdlib.mrt.ingestqueue.queue.JobState;
import org.cdlib.mrt.ingestqueue.queue.QueueLimits;
import org.cdlib.mrt.ingestqueue.queue.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;

/** The API's routes: submission, reads, admin actions, files, health, metrics, OpenAPI. */
final class ApiRoutes {
    private final QueueStore store;
    private final AdminActions admin;
    private final ConsistencyCheck fsck;
    private final Submissions submissions;
    private final QueueMetrics metrics;
    private final Duration retention;
    /** A batch's current rate (jobs ended per minute lately), known to the dashboard's live feed; null when none. */
    private java.util.function.Function<String, Double> batchRates = bid -> null;

    ApiRoutes(QueueStore store, AdminActions admin, ConsistencyCheck fsck, Submissions submissions, QueueMetrics metrics,
            Duration retention) {
        this.store = store;
        this.admin = admin;
        this.fsck = fsck;
        this.submissions = submissions;
        this.metrics = metrics;
        this.retention = retention;
    }

    ApiRoutes batchRates(java.util.function.Function<String, Double> rates) {
        this.batchRates = rates;
        return this;
    }

    void register(HttpApi api) {
        for (String p : List.of("/poster/submit", "/poster/add", "/poster/update")) {
            api.add(POST, p, Access.SUBMITTER, "Submit a batch (Merritt form)", this::poster);
        }
        for (String p : List.of("/poster/submit", "/poster/add", "/poster/update")) {
            api.add(POST, p + "/ark/:naan/:name", Access.SUBMITTER, "Submit a batch (Merritt form), the primary id in the path",
                    this::poster);
        }
        api.add(POST, "/api/batches", Access.SUBMITTER, "Submit a batch (JSON)", QueueLimits.JSON_BODY_BYTES, this::submitJson);
        api.add(GET, "/api/queue", Access.USER, "Counts per state and holds", rc -> HttpApi.json(rc, 200, queue()));
        api.add(GET, "/api/batches", Access.USER, "Batches, newest first", this::batches);
        // GET /api/batches/:bid is DashboardRoutes': this view with the batch's progress, for its depositor too
        api.add(GET, "/api/jobs", Access.USER, "Jobs of a state and/or batch", this::jobs);
        api.add(GET, "/api/jobs/:jid", Access.USER, "One job", rc -> {
            Job j = store.jobs().load(rc.pathParam("jid"));
            requireOwn(rc, j.batchId(), "no job " + j.id());
            HttpApi.json(rc, 200, QueueViews.job(j));
        });
        api.add(POST, "/api/jobs/:jid/hold", Access.ADMIN, "Hold a job", rc -> job(rc, admin.holdJob(rc.pathParam("jid"), HttpApi.user(rc))));
        api.add(POST, "/api/jobs/:jid/release", Access.ADMIN, "Release a held job", rc -> job(rc, admin.releaseJob(rc.pathParam("jid"), HttpApi.user(rc))));
        api.add(POST, "/api/jobs/:jid/requeue", Access.ADMIN, "Requeue a failed job", rc -> job(rc, admin.requeueJob(rc.pathParam("jid"), HttpApi.user(rc))));
        api.add(POST, "/api/jobs/:jid/delete", Access.ADMIN, "Delete a failed or held job (confirm=true when its batch is open)", rc -> {
            admin.deleteJob(rc.pathParam("jid"), "true".equals(rc.queryParams().get("confirm")), HttpApi.user(rc));
            HttpApi.json(rc, 200, Map.of("deleted", rc.pathParam("jid")));
        });
        api.add(POST, "/api/jobs/:jid/unlock", Access.ADMIN, "Break a job's lock held by a stuck host (confirm=true)", rc ->
                HttpApi.json(rc, 200, Map.of("unlocked", rc.pathParam("jid"), "held_by", admin.breakJobLock(rc.pathParam("jid"),
                        "true".equals(rc.queryParams().get("confirm")), HttpApi.user(rc)))));
        api.add(POST, "/api/batches/:bid/hold", Access.ADMIN, "Hold a pending batch", rc -> batchAction(rc, admin.holdBatch(rc.pathParam("bid"), HttpApi.user(rc))));
        api.add(POST, "/api/batches/:bid/release", Access.ADMIN, "Release a held batch", rc -> batchAction(rc, admin.releaseBatch(rc.pathParam("bid"), HttpApi.user(rc))));
        api.add(POST, "/api/batches/:bid/update-reporting", Access.ADMIN, "Report a failed batch again", rc -> batchAction(rc, admin.updateReporting(rc.pathParam("bid"), HttpApi.user(rc))));
        api.add(POST, "/api/batches/:bid/delete", Access.ADMIN, "Delete a failed or held batch with its jobs", rc -> {
            admin.deleteBatch(rc.pathParam("bid"), HttpApi.user(rc));
            HttpApi.json(rc, 200, Map.of("deleted", rc.pathParam("bid")));
        });
        api.add(POST, "/api/collections/:profile/hold", Access.ADMIN, "Hold a collection", rc -> {
            submissions.requireProfile(rc.pathParam("profile"));
            admin.holdCollection(rc.pathParam("profile"), HttpApi.user(rc));
            HttpApi.json(rc, 200, Map.of("held", rc.pathParam("profile")));
        });
        api.add(POST, "/api/collections/:profile/release", Access.ADMIN, "Release a collection", rc -> {
            admin.releaseCollection(rc.pathParam("profile"), HttpApi.user(rc));
            HttpApi.json(rc, 200, Map.of("released", rc.pathParam("profile")));
        });
        api.add(POST, "/api/collections/:profile/release-all", Access.ADMIN, "Release every held job and batch of a collection", rc ->
                HttpApi.json(rc, 200, Map.of("released", admin.releaseCollectionJobs(rc.pathParam("profile"), HttpApi.user(rc)))));
        api.add(POST, "/api/queue/hold", Access.ADMIN, "Hold the whole queue", rc -> {
            admin.holdQueue(HttpApi.user(rc));
            HttpApi.json(rc, 200, queue());
        });
        api.add(POST, "/api/queue/release", Access.ADMIN, "Release the whole queue", rc -> {
            admin.releaseQueue(HttpApi.user(rc));
            HttpApi.json(rc, 200, queue());
        });
        api.add(POST, "/api/cleanup", Access.ADMIN, "Remove batches completed longer ago than the retention", rc ->
                HttpApi.json(rc, 200, admin.cleanup(retention)));
        api.add(GET, "/api/fsck", Access.ADMIN, "Consistency check (report only)", rc -> HttpApi.json(rc, 200, fsck.check()));
        api.add(POST, "/api/fsck/repair", Access.ADMIN, "Consistency check and repair", rc -> HttpApi.json(rc, 200, fsck.repair()));
        api.add(GET, "/api/health", Access.PUBLIC, "ZooKeeper connection and working disk space", this::health);
        api.add(GET, "/metrics", Access.PUBLIC, "Prometheus metrics", rc -> rc.response()
                .putHeader("Content-Type", "text/plain; version=0.0.4; charset=UTF-8").end(metrics.scrape()));
        api.add(GET, "/api/openapi.json", Access.PUBLIC, "This API's OpenAPI document", this::openApi);
        api.add(GET, "/files/:bid/:jid/*", Access.STORAGE, "A job's working file (storage fetches these: a signed URL, or a storage user)", this::file);
    }

    private void poster(RoutingContext rc) {
        String mode = rc.request().path().startsWith("/poster/update") ? "update" : "add";
        String pathArk = rc.pathParam("naan") == null ? null : "ark:/" + rc.pathParam("naan") + "/" + rc.pathParam("name");
        BatchSubmission s = submissions.fromForm(rc.request().formAttributes(), rc.fileUploads(), mode, HttpApi.user(rc), pathArk);
        String bid = store.batches().create(s);
        CleanupStep.markUpload(store.ingestHome(), s.payloadUrl(), bid);
        rc.response().putHeader("BID", bid);
        Map<String, Object> state = new LinkedHashMap<>();
        state.put("bat:batchID", bid);
        state.put("bat:batchStatus", "QUEUED");
        state.put("bat:updateFlag", "update".equals(s.submissionMode()));
        state.put("bat:submissionDate", s.submitted());
        state.put("bat:userAgent", s.submitter());
        state.put("bat:profile", s.profileName());
        if ("json".equals(s.responseForm())) {
            HttpApi.json(rc, 200, Map.of("bat:batchState", state));
        } else {
            StringBuilder x = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                    + "<bat:batchState xmlns:bat=\"http://uc3.cdlib.org/ontology/mrt/ingest/batch\">\n");
            state.forEach((k, v) -> x.append("  <").append(k).append('>').append(xml(String.valueOf(v))).append("</").append(k).append(">\n"));
            rc.response().setStatusCode(200).putHeader("Content-Type", "application/xml; charset=UTF-8")
                    .end(x.append("</bat:batchState>\n").toString());
        }
    }

    @SuppressWarnings("unchecked")
    private void submitJson(RoutingContext rc) {
        com.fasterxml.jackson.databind.JsonNode json;
        try {
            json = HttpApi.JSON.readTree(HttpApi.text(rc));
        } catch (Exception e) {
            throw new ApiError(400, "the body is not a JSON object: " + e.getMessage().split("\n")[0]);
        }
        if (json == null || !json.isObject()) {
            throw new ApiError(400, "the body is not a JSON object but " + (json == null || json.isMissingNode() ? "empty"
                    : json.isNull() ? "null" : "a JSON " + json.getNodeType().name().toLowerCase(java.util.Locale.ROOT))
                    + ": send the submission's fields as one object, e.g. {\"profile\": ..., \"payload_url\": ...}");
        }
        InputChecks.jsonTypes(json, Submissions.JSON_TEXT);
        InputChecks.jsonTypes(json, List.of("payload_url"));
        Map<String, Object> body = HttpApi.JSON.convertValue(json, Map.class);
        BatchSubmission submission = submissions.fromJson(body, HttpApi.user(rc));
        String bid = store.batches().create(submission);
        CleanupStep.markUpload(store.ingestHome(), submission.payloadUrl(), bid);
        rc.response().putHeader("BID", bid).putHeader("Location", "/api/batches/" + bid);
        HttpApi.json(rc, 201, batch(bid));
    }

    Map<String, Object> queue() {
        Map<String, Object> q = new LinkedHashMap<>();
        Map<String, Integer> jobs = new LinkedHashMap<>();
        store.jobs().counts().forEach((s, n) -> jobs.put(s.wire(), n));
        Map<String, Integer> batches = new LinkedHashMap<>();
        store.batches().counts().forEach((s, n) -> batches.put(s.wire(), n));
        q.put("jobs", jobs);
        q.put("batches", batches);
        q.put("holds", Map.of("queue", store.holds().isQueueHeld(), "collections", store.holds().heldCollections()));
        return q;
    }

    /** One batch with its jobs counted by state: the open ones read (bounded by the batch window), the rest counted. */
    Map<String, Object> batch(String bid) {
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

    /** How many batch numbers one page of /api/batches looks at, at most, to fill itself. */
    private static final int BATCH_PAGE_SCAN = 10_000;

    /**
     * Batches newest first, a page at a time: an open state is listed from its index; otherwise
     * batch numbers are walked downward from {@code before} (or the newest), reading statuses in
     * bounded transactions. A damaged batch appears as an entry naming the damage.
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
        if (filter != null && QueueViews.OPEN_BATCH_STATES.contains(filter)) {
            for (String bid : store.batches().ids(filter)) {
                if (QueuePaths.batchNumber(bid) <= top) {
                    candidates.add(bid);
                }
            }
            candidates.sort(Comparator.reverseOrder());
        } else {
            long bottom = Math.max(store.batches().oldestNumber(), top - BATCH_PAGE_SCAN + 1);
            for (long n = top; n >= bottom; n--) {
                candidates.add(QueuePaths.batchId(n));
            }
        }
        String next = null;
        for (int from = 0; from < candidates.size() && out.size() < limit; from += 100) {
            List<String> chunk = candidates.subList(from, Math.min(candidates.size(), from + 100));
            List<Damaged> damaged = new ArrayList<>();
            Map<String, BatchStatus> statuses = store.batches().statuses(chunk, damaged::add);
            for (String bid : chunk) {
                if (out.size() >= limit) {
                    break;
                }
                next = bid;
                damaged.stream().filter(d -> d.id().equals(bid)).findFirst()
                        .ifPresent(d -> out.add(Map.of("batch_id", bid, "damaged", d.problem())));
                BatchStatus st = statuses.get(bid);
                if (st == null || (filter != null && st.state() != filter)) {
                    continue;
                }
                try {
                    Batch b = store.batches().load(bid);
                    if (!filters.matches(b)) {
                        continue;
                    }
                    Map<String, Object> row = QueueViews.batch(b, openStates.of(b));
                    row.put("jobs_per_minute", batchRates.apply(bid));
                    out.add(row);
                } catch (org.cdlib.mrt.ingestqueue.queue.NotFoundException gone) {
                    // removed meanwhile
                } catch (CorruptNodeException e) {
                    out.add(Map.of("batch_id", bid, "damaged", e.getMessage()));
                }
            }
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("batches", out);
        if (out.size() >= limit && next != null) {
            answer.put("next", "/api/batches?limit=" + limit + (state == null ? "" : "&state=" + state) + filters.query() + "&before=" + next);
        }
        HttpApi.json(rc, 200, answer);
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
        if (bid != null) {
            requireOwn(rc, bid, "no batch " + bid);
        }
        JobState s = state == null ? null : parse(() -> JobState.fromWire(state), "state");
        int limit = limit(rc);
        int offset = offset(rc);
        List<String> jids;
        if (bid != null) {
            jids = store.batches().load(bid).jobIds();
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
            Map<String, Job> byId = new java.util.HashMap<>();
            loaded.forEach(j -> byId.put(j.id(), j));
            for (String jid : chunk) {
                at = from + chunk.indexOf(jid) + 1;
                Job j = byId.get(jid);
                Damaged d = damaged.stream().filter(x -> x.id().equals(jid)).findFirst().orElse(null);
                if (j == null && d == null || j != null && s != null && j.state() != s) {
                    continue;
                }
                if (skipped++ < offset) {
                    continue;
                }
                if (out.size() >= limit) {
                    break;
                }
                out.add(j != null ? QueueViews.job(j) : Map.of("job_id", jid, "damaged", d.problem()));
            }
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("jobs", out);
        if (out.size() >= limit && at < jids.size()) {
            answer.put("next_offset", offset + out.size());
        }
        HttpApi.json(rc, 200, answer);
    }

    /** A depositor (a submitter who is not an operator) reads their own batches' jobs only: others' are 404, as missing ones. */
    private void requireOwn(RoutingContext rc, String bid, String notFound) {
        ApiUsers.User u = rc.get("user");
        if (BatchFilters.isDepositor(u) && (bid == null || !BatchFilters.ownedBy(store.batches().load(bid), u.name()))) {
            throw new ApiError(404, notFound + " of user '" + u.name() + "'");
        }
    }

    private void job(RoutingContext rc, Job job) {
        HttpApi.json(rc, 200, QueueViews.job(job));
    }

    private void batchAction(RoutingContext rc, Batch b) {
        HttpApi.json(rc, 200, QueueViews.batch(b, null));
    }

    private void health(RoutingContext rc) {
        boolean zk = store.client().getZookeeperClient().isConnected();
        Map<String, Object> disk = new LinkedHashMap<>();
        boolean diskOk;
        try {
            var fs = Files.getFileStore(Files.createDirectories(store.ingestHome()));
            long total = fs.getTotalSpace();
            long usable = fs.getUsableSpace();
            disk.put("path", store.ingestHome().toString());
            disk.put("total_bytes", total);
            disk.put("usable_bytes", usable);
            disk.put("used_percent", total == 0 ? 0 : Math.round(100.0 * (total - usable) / total));
            diskOk = usable > 0;
        } catch (Exception e) {
            disk.put("error", e.getMessage());
            diskOk = false;
        }
        Map<String, QueueHealth.Problem> consumers = store.health().problems();
        boolean up = zk && diskOk && consumers.isEmpty();
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("status", up ? "UP" : "DOWN");
        answer.put("zookeeper", zk ? "connected" : "disconnected");
        answer.put("disk", disk);
        if (!consumers.isEmpty()) {
            Map<String, String> failing = new LinkedHashMap<>();
            consumers.forEach((k, v) -> failing.put(k, v.message() + " (since " + v.since() + ")"));
            answer.put("consumers_failing", failing);
        }
        HttpApi.json(rc, up ? 200 : 503, answer);
    }

    private void openApi(RoutingContext rc) {
        try (InputStream in = ApiRoutes.class.getResourceAsStream("/api/openapi.json")) {
            rc.response().putHeader("Content-Type", "application/json").end(io.vertx.core.buffer.Buffer.buffer(in.readAllBytes()));
        } catch (Exception e) {
            throw new ApiError(500, "cannot read the OpenAPI document: " + e.getMessage());
        }
    }

    private void file(RoutingContext rc) {
        String bid = rc.pathParam("bid");
        String jid = rc.pathParam("jid");
        String rest = rc.pathParam("*");
        if (!bid.matches("bid\\d{10}") || !jid.matches("jid\\d{10}") || rest == null
                || !(rest.startsWith("producer/") || rest.startsWith("system/"))) {
            throw new ApiError(404, "no such file: files are /files/<bid>/<jid>/producer/... or /system/...");
        }
        Path file;
        try {
            file = SafeName.resolve(store.ingestHome().resolve(bid).resolve(jid), java.net.URLDecoder.decode(rest,
                    java.nio.charset.StandardCharsets.UTF_8));
        } catch (FetchException e) {
            throw new ApiError(400, e.getMessage());
        }
        if (!Files.isRegularFile(file)) {
            throw new ApiError(404, "no file " + rest + " in the working directory of " + jid);
        }
        rc.response().putHeader("Content-Type", "application/octet-stream").sendFile(file.toString());
    }

    private static int offset(RoutingContext rc) {
        String o = rc.queryParams().get("offset");
        if (o == null) {
            return 0;
        }
        try {
            int n = Integer.parseInt(o);
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new ApiError(400, "offset must be a whole number from 0, got '" + o + "'");
        }
    }

    private static int limit(RoutingContext rc) {
        String l = rc.queryParams().get("limit");
        if (l == null) {
            return 100;
        }
        try {
            int n = Integer.parseInt(l);
            if (n < 1 || n > 10_000) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new ApiError(400, "limit must be a number from 1 to 10000, got '" + l + "'");
        }
    }

    private static <T> T parse(java.util.function.Supplier<T> p, String what) {
        try {
            return p.get();
        } catch (IllegalArgumentException e) {
            throw new ApiError(400, what + ": " + e.getMessage());
        }
    }

    private static String xml(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
