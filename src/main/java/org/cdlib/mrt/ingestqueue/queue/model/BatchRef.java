package org.cdlib.mrt.ingestqueue.queue.model;

import java.util.Locale;

/**
 * The categories of {@code /batches/BID/states/batch-<category>/JID}: a job is listed under
 * processing while it is in any non-final state (held included), then under completed or
 * failed. The batch reports when its processing category is empty. A job mrt-zk's clients set to
 * Deleted (the Admin Tool's delete) is listed under deleted until it is removed; this queue's own
 * deletion removes a job's nodes at once.
 */
public enum BatchRef {
    PROCESSING, COMPLETED, FAILED, DELETED;

    public String node() {
        return "batch-" + name().toLowerCase(Locale.ROOT);
    }
}
