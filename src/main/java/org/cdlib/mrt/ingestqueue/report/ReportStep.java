package org.cdlib.mrt.ingestqueue.report;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.cdlib.mrt.ingestqueue.camel.BatchExchange;
import org.cdlib.mrt.ingestqueue.mail.Mailer;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.profile.ProfileRegistry;
import org.cdlib.mrt.ingestqueue.queue.Batch;
import org.cdlib.mrt.ingestqueue.queue.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.BatchState;
import org.cdlib.mrt.ingestqueue.queue.Job;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.StatusReport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Batch Reporting and Batch Update Reporting: writes the status report, mails the depositor,
 * then completed when nothing failed, failed otherwise. A mail that cannot be sent throws, so
 * the batch stays where it is and is reported again later: a report is never lost.
 */
public final class ReportStep implements Processor {
    private static final Logger LOG = LoggerFactory.getLogger(ReportStep.class);
    private final QueueStore store;
    private final ProfileRegistry profiles;
    private final DepositorMail mail;
    private final Mailer mailer;
    private final boolean update;

    public ReportStep(QueueStore store, ProfileRegistry profiles, DepositorMail mail, Mailer mailer, boolean update) {
        this.store = store;
        this.profiles = profiles;
        this.mail = mail;
        this.mailer = mailer;
        this.update = update;
    }

    @Override
    public void process(Exchange exchange) throws Exception {
        Batch batch = BatchExchange.batch(exchange);
        List<Job> completed = store.loadJobs(batch.jobs(BatchRef.COMPLETED));
        List<Job> failed = store.loadJobs(batch.jobs(BatchRef.FAILED));
        List<String> recovered = null;
        StatusReport previous = batch.statusReport();
        if (update) {
            recovered = new ArrayList<>();
            if (previous != null) {
                for (String jid : previous.failedJobs()) {
                    if (batch.jobs(BatchRef.COMPLETED).contains(jid)) {
                        recovered.add(jid);
                    }
                }
            }
        }
        Profile profile = profiles.find(batch.submission().profileName()).orElse(null);
        List<String> to = DepositorMail.recipients(batch, profile);
        if (profile != null && profile.suppressesAllMail()) {
            LOG.info("batch {}: no report mail (profile {} suppresses all mail)", batch.id(), profile.id());
        } else if (to.isEmpty()) {
            LOG.warn("batch {}: no report mail: neither the submission nor the profile names a recipient", batch.id());
        } else {
            mailer.send(mail.report(batch, completed, failed, recovered, to));
        }
        boolean ok = failed.isEmpty() && batch.status().errorMessage() == null;
        BatchExchange.report(exchange, new StatusReport(Instant.now().toString(),
                failed.stream().map(Job::id).toList(), completed.stream().map(Job::id).toList(),
                previous == null ? 1 : previous.reports() + 1));
        BatchExchange.next(exchange, ok ? BatchState.COMPLETED : BatchState.FAILED,
                (update ? "update report: " : "report: ") + completed.size() + " completed, " + failed.size() + " failed"
                        + (recovered == null ? "" : ", " + recovered.size() + " recovered since the last report"));
    }
}
