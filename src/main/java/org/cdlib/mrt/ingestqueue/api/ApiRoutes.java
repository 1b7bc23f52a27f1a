package org.cdlib.mrt.ingestqueue.api;

import java.time.Duration;
import java.util.Map;
import java.util.function.Function;
import org.cdlib.mrt.ingestqueue.api.admin.AdminRoutes;
import org.cdlib.mrt.ingestqueue.api.reads.ReadRoutes;
import org.cdlib.mrt.ingestqueue.api.service.FileRoutes;
import org.cdlib.mrt.ingestqueue.api.service.ServiceRoutes;
import org.cdlib.mrt.ingestqueue.api.submissions.SubmissionRoutes;
import org.cdlib.mrt.ingestqueue.api.submissions.Submissions;
import org.cdlib.mrt.ingestqueue.figures.QueueMetrics;
import org.cdlib.mrt.ingestqueue.history.HistoryStore;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;

/**
 * The API's routes: submission, reads, admin actions, health, metrics, OpenAPI, files; each
 * group in its class, declared here in the order the router matches them.
 */
final class ApiRoutes {
    private final SubmissionRoutes submit;
    private final ReadRoutes reads;
    private final AdminRoutes actions;
    private final ServiceRoutes service;
    private final FileRoutes files;

    ApiRoutes(QueueStore store, HistoryStore history, AdminActions admin, ConsistencyCheck fsck,
            Submissions submissions, QueueMetrics metrics, Duration retention) {
        this.reads = new ReadRoutes(store, history);
        this.submit = new SubmissionRoutes(store, submissions, reads);
        this.actions = new AdminRoutes(admin, fsck, submissions, reads, retention);
        this.service = new ServiceRoutes(store, metrics, history);
        this.files = new FileRoutes(store);
    }

    /** Each batch's rate in the rows of /api/batches: the dashboard's live feed knows it. */
    ApiRoutes batchRates(Function<Batch, Map<String, Object>> rates) {
        reads.batchRates(rates);
        return this;
    }

    void register(HttpApi api) {
        submit.register(api);
        reads.register(api);
        actions.register(api);
        service.register(api);
        files.register(api);
    }
}
