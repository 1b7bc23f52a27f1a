package org.cdlib.mrt.ingestqueue.api;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.api.auth.ApiUsers;
import org.cdlib.mrt.ingestqueue.api.auth.LoginThrottle;
import org.cdlib.mrt.ingestqueue.api.auth.Sessions;
import org.cdlib.mrt.ingestqueue.api.dashboard.DashboardRoutes;
import org.cdlib.mrt.ingestqueue.api.http.ConnectionLimits;
import org.cdlib.mrt.ingestqueue.api.http.Proxies;
import org.cdlib.mrt.ingestqueue.api.submissions.Submissions;
import org.cdlib.mrt.ingestqueue.api.submissions.UploadQuota;
import org.cdlib.mrt.ingestqueue.fetch.AddressPolicy;
import org.cdlib.mrt.ingestqueue.fetch.UrlPolicy;
import org.cdlib.mrt.ingestqueue.figures.QueueMetrics;
import org.cdlib.mrt.ingestqueue.history.HistoryStore;
import org.cdlib.mrt.ingestqueue.module.QueueContext;
import org.cdlib.mrt.ingestqueue.module.QueueModule;
import org.cdlib.mrt.ingestqueue.objects.FileUrlSigner;
import org.cdlib.mrt.ingestqueue.objects.Secrets;
import org.cdlib.mrt.ingestqueue.objects.StatusLinks;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.hosts.SessionNodes;
import org.cdlib.mrt.ingestqueue.report.ReportingModule;

/**
 * Binds the HTTP API ({@code httpApi}) and the metrics ({@code queueMetrics}); the server starts
 * and stops with the Camel context. Keys: {@code ingest.http.port} (8080; 0 picks a free port),
 * {@code ingest.http.host} (0.0.0.0), {@code ingest.api.users}, {@code ingest.api.max-upload}
 * (10 GiB), {@code ingest.http.enabled} (true); and the security keys: {@code ingest.api.plain-passwords}
 * (warn | refuse), {@code ingest.api.session-idle} (PT1H), {@code ingest.api.max-upload-per-user} (0: none)
 * per {@code ingest.api.upload-window} (P1D), {@code ingest.files.signing-key} (generated and kept
 * under {@code <ingest.home>/.secrets/}), {@code ingest.files.url-ttl} (P1D), {@code
 * ingest.api.login-failures-per-user}
 * (10) and {@code -per-address} (20), {@code ingest.http.trusted-proxies} (none), {@code ingest.http.idle-timeout}
 * (PT60S), {@code ingest.http.header-timeout} (PT20S), {@code ingest.http.min-body-rate} (1024 bytes/s),
 * {@code ingest.http.max-connections-per-address} (64).
 */
public final class ApiModule implements QueueModule {

    @Override
    public Map<String, Class<?>> beans() {
        // the last three only while the HTTP API is enabled
        return Map.of("statusLinks", StatusLinks.class, "queueMetrics", QueueMetrics.class, "httpApi", HttpApi.class);
    }

    @Override
    public void bind(QueueContext ctx) throws Exception {
        // the storage manifest signs the URLs of working files whether or not this host serves them
        FileUrlSigner signer = FileUrlSigner.forHome(ctx.ingestHome(), ctx.property("ingest.files.signing-key")
                .orElse(null),
                ctx.durationProperty("ingest.files.url-ttl", Duration.ofDays(1))).register(ctx.ingestHome());
        if (!ctx.booleanProperty("ingest.http.enabled", true)) {
            return;
        }
        AdminActions admin = new AdminActions(ctx.store(), Clock.systemUTC());
        ConsistencyCheck fsck = new ConsistencyCheck(ctx.store());
        QueueMetrics metrics = new QueueMetrics(ctx.store());
        String plain = ctx.property("ingest.api.plain-passwords", "warn");
        if (!plain.equals("warn") && !plain.equals("refuse")) {
            throw new IllegalArgumentException("ingest.api.plain-passwords must be warn or refuse, got '" + plain
                    + "'");
        }
        HttpApi api = new HttpApi(ApiUsers.parse(ctx.property("ingest.api.users").orElse(null),
                Secrets.directory(ctx.ingestHome()), plain.equals("refuse")),
                ctx.property("ingest.http.host", "0.0.0.0"), ctx.intProperty("ingest.http.port", 8080),
                ctx.longProperty("ingest.api.max-upload", 10L * 1024 * 1024 * 1024),
                ctx.ingestHome().resolve("uploads").resolve(".incoming"));
        Proxies proxies = new Proxies(ctx.property(Proxies.KEY).orElse(null));
        api.sessions(new Sessions(new SessionNodes(ctx.store().client(), Clock.systemUTC()),
                        ctx.durationProperty("ingest.api.session-idle", Duration.ofHours(1)), proxies))
                .uploadQuota(new UploadQuota(ctx.longProperty("ingest.api.max-upload-per-user", 0),
                        ctx.durationProperty("ingest.api.upload-window", Duration.ofDays(1)), Clock.systemUTC()))
                .fileSigner(signer)
                .loginThrottle(new LoginThrottle(ctx.intProperty("ingest.api.login-failures-per-user", 10),
                        ctx.intProperty("ingest.api.login-failures-per-address", 20), Clock.systemUTC()))
                .proxies(proxies)
                .connectionLimits(new ConnectionLimits.Settings(ctx.durationProperty("ingest.http.idle-timeout",
                Duration.ofSeconds(60)),
                        ctx.durationProperty("ingest.http.header-timeout", Duration.ofSeconds(20)),
                        ctx.longProperty("ingest.http.min-body-rate", 1024),
                        ctx.intProperty("ingest.http.max-connections-per-address", 64)));
        // finished work ZooKeeper no longer holds is read from history (issue 44); none bound in some tests
        HistoryStore history = ctx.handOver() == null ? null : ctx.handOver().history();
        ApiRoutes routes = new ApiRoutes(ctx.store(), history, admin, fsck,
                new Submissions(ctx.profiles(), ctx.ingestHome(), new UrlPolicy(ctx.ingestHome(), false,
                        AddressPolicy.parse(ctx.property(AddressPolicy.KEY).orElse(null)))),
                metrics, ctx.durationProperty("ingest.cleanup.retention", Duration.ofDays(7)));
        routes.register(api);
        DashboardRoutes dashboard = new DashboardRoutes(ctx.store(), admin, StatusLinks.forHome(ctx.ingestHome(),
                ctx.property("ingest.status.signing-key").orElse(null),
                ReportingModule.statusBase(ctx)), history);
        dashboard.register(api, api::loginHolds);
        routes.batchRates(dashboard::batchRates);
        ctx.bind("statusLinks", dashboard.links());
        ctx.camel().addService(dashboard, true, false);
        ctx.bind("queueMetrics", metrics);
        ctx.bind("httpApi", api);
        ctx.camel().addService(api, true, false);
    }
}
