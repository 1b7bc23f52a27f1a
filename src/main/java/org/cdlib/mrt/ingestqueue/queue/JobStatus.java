package org.cdlib.mrt.ingestqueue.queue;

import java.time.Instant;

/** {@code /jobs/JID/status}. Timestamps are ISO-8601 UTC. */
public record JobStatus(
        String status,
        String lastSuccessfulStatus,
        String lastModificationDate,
        int retryCount,
        String errorMessage) {

    public JobStatus {
        errorMessage = QueueLimits.errorMessage(errorMessage);
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
