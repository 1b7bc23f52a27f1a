package org.cdlib.mrt.ingestqueue.report;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.cdlib.mrt.ingestqueue.camel.BatchExchange;
import org.cdlib.mrt.ingestqueue.history.HandOver;
import org.cdlib.mrt.ingestqueue.history.HistoryUnavailableException;
import org.cdlib.mrt.ingestqueue.mail.Mailer;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.profile.ProfileRegistry;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.StatusReport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Batch Reporting and Batch Update Reporting: writes the status report, hands the batch to
 * history, mails the depositor, then completed when nothing failed, failed otherwise. A mail that cannot
 * be sent throws, so the batch stays where it is and is reported again later: a report is never lost.
 */
public final class ReportStep implements Processor {
    private static final Logger LOG = LoggerFactory.getLogger(ReportStep.class);
    /** How long a batch Merritt reports is left before this host looks at it again (Merritt's reporter moves it on). */
    static final long MERRITTS_BATCH_LOOK_AGAIN_MS = 10 * 60_000L;
    private final QueueStore store;
    private final ProfileRegistry profiles;
    private final DepositorMail mail;
    private final Mailer mailer;
    private final boolean update;
    private final HandOver history;
    /** How long a batch history could not take waits before it is reported again (the route's retry delay). */
    private final long historyRetryMs;

    public ReportStep(QueueStore store, ProfileRegistry profiles, DepositorMail mail, Mailer mailer, boolean update) {
        this(store, profiles, mail, mailer, update, null, 0);
    }

    /**
     * @param history        where the batch goes before it is reported; null: nowhere (a test without history)
     * @param historyRetryMs how long a batch history cannot take now waits before it is tried again
     */
    public ReportStep(QueueStore store, ProfileRegistry profiles, DepositorMail mail, Mailer mailer, boolean update,
                      HandOver history, long historyRetryMs) {
        this.history = history;
        this.historyRetryMs = historyRetryMs;
        this.store = store;
        this.profiles = profiles;
        this.mail = mail;
        this.mailer = mailer;
        this.update = update;
    }

    /**
     * A batch Merritt's own batch consumer took ({@code Batch.acquirePendingBatch}) and made into jobs
     * ({@code Job.createJob}): none of its jobs is ours (no runs of ids), yet its reference folders list
     * jobs. Merritt's batch reporter ({@code acquireBatchForReporting}) reports it once its
     * batch-processing is empty, so reporting it here too would mail the depositor twice (issue 42).
     */
    public static boolean merrittReports(Batch batch) {
        return batch.reportedByMerritt();
    }

    @Override
    public void process(Exchange exchange) throws Exception {
        Batch batch = BatchExchange.batch(exchange);
        if (merrittReports(batch)) {
            if (history != null) {
                // Merritt's cleanup deletes the batch once its reporter completes it: history takes it now
                BatchTally seen = BatchTally.of(store, batch, 0);
                try {
                    history.seenReporting(batch, seen.failedCount() == 0 ? BatchState.COMPLETED : BatchState.FAILED);
                } catch (HistoryUnavailableException e) {
                    LOG.warn("batch {}: history could not take it: {}", batch.id(), e.getMessage());
                }
            }
            LOG.info(
                    "batch {}: its jobs were made by Merritt's batch consumer; Merritt's batch reporter reports it",
                    batch.id());
            BatchExchange.stay(exchange, "reported by Merritt's batch reporter", MERRITTS_BATCH_LOOK_AGAIN_MS);
            return;
        }
        BatchTally outcome = BatchTally.of(store, batch);
        List<String> recovered = null;
        StatusReport previous = batch.statusReport();
        if (update) {
            recovered = new ArrayList<>();
            if (previous != null && !previous.failedJobs().isEmpty()) {
                for (Job j : store.jobs().load(previous.failedJobs())) {
                    if (j.state() == JobState.COMPLETED) {
                        recovered.add(j.id());
                    }
                }
            }
        }
        boolean ok = outcome.failedCount() == 0 && batch.status().errorMessage() == null;
        StatusReport report = new StatusReport(
                Instant.now().toString(),
                outcome.failed().stream().map(Job::id).toList(),
                outcome.completed().stream().map(Job::id).toList(),
                previous == null ? 1 : previous.reports() + 1,
                outcome.failedCount(),
                outcome.completedCount());
        if (history != null) {
            // before the mail and the move: Merritt's cleanup deletes a completed batch at once, and a database
            // that cannot take it keeps the batch here (HistoryUnavailableException), reported when it can
            try {
                history.atReport(batch, ok ? BatchState.COMPLETED : BatchState.FAILED, report);
            } catch (HistoryUnavailableException e) {
                LOG.warn("batch {}: reporting waits for history: {}", batch.id(), e.getMessage());
                BatchExchange.stay(exchange, "waiting for history", historyRetryMs);
                return;
            }
        }
        Profile profile = profiles.find(batch.submission().profileName()).orElse(null);
        List<String> to = DepositorMail.recipients(batch, profile);
        if (profile != null && profile.suppressesAllMail()) {
            LOG.info("batch {}: no report mail (profile {} suppresses all mail)", batch.id(), profile.id());
        } else if (to.isEmpty()) {
            LOG.warn("batch {}: no report mail: neither the submission nor the profile names a recipient", batch.id());
        } else {
            mailer.send(mail.report(batch, outcome, recovered, to));
        }
        BatchExchange.report(
                exchange,
                ok ? BatchState.COMPLETED : BatchState.FAILED,
                (update ? "update report: " : "report: ") + outcome.completedCount() + " completed, "
                        + outcome.failedCount() + " failed"
                        + (recovered == null ? "" : ", " + recovered.size() + " recovered since the last report"),
                report);
    }
}
