package org.cdlib.mrt.ingestqueue.queue.model;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * {@code /jobs/JID/status}, in mrt-zk's form: {@code status} (its enum name), {@code
 * last_successful_status} (null until a step succeeded), {@code last_modified} ({@link QueueTime}),
 * {@code retry_count}, {@code message} (empty, not null, when there is none). {@code history}
 * holds the job's last transitions ({@link JobHistory}): a field of ours, which mrt-zk keeps as it
 * copies the old object on each change. Nodes of the form this queue wrote before are read too.
 * {@code summary}, also ours and only in a completed job's status, holds what its completion
 * removed ({@link JobSummary}). {@code held_by}, ours too, says which hold stopped a held job ({@link HeldBy}).
 */
public record JobStatus(
        String status,
        @JsonInclude(JsonInclude.Include.ALWAYS) String lastSuccessfulStatus,
        @JsonAlias("last_modification_date") String lastModified,
        int retryCount,
        @JsonAlias("error_message") String message,
        List<JobHistory.Entry> history,
        @JsonInclude(JsonInclude.Include.NON_NULL) JobSummary summary,
        @JsonInclude(JsonInclude.Include.NON_NULL) HeldBy heldBy) {

    public JobStatus {
        status = normal(status);
        lastSuccessfulStatus =
                lastSuccessfulStatus == null || lastSuccessfulStatus.isEmpty() ? null : normal(lastSuccessfulStatus);
        message = message == null ? "" : QueueLimits.errorMessage(message);
        history = history == null ? List.of() : List.copyOf(history);
    }

    public JobStatus(String status, String lastSuccessfulStatus, String lastModified, int retryCount, String message) {
        this(status, lastSuccessfulStatus, lastModified, retryCount, message, List.of(), null, null);
    }

    public JobStatus(String status, String lastSuccessfulStatus, String lastModified, int retryCount, String message,
                     List<JobHistory.Entry> history) {
        this(status, lastSuccessfulStatus, lastModified, retryCount, message, history, null, null);
    }

    public JobStatus(String status, String lastSuccessfulStatus, String lastModified, int retryCount, String message,
                     List<JobHistory.Entry> history, JobSummary summary) {
        this(status, lastSuccessfulStatus, lastModified, retryCount, message, history, summary, null);
    }

    /** The hold that stopped this job, while it is as that hold's move left it (its status at {@code version}). */
    public HeldBy stoppedByHold(int version) {
        return state() == JobState.HELD && heldBy != null && heldBy.stoppedAt(version) ? heldBy : null;
    }

    /** A known state in mrt-zk's spelling; anything else is kept as it is (and named damaged when read). */
    private static String normal(String state) {
        try {
            return state == null ? null : JobState.fromWire(state).zk();
        } catch (IllegalArgumentException e) {
            return state;
        }
    }

    public static JobStatus pending() {
        return new JobStatus(JobState.PENDING.zk(), null, QueueTime.now(), 0, null);
    }

    public JobState state() {
        return JobState.fromWire(status);
    }

    public JobState lastSuccessful() {
        return lastSuccessfulStatus == null ? null : JobState.fromWire(lastSuccessfulStatus);
    }

    /** The failure's message; null when there is none. */
    public String errorMessage() {
        return message.isEmpty() ? null : message;
    }
}
