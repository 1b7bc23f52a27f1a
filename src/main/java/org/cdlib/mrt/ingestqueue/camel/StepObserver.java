package org.cdlib.mrt.ingestqueue.camel;

import java.time.Duration;

/** Told how long each run of a zkqueue route took and whether it failed (metrics). Any bean of this type is used. */
public interface StepObserver {
    void stepEnded(String queue, Duration took, boolean failed);

    /** The same, naming the job or batch (a benchmark splits a job's time in a state into waiting and working). */
    default void stepEnded(String queue, String id, Duration took, boolean failed) {
        stepEnded(queue, took, failed);
    }

    /**
     * The same, with the job's profile as its lock read it (null for a batch, or a job whose configuration names
     * none): step times per profile (issue 45).
     */
    default void stepEnded(String queue, String id, String profile, Duration took, boolean failed) {
        stepEnded(queue, id, took, failed);
    }
}
