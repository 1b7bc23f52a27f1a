package org.cdlib.mrt.ingestqueue.queue;

/** A job to create for a batch; its id and working directory are assigned at creation. */
public record NewJob(JobConfiguration configuration, Identifiers identifiers, int priority) {
    public NewJob {
        QueuePaths.checkPriority(priority);
    }
}
