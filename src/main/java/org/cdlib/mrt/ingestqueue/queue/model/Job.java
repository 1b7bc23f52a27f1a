package org.cdlib.mrt.ingestqueue.queue.model;

/**
 * A job as read from ZooKeeper in one consistent read.
 *
 * @param statusVersion the version of {@code /jobs/JID/status} read, checked by the next transition
 * @param lockOwner     who holds {@code /jobs/JID/lock}, or null when nobody does
 */
public record Job(
        String id,
        String batchId,
        JobConfiguration configuration,
        JobStatus status,
        int priority,
        long spaceNeeded,
        Identifiers identifiers,
        int statusVersion,
        LockOwner lockOwner) {

    public JobState state() {
        return status.state();
    }

    public String refName() {
        return QueuePaths.refName(priority, id);
    }
}
