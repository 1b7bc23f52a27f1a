package org.cdlib.mrt.ingestqueue.queue;

import java.util.Locale;

/**
 * The categories of {@code /batches/BID/states/batch-<category>/JID}: a job is listed under
 * processing while it is in any non-final state (held included), then under completed or
 * failed. The batch reports when its processing category is empty.
 */
public enum BatchRef {
    PROCESSING, COMPLETED, FAILED;

    public String node() {
        return "batch-" + name().toLowerCase(Locale.ROOT);
    }
}
