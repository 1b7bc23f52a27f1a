package org.cdlib.mrt.ingestqueue.queue;

import java.time.Instant;

/**
 * {@code /batches/BID/status}.
 *
 * @param jobsCreated  how many jobs Batch Pending has created so far: a large batch's jobs are
 *                     created in windows, and creation resumes from here after a crash
 * @param errorMessage why the batch could not be turned into jobs, if it could not
 * @param firstJob     the number of the batch's first job id: a batch reserves one run of ids
 *                     ({@code firstJob .. firstJob + jobsTotal - 1}) when its first jobs are created,
 *                     so its jobs are found by number, never by listing
 * @param jobsTotal    how many jobs the batch will have, once known
 * @param cursor       where Batch Pending goes on reading the submission (a manifest's byte offset)
 */
public record BatchStatus(String status, String lastModified, int jobsCreated, String errorMessage,
                          Long firstJob, Integer jobsTotal, Long cursor) {

    public BatchStatus {
        errorMessage = QueueLimits.errorMessage(errorMessage);
    }

    public static BatchStatus pending() {
        return new BatchStatus(BatchState.PENDING.wire(), Instant.now().toString(), 0, null, null, null, null);
    }

    public BatchState state() {
        return BatchState.fromWire(status);
    }

    /** The same batch in another state; {@code error} null keeps the message it had. */
    public BatchStatus moved(BatchState to, String error) {
        return new BatchStatus(to.wire(), Instant.now().toString(), jobsCreated, error != null ? error : errorMessage,
                firstJob, jobsTotal, cursor);
    }

    BatchStatus created(int jobsCreated, long firstJob, int jobsTotal, Long cursor) {
        return new BatchStatus(status, Instant.now().toString(), jobsCreated, errorMessage, firstJob, jobsTotal, cursor);
    }

    /** Whether every job the batch will have exists. */
    public boolean allJobsCreated() {
        return jobsTotal != null && jobsCreated >= jobsTotal;
    }
}
