package org.cdlib.mrt.ingestqueue.queue.zk;

/** Signals that a counter moved under us (or an id was taken by another writer), so the draw is repeated. */
public final class StaleCounter extends RuntimeException {
    StaleCounter() {
        super(null, null, false, false);
    }
}
