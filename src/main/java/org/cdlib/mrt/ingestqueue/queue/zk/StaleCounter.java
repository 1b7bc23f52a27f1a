package org.cdlib.mrt.ingestqueue.queue.zk;

/**
 * Signals that a counter moved under us (or an id was taken by another writer, or a pipelined
 * transaction's answer was lost and it did not apply), so the draw is repeated from what is read.
 */
public final class StaleCounter extends RuntimeException {
    StaleCounter() {
        super(null, null, false, false);
    }
}
