package org.cdlib.mrt.ingestqueue.queue;

/**
 * What a transition writes besides the state: why (for the log), and optionally a new
 * priority, a new space estimate, or the error of a failure.
 */
public record Change(String reason, Integer priority, Long spaceNeeded, String errorMessage) {

    public static Change because(String reason) {
        return new Change(reason, null, null, null);
    }

    public static Change failure(String errorMessage) {
        return new Change(errorMessage, null, null, errorMessage);
    }

    public Change withPriority(int p) {
        return new Change(reason, QueuePaths.checkPriority(p), spaceNeeded, errorMessage);
    }

    public Change withSpaceNeeded(long bytes) {
        return new Change(reason, priority, bytes, errorMessage);
    }
}
