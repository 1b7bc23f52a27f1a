package org.cdlib.mrt.ingestqueue.queue;

import java.util.List;
import java.util.Map;

/**
 * A batch as read from ZooKeeper.
 *
 * @param jobs the job ids listed under each {@code /batches/BID/states/batch-*} category
 */
public record Batch(
        String id,
        BatchSubmission submission,
        BatchStatus status,
        StatusReport statusReport,
        Map<BatchRef, List<String>> jobs,
        int statusVersion,
        LockOwner lockOwner) {

    public BatchState state() {
        return status.state();
    }

    public List<String> jobs(BatchRef ref) {
        return jobs.getOrDefault(ref, List.of());
    }

    public int jobCount() {
        return jobs.values().stream().mapToInt(List::size).sum();
    }
}
