package org.cdlib.mrt.ingestqueue.camel;

import java.time.Duration;

/** Told how long each run of a zkqueue route took and whether it failed (metrics). Any bean of this type is used. */
public interface StepObserver {
    void stepEnded(String queue, Duration took, boolean failed);
}
