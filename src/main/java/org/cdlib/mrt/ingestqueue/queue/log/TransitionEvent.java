package org.cdlib.mrt.ingestqueue.queue.log;

import java.time.Instant;

/** A state change that was committed; handed to listeners (metrics, live dashboard). */
public record TransitionEvent(
        String kind, String id, String batchId, String from, String to, String reason, Instant at) {
    public static final String JOB = "job";
    public static final String BATCH = "batch";
}
