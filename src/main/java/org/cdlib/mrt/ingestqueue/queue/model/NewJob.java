package org.cdlib.mrt.ingestqueue.queue.model;

/**
 * A job to create for a batch; its id and working directory are assigned at creation.
 *
 * @param cursor where the batch's submission is read on after this job (a manifest's byte
 *               offset), kept in the batch status with the job so creation resumes after it
 */
public record NewJob(JobConfiguration configuration, Identifiers identifiers, int priority, Long cursor) {
    public NewJob {
        QueuePaths.checkPriority(priority);
    }

    public NewJob(JobConfiguration configuration, Identifiers identifiers, int priority) {
        this(configuration, identifiers, priority, null);
    }
}
