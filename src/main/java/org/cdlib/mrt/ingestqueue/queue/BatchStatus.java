package org.cdlib.mrt.ingestqueue.queue;

import com.fasterxml.jackson.annotation.JsonAlias;

/**
 * {@code /batches/BID/status}.
 *
 * @param jobsCreated  how many jobs Batch Pending has created so far: a large batch's jobs are
 *                     created in windows, and creation resumes from here after a crash
 * @param message      why the batch could not be turned into jobs, if it could not (mrt-zk's {@code message}: empty
 *                     when there is none)
 * @param firstJob     the number of the batch's first job id: a batch reserves one run of ids
 *                     ({@code firstJob .. firstJob + jobsTotal - 1}) when its first jobs are created,
 *                     so its jobs are found by number, never by listing
 * @param jobsTotal    how many jobs the batch will have, once known
 * @param cursor       where Batch Pending goes on reading the submission (a manifest's byte offset)
 */
public record BatchStatus(String status, @JsonAlias("last_modification_date") String lastModified, int jobsCreated,
                          @JsonAlias("error_message") String message,
                          Long firstJob, Integer jobsTotal, Long cursor) {

    public BatchStatus {
        status = normal(status);
        message = message == null ? "" : QueueLimits.errorMessage(message);
    }

    public static BatchStatus pending() {
        return new BatchStatus(BatchState.PENDING.zk(), QueueTime.now(), 0, null, null, null, null);
    }

    /** A known state in mrt-zk's spelling; anything else is kept as it is (and named damaged when read). */
    private static String normal(String state) {
        try {
            return state == null ? null : BatchState.fromWire(state).zk();
        } catch (IllegalArgumentException e) {
            return state;
        }
    }

    /** Why the batch could not be made into jobs; null when nothing went wrong. */
    public String errorMessage() {
        return message.isEmpty() ? null : message;
    }

    public BatchState state() {
        return BatchState.fromWire(status);
    }

    /** The same batch in another state; {@code error} null keeps the message it had. */
    public BatchStatus moved(BatchState to, String error) {
        return new BatchStatus(to.zk(), QueueTime.now(), jobsCreated, error != null ? error : message,
                firstJob, jobsTotal, cursor);
    }

    BatchStatus created(int jobsCreated, long firstJob, int jobsTotal, Long cursor) {
        return new BatchStatus(status, QueueTime.now(), jobsCreated, message, firstJob, jobsTotal, cursor);
    }

    /** Whether every job the batch will have exists. */
    public boolean allJobsCreated() {
        return jobsTotal != null && jobsCreated >= jobsTotal;
    }
}
