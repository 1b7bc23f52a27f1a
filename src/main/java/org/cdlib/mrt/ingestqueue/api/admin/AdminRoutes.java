package org.cdlib.mrt.ingestqueue.api.admin;

import io.vertx.core.Handler;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.api.auth.Guard;
import org.cdlib.mrt.ingestqueue.api.http.Access;
import org.cdlib.mrt.ingestqueue.api.http.Answers;
import org.cdlib.mrt.ingestqueue.api.http.ApiError;
import org.cdlib.mrt.ingestqueue.api.http.InputChecks;
import org.cdlib.mrt.ingestqueue.api.http.Routes;
import org.cdlib.mrt.ingestqueue.api.reads.QueueViews;
import org.cdlib.mrt.ingestqueue.api.reads.ReadRoutes;
import org.cdlib.mrt.ingestqueue.api.submissions.Submissions;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.errors.NotFoundException;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.POST;

/**
 * The operator's actions (role admin, each audited by the {@link Guard}): hold, release, requeue,
 * delete and unlock jobs; hold, release, report again and delete batches; hold and release
 * collections and the whole queue; cleanup and the consistency check.
 */
public final class AdminRoutes {
    private final AdminActions admin;
    private final ConsistencyCheck fsck;
    private final Submissions submissions;
    private final ReadRoutes reads;
    private final Duration retention;

    public AdminRoutes(AdminActions admin, ConsistencyCheck fsck, Submissions submissions, ReadRoutes reads,
            Duration retention) {
        this.admin = admin;
        this.fsck = fsck;
        this.submissions = submissions;
        this.reads = reads;
        this.retention = retention;
    }

    public void register(Routes all) {
        Routes api = onQueueItems(all);
        api.add(POST, "/api/jobs/:jid/hold", Access.ADMIN, "Hold a job", rc -> job(rc,
                admin.holdJob(rc.pathParam("jid"), Guard.user(rc))));
        api.add(POST, "/api/jobs/:jid/release", Access.ADMIN, "Release a held job", rc -> job(rc,
                admin.releaseJob(rc.pathParam("jid"), Guard.user(rc))));
        api.add(POST, "/api/jobs/:jid/requeue", Access.ADMIN, "Requeue a failed job", rc -> job(rc,
                admin.requeueJob(rc.pathParam("jid"), Guard.user(rc))));
        api.add(POST, "/api/jobs/:jid/fail", Access.ADMIN,
                "Force a job into failed, stopping the worker that holds it (reason=…), as the Admin Tool's Fail",
                rc -> {
            String reason = rc.queryParams().get("reason");
            InputChecks.text("reason", reason);
            if (reason != null && reason.length() > 1_000) {
                throw new ApiError(400, "field 'reason' is " + reason.length() + " characters long; at most 1000");
            }
            job(rc, admin.failJob(rc.pathParam("jid"), reason, Guard.user(rc)));
        });
        api.add(POST, "/api/jobs/:jid/delete", Access.ADMIN,
                "Delete a failed or held job (confirm=true when its batch is open)", rc -> {
            admin.deleteJob(rc.pathParam("jid"), "true".equals(rc.queryParams().get("confirm")), Guard.user(rc));
            Answers.json(rc, 200, Map.of("deleted", rc.pathParam("jid")));
        });
        api.add(POST, "/api/jobs/:jid/unlock", Access.ADMIN, "Break a job's lock held by a stuck host (confirm=true)",
                rc ->
                Answers.json(rc, 200, Map.of("unlocked", rc.pathParam("jid"), "held_by",
                admin.breakJobLock(rc.pathParam("jid"),
                        "true".equals(rc.queryParams().get("confirm")), Guard.user(rc)))));
        api.add(POST, "/api/batches/:bid/hold", Access.ADMIN,
                "Hold a batch: a pending one moves to held; a running one's jobs stop before their next step",
                rc -> batchAction(rc, admin.holdBatch(rc.pathParam("bid"), Guard.user(rc))));
        api.add(POST, "/api/batches/:bid/release", Access.ADMIN,
                "Release a held batch: its stopped jobs resume where they were",
                rc -> batchAction(rc, admin.releaseBatch(rc.pathParam("bid"), Guard.user(rc))));
        api.add(POST, "/api/batches/:bid/update-reporting", Access.ADMIN, "Report a failed batch again", rc ->
                batchAction(rc, admin.updateReporting(rc.pathParam("bid"), Guard.user(rc))));
        api.add(POST, "/api/batches/:bid/delete", Access.ADMIN, "Delete a failed or held batch with its jobs", rc -> {
            admin.deleteBatch(rc.pathParam("bid"), Guard.user(rc));
            Answers.json(rc, 200, Map.of("deleted", rc.pathParam("bid")));
        });
        api.add(POST, "/api/collections/:profile/hold", Access.ADMIN, "Hold a collection", rc -> {
            submissions.requireProfile(rc.pathParam("profile"));
            admin.holds().holdCollection(rc.pathParam("profile"), Guard.user(rc));
            Answers.json(rc, 200, Map.of("held", rc.pathParam("profile")));
        });
        api.add(POST, "/api/collections/:profile/release", Access.ADMIN, "Release a collection", rc -> {
            admin.holds().releaseCollection(rc.pathParam("profile"), Guard.user(rc));
            Answers.json(rc, 200, Map.of("released", rc.pathParam("profile")));
        });
        api.add(POST, "/api/collections/:profile/release-all", Access.ADMIN,
                "Release every held job and batch of a collection", rc ->
                Answers.json(rc, 200, Map.of("released", admin.holds().releaseCollectionJobs(rc.pathParam("profile"),
                Guard.user(rc)))));
        api.add(POST, "/api/queue/hold", Access.ADMIN, "Hold the whole queue", rc -> {
            admin.holds().holdQueue(Guard.user(rc));
            Answers.json(rc, 200, reads.queue());
        });
        api.add(POST, "/api/queue/release", Access.ADMIN, "Release the whole queue", rc -> {
            admin.holds().releaseQueue(Guard.user(rc));
            Answers.json(rc, 200, reads.queue());
        });
        api.add(POST, "/api/cleanup", Access.ADMIN, "Remove batches completed longer ago than the retention", rc ->
                Answers.json(rc, 200, admin.cleanup(retention)));
        api.add(GET, "/api/fsck", Access.ADMIN, "Consistency check (report only)", rc -> Answers.json(rc, 200,
                fsck.check()));
        api.add(POST, "/api/fsck/repair", Access.ADMIN, "Consistency check and repair", rc -> Answers.json(rc, 200,
                fsck.repair()));
    }

    private void job(RoutingContext rc, Job job) {
        Answers.json(rc, 200, QueueViews.job(job));
    }

    private void batchAction(RoutingContext rc, Batch b) {
        Answers.json(rc, 200, QueueViews.batch(b, null));
    }

    /**
     * The routes with one more answer: an action on a batch or job ZooKeeper no longer holds but
     * history does is a 409 saying so, not a 404 (the operator sees it on its page and would
     * wonder why it is "not found"); nothing finished can be held, requeued or reported again.
     */
    private Routes onQueueItems(Routes all) {
        return new Routes() {
            @Override
            public void add(HttpMethod method, String path, Access access, String summary, long bodyLimit,
                    Handler<RoutingContext> handler) {
                all.add(method, path, access, summary, bodyLimit, finishedAware(handler));
            }

            @Override
            public void addNonBlocking(HttpMethod method, String path, Access access, String summary,
                    long bodyLimit, Handler<RoutingContext> handler) {
                all.addNonBlocking(method, path, access, summary, bodyLimit, handler);
            }
        };
    }

    private Handler<RoutingContext> finishedAware(Handler<RoutingContext> handler) {
        return rc -> {
            try {
                handler.handle(rc);
            } catch (NotFoundException missing) {
                String id = rc.pathParam("bid") != null ? rc.pathParam("bid") : rc.pathParam("jid");
                if (id != null && reads.finished(id)) {
                    throw new ApiError(409, id + " has finished and left the queue for history, where its page"
                            + " still shows it; the queue holds nothing of it to act on (submit it again to ingest"
                            + " it anew)");
                }
                throw missing;
            }
        };
    }
}
