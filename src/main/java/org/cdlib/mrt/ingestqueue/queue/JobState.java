package org.cdlib.mrt.ingestqueue.queue;

import java.util.Locale;

/**
 * The states of a job, in pipeline order first. The wire name (lowercase) is what is
 * stored in {@code /jobs/JID/status} and in {@code /jobs/states/<state>}.
 */
public enum JobState {
    PENDING, ESTIMATING, PROVISIONING, DOWNLOADING, PROCESSING, RECORDING, NOTIFY, COMPLETED,
    HELD, FAILED, DELETED;

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static JobState fromWire(String value) {
        for (JobState s : values()) {
            if (s.wire().equals(value)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown job state '" + value + "'");
    }

    /** The next state of the pipeline on success; null for states outside the pipeline. */
    public JobState successor() {
        return switch (this) {
            case PENDING -> ESTIMATING;
            case ESTIMATING -> PROVISIONING;
            case PROVISIONING -> DOWNLOADING;
            case DOWNLOADING -> PROCESSING;
            case PROCESSING -> RECORDING;
            case RECORDING -> NOTIFY;
            case NOTIFY -> COMPLETED;
            default -> null;
        };
    }

    /** A state a consumer works on (pending through notify). */
    public boolean isWorking() {
        return successor() != null;
    }

    /**
     * Where a requeued or released job resumes: the state after its last successful one,
     * or pending when nothing succeeded yet.
     */
    public static JobState resumeAfter(JobState lastSuccessful) {
        return lastSuccessful == null ? PENDING : lastSuccessful.successor();
    }

    /** The batch reference category a job in this state is listed under. */
    public BatchRef batchRef() {
        return switch (this) {
            case COMPLETED -> BatchRef.COMPLETED;
            case FAILED -> BatchRef.FAILED;
            case DELETED -> null;
            default -> BatchRef.PROCESSING;
        };
    }

    @Override
    public String toString() {
        return wire();
    }
}
