package org.cdlib.mrt.ingestqueue.queue.hosts;

import static org.cdlib.mrt.ingestqueue.queue.model.QueuePaths.ACTIVITY;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.OpResult;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * The dashboard's per-minute figures, shared by every host: {@code /activity/<epoch minute>}, one
 * small node a minute (jobs arrived per state, the minute's backlog sample), for the last
 * {@link #KEPT_MINUTES}. Every host sees every transition through its watches, so any host that
 * watched a whole minute can write it: the first one to create the node wins, the others find it
 * there. A host that starts reads them back, so its charts and rates survive a restart and are the
 * same behind a load balancer. Bounded: at most {@link #KEPT_MINUTES} nodes of at most 1 KB.
 */
public final class ActivityMinutes {
    public static final int KEPT_MINUTES = 360;
    private final ZooKeeperCalls zk;

    public ActivityMinutes(ZooKeeperCalls zk) {
        this.zk = zk;
    }

    static String path(long minute) {
        return ACTIVITY + "/" + minute;
    }

    /** Writes a minute this host watched whole, unless another host did; drops minutes older than the kept ones. */
    public void write(long minute, Map<String, Object> figures) {
        byte[] data = QueueJson.write(figures);
        if (data.length > QueueLimits.nodeBytes(path(minute))) {
            return; // never: a handful of counts; refused rather than written oversized
        }
        zk.createPersistent(path(minute), data);
        for (String old : zk.children(ACTIVITY)) {
            if (old.matches("\\d{1,12}") && Long.parseLong(old) < minute - KEPT_MINUTES) {
                zk.deleteIfExists(ACTIVITY + "/" + old);
            }
        }
    }

    /** The minutes {@code from} .. {@code to} (inclusive) that were written, by minute; damaged ones left out. */
    public Map<Long, JsonNode> read(long from, long to) {
        List<String> paths = new ArrayList<>();
        for (long m = Math.max(from, to - KEPT_MINUTES); m <= to; m++) {
            paths.add(path(m));
        }
        Map<String, OpResult> r = zk.readMany(paths);
        Map<Long, JsonNode> out = new LinkedHashMap<>();
        for (String p : paths) {
            OpResult.GetDataResult d = ZooKeeperCalls.dataOf(r.get(p));
            JsonNode j = d == null ? null : QueueJson.treeOrNull(d.getData());
            if (j != null && j.isObject()) {
                out.put(Long.parseLong(p.substring(ACTIVITY.length() + 1)), j);
            }
        }
        return out;
    }
}
