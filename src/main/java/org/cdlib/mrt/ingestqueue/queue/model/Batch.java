package org.cdlib.mrt.ingestqueue.queue.model;

import java.util.List;
import java.util.Map;

/**
 * A batch as read from ZooKeeper, in one read transaction.
 *
 * @param counts the number of job references under each {@code /batches/BID/states/batch-*}
 *               category, from the folders' {@code Stat}: a million-job batch is counted, not listed
 * @param ended  how many job references were ever created in the completed and failed categories
 *               (their folders' {@code Stat}: a requeued job's ending still counts), for the batch's rate
 * @param createdAt when the batch's status node was created (epoch milliseconds)
 */
public record Batch(
        String id,
        BatchSubmission submission,
        BatchStatus status,
        StatusReport statusReport,
        Map<BatchRef, Integer> counts,
        int statusVersion,
        LockOwner lockOwner,
        long ended,
        long createdAt) {

    public BatchState state() {
        return status.state();
    }

    /**
     * A batch Merritt's own batch consumer took ({@code Batch.acquirePendingBatch}) and made into jobs
     * ({@code Job.createJob}): none of its jobs is ours (no runs of ids), yet its reference folders list
     * jobs. Merritt's batch reporter reports it, and Merritt's cleanup deletes it once completed.
     */
    public boolean reportedByMerritt() {
        return jobIds().isEmpty() && status.jobsCreated() == 0 && jobCount() > 0;
    }

    public int count(BatchRef ref) {
        return counts.getOrDefault(ref, 0);
    }

    /** Jobs that still exist (open, completed or failed). */
    public int jobCount() {
        return counts.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** The ids of every job created for the batch, in creation order (some may have been deleted since). */
    public List<String> jobIds() {
        return status.jobIds();
    }

    public Batch withStatus(BatchStatus s, StatusReport report, int version, LockOwner owner) {
        return new Batch(id, submission, s, report, counts, version, owner, ended, createdAt);
    }
}
