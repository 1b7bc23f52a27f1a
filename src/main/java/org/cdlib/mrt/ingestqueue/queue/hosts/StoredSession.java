package org.cdlib.mrt.ingestqueue.queue.hosts;

import java.util.Map;

/**
 * A dashboard session as stored ({@link SessionNodes}): {@code used}
 * and {@code idle} in milliseconds, {@code version} its node's.
 */
public record StoredSession(String id, String user, Map<String, String> data, long used, long idle, int version) {
    public boolean expiredAt(long now) {
        return used + idle < now;
    }
}
