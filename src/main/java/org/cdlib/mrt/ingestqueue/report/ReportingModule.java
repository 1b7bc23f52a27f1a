package org.cdlib.mrt.ingestqueue.report;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.mail.Mailer;
import org.cdlib.mrt.ingestqueue.mail.OutboxMailer;
import org.cdlib.mrt.ingestqueue.mail.SmtpMailer;
import org.cdlib.mrt.ingestqueue.module.QueueContext;
import org.cdlib.mrt.ingestqueue.module.QueueModule;
import org.cdlib.mrt.ingestqueue.objects.StatusLinks;
import org.cdlib.mrt.ingestqueue.steps.StoredVersions;

/**
 * Binds {@code queuedMailStep}, {@code reportStep}, {@code updateReportStep}, {@code reportingSweep}
 * and the {@code mailer}: SMTP through camel-mail when {@code ingest.mail.smtp.host} is set, else an
 * outbox directory of .eml files.
 */
public final class ReportingModule implements QueueModule {

    @Override
    public Map<String, Class<?>> beans() {
        return Map.of("mailer", Mailer.class, "queuedMailStep", QueuedMailStep.class, "reportStep", ReportStep.class,
                "updateReportStep", ReportStep.class, "reportingSweep", ReportingSweep.class);
    }

    @Override
    public void bind(QueueContext ctx) throws Exception {
        Mailer mailer = ctx.property("ingest.mail.smtp.host")
                .<Mailer>map(host -> new SmtpMailer(ctx.camel().createProducerTemplate(), host,
                        ctx.intProperty("ingest.mail.smtp.port", 25),
                        ctx.booleanProperty("ingest.mail.smtp.tls", false),
                        ctx.booleanProperty("ingest.mail.smtp.starttls", false),
                        ctx.property("ingest.mail.smtp.user").orElse(null),
                        ctx.property("ingest.mail.smtp.password").orElse(null)))
                .orElseGet(() -> new OutboxMailer(Path.of(ctx.property("ingest.mail.outbox", "./data/outbox"))));
        Path home = ctx.ingestHome();
        DepositorMail mail = new DepositorMail(ctx.property("ingest.mail.from", "merritt-ingest@localhost"))
                .withVersions(jobs -> StoredVersions.of(jobs, ctx.store(), home));
        // the status page's link is signed with the key the API checks it with (shared under ingest.home)
        StatusLinks links = StatusLinks.forHome(home,
                ctx.property("ingest.status.signing-key").orElse(null), statusBase(ctx));
        mail.withStatusLinks(links::link);
        ctx.bind("mailer", mailer);
        ctx.bind("queuedMailStep", new QueuedMailStep(ctx.profiles(), mail, mailer));
        long retry = ctx.longProperty("ingest.batch.retry-delay", 60_000); // the reporting routes' own
        ctx.bind("reportStep", new ReportStep(ctx.store(), ctx.profiles(), mail, mailer, false, ctx.handOver(), retry));
        ctx.bind("updateReportStep",
                new ReportStep(ctx.store(), ctx.profiles(), mail, mailer, true, ctx.handOver(), retry));
        ctx.bind("reportingSweep", new ReportingSweep(ctx.store()));
    }

    /** Where depositors reach the status page: {@code ingest.status.base-url}, else this host's HTTP port. */
    public static String statusBase(QueueContext ctx) {
        return ctx.property("ingest.status.base-url").orElseGet(() -> "http://" + hostName() + ":"
                + ctx.intProperty("ingest.http.port", 8080));
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }
}
