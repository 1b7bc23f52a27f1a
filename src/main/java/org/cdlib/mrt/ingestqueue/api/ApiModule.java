package org.cdlib.mrt.ingestqueue.api;

import java.time.Clock;
import java.time.Duration;
import org.cdlib.mrt.ingestqueue.QueueContext;
import org.cdlib.mrt.ingestqueue.QueueModule;
import org.cdlib.mrt.ingestqueue.fetch.UrlPolicy;
import org.cdlib.mrt.ingestqueue.queue.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.ConsistencyCheck;

/**
 * Binds the HTTP API ({@code httpApi}) and the metrics ({@code queueMetrics}); the server starts
 * and stops with the Camel context. Keys: {@code ingest.http.port} (8080; 0 picks a free port),
 * {@code ingest.http.host} (0.0.0.0), {@code ingest.api.users}, {@code ingest.api.max-upload}
 * (10 GiB), {@code ingest.http.enabled} (true).
 */
public final class ApiModule implements QueueModule {

    @Override
    public void bind(QueueContext ctx) throws Exception {
        if (!ctx.booleanProperty("ingest.http.enabled", true)) {
            return;
        }
        AdminActions admin = new AdminActions(ctx.store(), Clock.systemUTC());
        ConsistencyCheck fsck = new ConsistencyCheck(ctx.store());
        QueueMetrics metrics = new QueueMetrics(ctx.store());
        HttpApi api = new HttpApi(ApiUsers.parse(ctx.property("ingest.api.users").orElse(null)),
                ctx.property("ingest.http.host", "0.0.0.0"), ctx.intProperty("ingest.http.port", 8080),
                ctx.longProperty("ingest.api.max-upload", 10L * 1024 * 1024 * 1024),
                ctx.ingestHome().resolve("uploads").resolve(".incoming"));
        new ApiRoutes(ctx.store(), admin, fsck,
                new Submissions(ctx.profiles(), ctx.ingestHome(), new UrlPolicy(ctx.ingestHome(), false)),
                metrics, ctx.durationProperty("ingest.cleanup.retention", Duration.ofDays(7))).register(api);
        ctx.bind("queueMetrics", metrics);
        ctx.bind("httpApi", api);
        ctx.camel().addService(api, true, false);
    }
}
