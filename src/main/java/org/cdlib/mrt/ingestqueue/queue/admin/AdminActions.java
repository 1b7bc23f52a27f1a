package org.cdlib.mrt.ingestqueue.queue.admin;

import java.time.Clock;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.Job;

/**
 * The operator's one door, for the API's and the cleanup's callers: the actions on jobs
 * ({@link JobActions}), on batches ({@link BatchActions}), and the holds on collections and the
 * queue ({@link HoldActions}). Nothing is decided here; each action is its room's.
 */
public final class AdminActions {
    private final JobActions jobs;
    private final BatchActions batches;
    private final HoldActions holds;

    public AdminActions(QueueStore store, Clock clock) {
        this.jobs = new JobActions(store);
        this.batches = new BatchActions(store, clock, jobs);
        this.holds = new HoldActions(store, jobs, batches);
    }

    public JobActions jobs() {
        return jobs;
    }

    public BatchActions batches() {
        return batches;
    }

    /** Holding and releasing collections and the queue. */
    public HoldActions holds() {
        return holds;
    }

    public Job holdJob(String jid, String by) {
        return jobs.holdJob(jid, by);
    }

    public Job releaseJob(String jid, String by) {
        return jobs.releaseJob(jid, by);
    }

    public Job requeueJob(String jid, String by) {
        return jobs.requeueJob(jid, by);
    }

    public Job failJob(String jid, String reason, String by) {
        return jobs.failJob(jid, reason, by);
    }

    public void deleteJob(String jid, boolean confirm, String by) {
        jobs.deleteJob(jid, confirm, by);
    }

    public String breakJobLock(String jid, boolean confirm, String by) {
        return jobs.breakJobLock(jid, confirm, by);
    }

    public Batch holdBatch(String bid, String by) {
        return batches.holdBatch(bid, by);
    }

    public Batch releaseBatch(String bid, String by) {
        return batches.releaseBatch(bid, by);
    }

    public Batch updateReporting(String bid, String by) {
        return batches.updateReporting(bid, by);
    }

    public void deleteBatch(String bid, String by) {
        batches.deleteBatch(bid, by);
    }

    public CleanupResult cleanup(Duration retention) {
        return batches.cleanup(retention);
    }

    public CleanupResult cleanup(Duration retention, Duration failedRetention) {
        return batches.cleanup(retention, failedRetention);
    }

    public CleanupResult cleanup(Duration retention, Duration failedRetention, BooleanSupplier goOn) {
        return batches.cleanup(retention, failedRetention, goOn);
    }

    public CleanupResult cleanup(Duration retention, Duration failedRetention, long keepJobs, BooleanSupplier goOn) {
        return batches.cleanup(retention, failedRetention, keepJobs, goOn);
    }
}
