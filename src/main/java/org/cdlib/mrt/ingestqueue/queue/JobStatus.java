package org.cdlib.mrt.ingestqueue.queue;

import java.time.Instant;
import java.util.List;

/**
 * {@code /jobs/JID/status}. Timestamps are ISO-8601 UTC. {@code history} holds the job's last
 * transitions ({@link JobHistory}), written with each move; nodes written before it existed have none.
 */
public record JobStatus(
        String status,
        String lastSuccessfulStatus,
        String lastModificationDate,
        int retryCount,
        String errorMessage,
        List<JobHistory.Entry> history) {

    public JobStatus {
        errorMessage = QueueLimits.errorMessage(errorMessage);
        history = history == null ? List.of() : List.copyOf(history);
    }

    public JobStatus(String status, String lastSuccessfulStatus, String lastModificationDate, int retryCount,
                     String errorMessage) {
        this(status, lastSuccessfulStatus, lastModificationDate, retryCount, errorMessage, List.of());
    }

    public static JobStatus pending() {
        return new JobStatus(JobState.PENDING.wire(), null, Instant.now().toString(), 0, null);
    }

    public JobState state() {
        return JobState.fromWire(status);
    }

    public JobState lastSuccessful() {
        return lastSuccessfulStatus == null ? null : JobState.fromWire(lastSuccessfulStatus);
    }
}
