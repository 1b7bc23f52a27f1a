package org.cdlib.mrt.ingestqueue.queue;

/**
 * What a transition writes besides the state: why (for the log), and optionally a new
 * priority, a new space estimate, the error of a failure, or the disk reservation an admission
 * to downloading was decided on (checked by the transition's transaction).
 */
public record Change(String reason, Integer priority, Long spaceNeeded, String errorMessage, SpaceReservation admission) {

    public Change(String reason, Integer priority, Long spaceNeeded, String errorMessage) {
        this(reason, priority, spaceNeeded, errorMessage, null);
    }

    public static Change because(String reason) {
        return new Change(reason, null, null, null);
    }

    public static Change failure(String errorMessage) {
        return new Change(errorMessage, null, null, errorMessage);
    }

    public Change withPriority(int p) {
        return new Change(reason, QueuePaths.checkPriority(p), spaceNeeded, errorMessage, admission);
    }

    public Change withSpaceNeeded(long bytes) {
        return new Change(reason, priority, bytes, errorMessage, admission);
    }

    /** Admitted to downloading against this reservation: the move fails with a conflict if it changed meanwhile. */
    public Change admittedAgainst(SpaceReservation reservation) {
        return new Change(reason, priority, spaceNeeded, errorMessage, reservation);
    }
}
