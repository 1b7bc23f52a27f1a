package org.cdlib.mrt.ingestqueue.history;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether history's database answers, as the calls found it, and which batches wait in ZooKeeper
 * because it did not: what health and the dashboard say while the database is down or full.
 */
public final class HistoryStatus {
    private static final Logger LOG = LoggerFactory.getLogger(HistoryStatus.class);
    private volatile String error;
    private volatile Instant since;
    private volatile Instant lastReached;
    private final Set<String> waiting = ConcurrentHashMap.newKeySet();

    void reached(String where) {
        lastReached = Instant.now();
        if (error != null) {
            LOG.info("history {}: reachable again (down since {}); finished work waiting in ZooKeeper follows", where,
                    since);
        }
        error = null;
        since = null;
    }

    void failed(String where, String why) {
        if (error == null) {
            since = Instant.now();
            // one line when it goes down, one when it comes back: not one a call
            LOG.warn("history {}: cannot be reached ({}); finished work stays in ZooKeeper until it can", where, why);
        }
        error = why;
    }

    public boolean up() {
        return error == null;
    }

    /** A finished batch kept in ZooKeeper because history could not take it (bounded: what the cleanup looked at). */
    public void waiting(String bid) {
        if (waiting.size() < 10_000) {
            waiting.add(bid);
        }
    }

    public void handedOver(String bid) {
        waiting.remove(bid);
    }

    public int waitingCount() {
        return waiting.size();
    }

    /** For health and the dashboard. */
    public Map<String, Object> view(String where) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("status", up() ? "UP" : "DOWN");
        m.put("database", where);
        if (!up()) {
            m.put("error", error);
            m.put("since", since == null ? null : since.toString());
        }
        m.put("last_reached", lastReached == null ? null : lastReached.toString());
        m.put("batches_waiting", waiting.size());
        return m;
    }
}
