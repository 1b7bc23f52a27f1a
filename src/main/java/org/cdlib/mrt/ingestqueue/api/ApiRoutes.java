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
import org.cdlib.mrt.ingestqueue.queue.ConsistencyCheck;
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

    ApiRoutes(QueueStore store, AdminActions admin, ConsistencyCheck fsck, Submissions submissions, QueueMetrics metrics,
            Duration retention) {
        this.store = store;
        this.admin = admin;
        this.fsck = fsck;
        this.submissions = submissions;
        this.metrics = metrics;
        this.retention = retention;
    }

    void register(HttpApi api) {
        for (String p : List.of("/poster/submit", "/poster/add", "/poster/update")) {
            api.add(POST, p, Access.SUBMITTER, "Submit a batch (Merritt form)", this::poster);
        }
        api.add(POST, "/api/batches", Access.SUBMITTER, "Submit a batch (JSON)", QueueLimits.JSON_BODY_BYTES, this::submitJson);
        api.add(GET, "/api/queue", Access.USER, "Counts per state and holds", rc -> HttpApi.json(rc, 200, queue()));
        api.add(GET, "/api/batches", Access.USER, "Batches, newest first", this::batches);
        api.add(GET, "/api/batches/:bid", Access.USER, "One batch", rc -> HttpApi.json(rc, 200, batch(rc.pathParam("bid"))));
        api.add(GET, "/api/jobs", Access.USER, "Jobs of a state and/or batch", this::jobs);
        api.add(GET, "/api/jobs/:jid", Access.USER, "One job", rc -> HttpApi.json(rc, 200, QueueViews.job(store.loadJob(rc.pathParam("jid")))));
        api.add(POST, "/api/jobs/:jid/hold", Access.ADMIN, "Hold a job", rc -> job(rc, admin.holdJob(rc.pathParam("jid"), HttpApi.user(rc))));
        api.add(POST, "/api/jobs/:jid/release", Access.ADMIN, "Release a held job", rc -> job(rc, admin.releaseJob(rc.pathParam("jid"), HttpApi.user(rc))));
        api.add(POST, "/api/jobs/:jid/requeue", Access.ADMIN, "Requeue a failed job", rc -> job(rc, admin.requeueJob(rc.pathParam("jid"), HttpApi.user(rc))));
        api.add(POST, "/api/jobs/:jid/delete", Access.ADMIN, "Delete a failed or held job (confirm=true when its batch is open)", rc -> {
            admin.deleteJob(rc.pathParam("jid"), "true".equals(rc.queryParams().get("confirm")), HttpApi.user(rc));
            HttpApi.json(rc, 200, Map.of("deleted", rc.pathParam("jid")));
        });
        api.add(POST, "/api/batches/:bid/hold", Access.ADMIN, "Hold a pending batch", rc -> batchAction(rc, admin.holdBatch(rc.pathParam("bid"), HttpApi.user(rc))));
        api.add(POST, "/api/batches/:bid/release", Access.ADMIN, "Release a held batch", rc -> batchAction(rc, admin.releaseBatch(rc.pathParam("bid"), HttpApi.user(rc))));
        api.add(POST, "/api/batches/:bid/update-reporting", Access.ADMIN, "Report a failed batch again", rc -> batchAction(rc, admin.updateReporting(rc.pathParam("bid"), HttpApi.user(rc))));
        api.add(POST, "/api/batches/:bid/delete", Access.ADMIN, "Delete a failed or held batch with its jobs", rc -> {
            admin.deleteBatch(rc.pathParam("bid"), HttpApi.user(rc));
            HttpApi.json(rc, 200, Map.of("deleted", rc.pathParam("bid")));
        });
        api.add(POST, "/api/collections/:profile/hold", Access.ADMIN, "Hold a collection", rc -> {
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
        api.add(GET, "/files/:bid/:jid/*", Access.PUBLIC, "A job's working file (storage fetches these)", this::file);
    }

    private void poster(RoutingContext rc) {
        String mode = rc.request().path().endsWith("/update") ? "update" : "add";
        BatchSubmission s = submissions.fromForm(rc.request().formAttributes(), rc.fileUploads(), mode, HttpApi.user(rc));
        String bid = store.createBatch(s);
        rc.response().putHeader("BID", bid);
        Map<String, Object> state = new LinkedHashMap<>();
        state.put("bat:batchID", bid);
        state.put("bat:batchStatus", "QUEUED");
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
        Map<String, Object> body = HttpApi.JSON.convertValue(json, Map.class);
        String bid = store.createBatch(submissions.fromJson(body, HttpApi.user(rc)));
        rc.response().putHeader("BID", bid).putHeader("Location", "/api/batches/" + bid);
        HttpApi.json(rc, 201, batch(bid));
    }

    Map<String, Object> queue() {
        Map<String, Object> q = new LinkedHashMap<>();
        Map<String, Integer> jobs = new LinkedHashMap<>();
        store.jobCounts().forEach((s, n) -> jobs.put(s.wire(), n));
        Map<String, Integer> batches = new LinkedHashMap<>();
        store.batchCounts().forEach((s, n) -> batches.put(s.wire(), n));
        q.put("jobs", jobs);
        q.put("batches", batches);
        q.put("holds", Map.of("queue", store.isQueueHeld(), "collections", store.heldCollections()));
        return q;
    }

    private Map<String, Object> batch(String bid) {
        Batch b = store.loadBatch(bid);
        Map<JobState, Integer> states = new EnumMap<>(JobState.class);
        List<String> all = new ArrayList<>();
        for (BatchRef r : BatchRef.values()) {
            all.addAll(b.jobs(r));
        }
        for (Job j : store.loadJobs(all)) {
            states.merge(j.state(), 1, Integer::sum);
        }
        return QueueViews.batch(b, states);
    }

    private void batches(RoutingContext rc) {
        String state = rc.queryParams().get("state");
        BatchState filter = state == null ? null : parse(() -> BatchState.fromWire(state), "state");
        int limit = limit(rc);
        List<String> bids = new ArrayList<>(store.batchIds());
        bids.sort(Comparator.reverseOrder());
        List<Object> out = new ArrayList<>();
        for (Map.Entry<String, BatchStatus> e : store.batchStatuses(bids).entrySet()) {
            if (out.size() >= limit) {
                break;
            }
            if (filter == null || e.getValue().state() == filter) {
                try {
                    out.add(QueueViews.batch(store.loadBatch(e.getKey()), null));
                } catch (org.cdlib.mrt.ingestqueue.queue.NotFoundException gone) {
                    // removed meanwhile
                }
            }
        }
        HttpApi.json(rc, 200, Map.of("batches", out));
    }

    private void jobs(RoutingContext rc) {
        String state = rc.queryParams().get("state");
        String bid = rc.queryParams().get("batch");
        if (state == null && bid == null) {
            throw new ApiError(400, "give state=<job state> or batch=<batch id> (or both)");
        }
        JobState s = state == null ? null : parse(() -> JobState.fromWire(state), "state");
        int limit = limit(rc);
        List<String> jids = new ArrayList<>();
        if (bid != null) {
            Batch b = store.loadBatch(bid);
            for (BatchRef r : BatchRef.values()) {
                jids.addAll(b.jobs(r));
            }
            jids.sort(null);
        } else {
            store.jobRefs(s).forEach(ref -> jids.add(QueuePaths.jidOfRef(ref)));
        }
        List<Object> out = new ArrayList<>();
        for (int from = 0; from < jids.size() && out.size() < limit; from += 100) {
            for (Job j : store.loadJobs(jids.subList(from, Math.min(jids.size(), from + 100)))) {
                if ((s == null || j.state() == s) && out.size() < limit) {
                    out.add(QueueViews.job(j));
                }
            }
        }
        HttpApi.json(rc, 200, Map.of("jobs", out));
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
        boolean up = zk && diskOk;
        HttpApi.json(rc, up ? 200 : 503, Map.of("status", up ? "UP" : "DOWN", "zookeeper", zk ? "connected" : "disconnected",
                "disk", disk));
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
