package org.cdlib.mrt.ingestqueue.queue.model;

import java.util.Locale;

/**
 * The states of a job, in pipeline order first. {@link #zk()} (mrt-zk's enum name, {@code Pending})
 * is what {@code /jobs/JID/status} holds; {@link #wire()} (lower case) names the folder
 * {@code /jobs/states/<state>}, as mrt-zk does, and is the name the API, logs and history use.
 */
public enum JobState {
    // mrt-zk's states.yml has Storing between Processing and Recording: the storage add is a state of its own
    PENDING, ESTIMATING, PROVISIONING, DOWNLOADING, PROCESSING, STORING, RECORDING, NOTIFY, COMPLETED,
    HELD, FAILED, DELETED;

    public String wire() {
        return wireName;
    }

    /** The name in a status node: mrt-zk's enum name ({@code Pending}, {@code Notify}). */
    public String zk() {
        return zkName;
    }

    private final String zkName = name().charAt(0) + name().substring(1).toLowerCase(Locale.ROOT);
    private final String wireName = name().toLowerCase(Locale.ROOT);

    /** A state named either way (mrt-zk's {@code Pending}, or lower case as the API and older nodes have it). */
    public static JobState fromWire(String value) {
        for (JobState s : values()) {
            if (s.wire().equals(value) || s.zk().equals(value)) {
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
            case PROCESSING -> STORING;
            case STORING -> RECORDING;
            case RECORDING -> NOTIFY;
            case NOTIFY -> COMPLETED;
            default -> null;
        };
    }

    /** The state whose success leads here; null for pending and the states outside the pipeline. */
    public JobState predecessor() {
        for (JobState s : values()) {
            if (s.successor() == this) {
                return s;
            }
        }
        return null;
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
        // mrt-zk may leave Held or Failed there (its Java client records the state a requeue left)
        return lastSuccessful == null || lastSuccessful.successor() == null ? PENDING : lastSuccessful.successor();
    }

    /** The batch reference category a job in this state is listed under. */
    public BatchRef batchRef() {
        return switch (this) {
            case COMPLETED -> BatchRef.COMPLETED;
            case FAILED -> BatchRef.FAILED;
            case DELETED -> BatchRef.DELETED;
            default -> BatchRef.PROCESSING;
        };
    }

    @Override
    public String toString() {
        return wire();
    }
}
