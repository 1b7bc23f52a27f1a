package org.cdlib.mrt.ingestqueue.queue.model;

/**
 * What a transition writes besides the state: why (for the log), and optionally a new
 * priority, a new space estimate, the error of a failure, or what an admission to downloading
 * allows the disk reservation to be (checked by the transition's transaction).
 */
public record Change(String reason, Integer priority, Long spaceNeeded, String errorMessage, Long admission,
        HeldBy heldBy, JobState resumeAt) {

    public Change(String reason, Integer priority, Long spaceNeeded, String errorMessage, Long admission) {
        this(reason, priority, spaceNeeded, errorMessage, admission, null, null);
    }

    public Change(String reason, Integer priority, Long spaceNeeded, String errorMessage) {
        this(reason, priority, spaceNeeded, errorMessage, null);
    }

    /**
     * A worker stops the job in held for {@code hold} (issue 45); its release resumes it at {@code resumeAt}: the
     * state it waited in, or the one after the step it just finished. The move checks the hold's node exists.
     */
    public static Change stoppedBy(HeldBy hold, JobState resumeAt) {
        return new Change("stopped by " + hold + "; resumes at " + resumeAt.wire(), null, null, null, null, hold,
                resumeAt);
    }

    public static Change because(String reason) {
        return new Change(reason, null, null, null);
    }

    public static Change failure(String errorMessage) {
        return new Change(errorMessage, null, null, errorMessage);
    }

    public Change withPriority(int p) {
        return new Change(reason, QueuePaths.checkPriority(p), spaceNeeded, errorMessage, admission, heldBy,
                resumeAt);
    }

    public Change withSpaceNeeded(long bytes) {
        return new Change(reason, priority, bytes, errorMessage, admission, heldBy, resumeAt);
    }

    /**
     * Admitted to downloading while the disk reservation is at most {@code bytes}: the move checks
     * that against the reservation it commits on, and fails with {@link SpaceReservation.Conflict}
     * when the job no longer fits.
     */
    public Change admittedWhileReservedAtMost(long bytes) {
        return new Change(reason, priority, spaceNeeded, errorMessage, bytes, heldBy, resumeAt);
    }
}
