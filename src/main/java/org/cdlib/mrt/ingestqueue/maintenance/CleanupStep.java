package org.cdlib.mrt.ingestqueue.maintenance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.cdlib.mrt.ingestqueue.fetch.UploadMark;
import org.cdlib.mrt.ingestqueue.history.HistoryStore;
import org.cdlib.mrt.ingestqueue.history.HistoryUnavailableException;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.admin.CleanupResult;
import org.cdlib.mrt.ingestqueue.runtime.ElectedRoutes;
import org.cdlib.mrt.ingestqueue.steps.StoredVersions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cleanup task's step: hands batches completed longer ago than the retention (or past the
 * count of finished jobs ZooKeeper keeps) over to history and removes them with their
 * jobs, then the uploaded payloads no batch names any more (older than the retention
 * too, so an upload whose batch is being created right now is never touched).
 */
public final class CleanupStep implements Processor {
    private static final Logger LOG = LoggerFactory.getLogger(CleanupStep.class);
    private final AdminActions admin;
    private final QueueStore store;
    private final Duration retention;
    private final Duration failedRetention;
    private final Clock clock;
    private final long keepJobs;
    private HistoryStore history;
    private Duration historyRetention;

    public CleanupStep(AdminActions admin, QueueStore store, Duration retention, Clock clock) {
        this(admin, store, retention, retention, Long.MAX_VALUE, clock);
    }

    /**
     * @param keepJobs finished jobs ZooKeeper keeps at most: past it, completed batches are handed
     *                 over before their retention ends
     */
    public CleanupStep(AdminActions admin, QueueStore store, Duration retention, Duration failedRetention,
                       long keepJobs, Clock clock) {
        this.admin = admin;
        this.keepJobs = keepJobs;
        this.store = store;
        this.retention = retention;
        this.failedRetention = failedRetention;
        this.clock = clock;
    }

    /** History, and how long it keeps finished work (null: for good). */
    public CleanupStep withHistory(HistoryStore history, Duration retention) {
        this.history = history;
        this.historyRetention = retention;
        return this;
    }

    @Override
    public void process(Exchange exchange) throws IOException {
        CleanupResult r = admin.cleanup(retention, failedRetention, keepJobs, () -> ElectedRoutes.leads(exchange));
        int uploads = pruneUploads();
        forgetOldHistory();
        StoredVersions.prune(store.ingestHome(), store.batches()::exists); // reports' storage notes
        if (r.batches() > 0 || uploads > 0) {
            LOG.info("cleanup: removed {} batch(es), {} job(s) and {} upload(s) older than {}", r.batches(), r.jobs(),
                    uploads, retention);
        }
        exchange.getMessage().setBody(r);
    }

    /**
     * History kept for {@code ingest.history.retention} (unset: for good): batches finished before
     * it are forgotten, a bounded number a pass. A database down is health's to tell; the next pass
     * goes on.
     */
    void forgetOldHistory() {
        if (history == null || historyRetention == null) {
            return;
        }
        try {
            int n = history.purge(clock.instant().minus(historyRetention), HISTORY_PURGE_BATCHES);
            if (n > 0) {
                LOG.info("cleanup: history forgot {} batch(es) finished more than {} ago", n, historyRetention);
            }
        } catch (HistoryUnavailableException e) {
            LOG.debug("cleanup: history not purged now: {}", e.getMessage());
        }
    }

    /** Batches history forgets in one pass at most. */
    static final int HISTORY_PURGE_BATCHES = 1000;

    /**
     * Removes {@code uploads/<uuid>} directories older than the retention whose batch no longer
     * exists (or that never became one); one look-up per directory, whatever the queue's size.
     */
    int pruneUploads() throws IOException {
        Path uploads = store.ingestHome().resolve("uploads");
        if (!Files.isDirectory(uploads)) {
            return 0;
        }
        Instant before = clock.instant().minus(retention);
        int removed = 0;
        List<Path> dirs;
        try (Stream<Path> list = Files.list(uploads)) {
            dirs = list.filter(Files::isDirectory).filter(d -> !d.getFileName().toString().startsWith(".")).toList();
        }
        for (Path dir : dirs) {
            if (Files.getLastModifiedTime(dir).toInstant().isAfter(before)) {
                continue;
            }
            var bid = UploadMark.batchOf(dir);
            if (bid.isPresent() && store.batches().exists(bid.get())) {
                continue;
            }
            if (store.batches().byMerrittId(dir.getFileName().toString()).isPresent()) {
                // a batch by that Merritt batch id lives (Merritt's queue directory mounted here: its batches too)
                continue;
            }
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
            removed++;
        }
        return removed;
    }
}
