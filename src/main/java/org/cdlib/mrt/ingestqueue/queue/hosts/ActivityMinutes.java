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
 * Beside them, each host's latest step times and its workers per state, and per profile ({@code
 * /activity/steps/<host>}, one node of at most 8 KB a host, rewritten in place; one not rewritten for {@link
 * #KEPT_MINUTES} is deleted):
 * the batches' estimates read every host's, so a host's work counts everywhere and outlives its restart.
 */
public final class ActivityMinutes {
    public static final int KEPT_MINUTES = 360;
    private final ZooKeeperCalls zk;

    public ActivityMinutes(ZooKeeperCalls zk) {
        this.zk = zk;
    }

    public static final String STEPS = ACTIVITY + "/steps";
    /** Each host's last checked estimates' errors ({@code /activity/errors/<host>}, under 1 KB a host). */
    public static final String ERRORS = ACTIVITY + "/errors";
    /** The most hosts' step nodes read for one answer (a cluster has a handful; older ones are deleted). */
    static final int MAX_STEP_HOSTS = 50;

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

    /** Writes this host's step times in place of its last ones; refused (left as it was) when oversized. */
    public void writeSteps(String host, Map<String, Object> figures) {
        writeHost(STEPS, "step times", host, figures);
    }

    /** Writes the errors of the estimates this host checked in place of its last ones (as {@link #writeSteps}). */
    public void writeErrors(String host, Map<String, Object> figures) {
        writeHost(ERRORS, "estimates' errors", host, figures);
    }

    private void writeHost(String folder, String what, String host, Map<String, Object> figures) {
        String p = folder + "/" + host;
        byte[] data = QueueJson.write(figures);
        if (data.length > QueueLimits.nodeBytes(p)) {
            return;
        }
        if (!zk.exists(p)) {
            zk.createPersistent(p, data);
            return;
        }
        zk.commitUnlocked("write the " + what + " of host " + host, List.of(ZooKeeperCalls.setData(p, data, -1)));
    }

    /** Every host's step node, by host id (damaged ones left out); at most {@link #MAX_STEP_HOSTS}. */
    public Map<String, JsonNode> readSteps() {
        return readHosts(STEPS);
    }

    /** Every host's node of checked estimates' errors, by host id, as {@link #readSteps}. */
    public Map<String, JsonNode> readErrors() {
        return readHosts(ERRORS);
    }

    private Map<String, JsonNode> readHosts(String folder) {
        List<String> paths = new ArrayList<>();
        for (String h : zk.children(folder)) {
            if (paths.size() < MAX_STEP_HOSTS) {
                paths.add(folder + "/" + h);
            }
        }
        Map<String, JsonNode> out = new LinkedHashMap<>();
        if (paths.isEmpty()) {
            return out;
        }
        Map<String, OpResult> r = zk.readMany(paths);
        for (String p : paths) {
            OpResult.GetDataResult d = ZooKeeperCalls.dataOf(r.get(p));
            JsonNode j = d == null ? null : QueueJson.treeOrNull(d.getData());
            if (j != null && j.isObject()) {
                out.put(p.substring(folder.length() + 1), j);
            }
        }
        return out;
    }

    /** Deletes a host's step node (one no host has rewritten for {@link #KEPT_MINUTES}). */
    public void dropSteps(String host) {
        zk.deleteIfExists(STEPS + "/" + host);
    }

    /** Deletes a host's node of errors (one not rewritten for {@link #KEPT_MINUTES}). */
    public void dropErrors(String host) {
        zk.deleteIfExists(ERRORS + "/" + host);
    }
}
