package org.cdlib.mrt.ingestqueue.testing.merritt;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.text.SimpleDateFormat;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * A second writer that does exactly what CDL's mrt-zk (CDLUC3/mrt-zk at f113b84) does on the
 * wire: single calls in its order (no multi), its values and encodings, its reads with its
 * strictness (enum names by {@code valueOf}, {@code retry_count} an int, numbers parsed whole). The
 * facts are from mrt-zk's Java {@code Batch}, {@code Job}, {@code QueueItem} and its Ruby client
 * (the Admin Tool's); none of its code is used.
 */
public final class MrtZk {
    public static final List<String> JOB_STATES = List.of("Pending", "Held", "Estimating", "Provisioning",
            "Downloading", "Processing", "Storing", "Recording", "Notify", "Failed", "Completed", "Deleted");
    public static final List<String> BATCH_STATES = List.of("Pending", "Held", "Processing", "Reporting", "Failed",
            "UpdateReporting", "Completed", "Deleted");
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ZooKeeper zk;

    public MrtZk(ZooKeeper zk) {
        this.zk = zk;
    }

    public static String now() {
        return new SimpleDateFormat("yyyy-MM-dd HH:mm:ss Z", Locale.ROOT).format(new Date());
    }

    private void create(String path, String data, CreateMode mode) throws Exception {
        zk.create(path, data == null ? new byte[0] : data.getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE, mode);
    }

    private void ensure(String path) throws Exception {
        try {
            create(path, null, CreateMode.PERSISTENT);
        } catch (KeeperException.NodeExistsException e) {
            // there
        }
    }

    public String text(String path) throws Exception {
        return new String(zk.getData(path, false, null), StandardCharsets.UTF_8);
    }

    public JsonNode json(String path) throws Exception {
        return JSON.readTree(zk.getData(path, false, null));
    }

    /** {@code Batch.createBatch}: the sequential root, its uuid, submission and Pending status; no states node, no lock. */
    public String createBatch(String uuid, String submission) throws Exception {
        ensure("/batch-uuids");
        String path = zk.create("/batches/bid", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL);
        String bid = path.substring("/batches/".length());
        create("/batch-uuids/" + uuid, bid, CreateMode.PERSISTENT);
        create(path + "/submission", submission, CreateMode.PERSISTENT);
        create(path + "/status", "{\"message\":\"\",\"last_modified\":\"" + now() + "\",\"status\":\"Pending\"}", CreateMode.PERSISTENT);
        return bid;
    }

    /** A submission as mrt-ingest's {@code batchProcess.HandlerSubmit} writes it. */
    public static String submission(String uuid, String file) {
        return "{\"submitter\":\"merritt/Merritt Depositor\",\"filename\":\"" + file + "\","
                + "\"notificationFormat\":\"xml\",\"size\":5,\"profile\":\"demo_content\",\"update\":false,"
                + "\"submissionDate\":\"Tue Nov 24 10:00:00 UTC 2026\","
                + "\"batchID\":\"" + uuid + "\",\"type\":\"file\",\"title\":\"A greeting\",\"creator\":\"Someone\","
                + "\"localID\":\"greeting-1\"}";
    }

    /** {@code Batch.findByUuid}: the BID its {@code /batch-uuids} node names, the batch loaded (null when none). */
    public String findByUuid(String uuid) throws Exception {
        if (zk.exists("/batch-uuids/" + uuid, false) == null) {
            return null;
        }
        String bid = text("/batch-uuids/" + uuid);
        batchStatus(bid);
        json("/batches/" + bid + "/submission");
        return bid;
    }

    /** {@code Job.load} as mrt-zk's Java does it: fails as it fails on anything it cannot read. */
    public record Loaded(String status, String lastSuccessful, int retryCount, int priority, long spaceNeeded,
            String bid, String primaryId, List<String> localIds) {
    }

    public Loaded loadJob(String jid) throws Exception {
        String p = "/jobs/" + jid;
        JsonNode s = json(p + "/status");
        String status = s.get("status").textValue();
        if (!JOB_STATES.contains(status)) {
            throw new IllegalArgumentException("No enum constant JobState." + status);
        }
        if (!s.get("retry_count").isInt()) {
            throw new IllegalStateException("JSONObject[\"retry_count\"] is not an int");
        }
        String lss = s.get("last_successful_status").isNull() ? null : s.get("last_successful_status").textValue();
        if (lss != null && !JOB_STATES.contains(lss)) {
            throw new IllegalArgumentException("No enum constant JobState." + lss);
        }
        JsonNode ids = zk.exists(p + "/identifiers", false) == null ? null : json(p + "/identifiers");
        return new Loaded(status, lss, s.get("retry_count").intValue(), Integer.parseInt(text(p + "/priority")),
                Long.parseLong(text(p + "/space_needed")), text(p + "/bid"),
                ids == null ? null : ids.get("primary_id").textValue(),
                ids == null ? null : JSON.convertValue(ids.get("local_id"), JSON.getTypeFactory().constructCollectionType(List.class, String.class)));
    }

    public String batchStatus(String bid) throws Exception {
        String status = json("/batches/" + bid + "/status").get("status").textValue();
        if (!BATCH_STATES.contains(status)) {
            throw new IllegalArgumentException("No enum constant BatchState." + status);
        }
        return status;
    }

    /** {@code Job.createJob}: root, lock, bid, priority 5, space 0, configuration, identifiers, status, references, unlock. */
    public String createJob(String bid, int priority, String configuration, String identifiers) throws Exception {
        String path = zk.create("/jobs/jid", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL);
        String jid = path.substring("/jobs/".length());
        create(path + "/lock", null, CreateMode.EPHEMERAL);
        create(path + "/bid", bid, CreateMode.PERSISTENT);
        create(path + "/priority", "5", CreateMode.PERSISTENT);
        create(path + "/space_needed", "0", CreateMode.PERSISTENT);
        create(path + "/configuration", configuration, CreateMode.PERSISTENT);
        create(path + "/identifiers", identifiers, CreateMode.PERSISTENT);
        if (priority != 5) {
            zk.setData(path + "/priority", Integer.toString(priority).getBytes(StandardCharsets.UTF_8), -1);
        }
        create(path + "/status", "{\"retry_count\":0,\"last_successful_status\":null,\"message\":\"\",\"last_modified\":\""
                + now() + "\",\"status\":\"Pending\"}", CreateMode.PERSISTENT);
        ensure("/jobs/states/pending");
        create(String.format("/jobs/states/pending/%02d-%s", priority, jid), null, CreateMode.PERSISTENT);
        ensure("/batches/" + bid + "/states/batch-processing");
        ensure("/batches/" + bid + "/states/batch-processing/" + jid);
        zk.delete(path + "/lock", -1);
        return jid;
    }

    /** {@code lock()}: an exists check, then a 0-byte ephemeral create; false when held. */
    public boolean lock(String itemPath) throws Exception {
        if (zk.exists(itemPath + "/lock", false) != null) {
            return false;
        }
        try {
            create(itemPath + "/lock", null, CreateMode.EPHEMERAL);
            return true;
        } catch (KeeperException e) {
            return false;
        }
    }

    /** {@code unlock()}: deletes the lock whoever holds it, as mrt-zk does. */
    public void unlock(String itemPath) throws Exception {
        try {
            zk.delete(itemPath + "/lock", -1);
        } catch (KeeperException.NoNodeException e) {
            // not locked
        }
    }

    /**
     * The Admin Tool's {@code set_status} (Ruby mrt-zk): the status object copied with the new
     * status, {@code last_successful_status} the state left unless that was Failed or Deleted or
     * the new one is, {@code retry_count} + 1 on a retry, {@code last_modified} kept; then the
     * job's state reference and its batch reference moved.
     */
    public void setJobStatus(String jid, String to, String message, boolean retry) throws Exception {
        String p = "/jobs/" + jid;
        ObjectNode s = (ObjectNode) json(p + "/status");
        String from = s.get("status").textValue();
        if (!List.of("Failed", "Deleted").contains(to) && !List.of("Failed", "Deleted").contains(from) && !from.equals(to)) {
            s.put("last_successful_status", from);
        }
        s.put("status", to);
        s.put("message", message == null ? "" : message);
        if (retry) {
            s.put("retry_count", s.get("retry_count").intValue() + 1);
        }
        zk.setData(p + "/status", JSON.writeValueAsBytes(s), -1);
        int priority = Integer.parseInt(text(p + "/priority"));
        String bid = text(p + "/bid");
        zk.delete(String.format("/jobs/states/%s/%02d-%s", from.toLowerCase(Locale.ROOT), priority, jid), -1);
        ensure("/jobs/states/" + to.toLowerCase(Locale.ROOT));
        create(String.format("/jobs/states/%s/%02d-%s", to.toLowerCase(Locale.ROOT), priority, jid), null, CreateMode.PERSISTENT);
        String oldBucket = bucket(from);
        String newBucket = bucket(to);
        if (!oldBucket.equals(newBucket)) {
            zk.delete("/batches/" + bid + "/states/" + oldBucket + "/" + jid, -1);
            ensure("/batches/" + bid + "/states/" + newBucket);
            create("/batches/" + bid + "/states/" + newBucket + "/" + jid, null, CreateMode.PERSISTENT);
        }
    }

    /** The Admin Tool's requeue: the step after the last success, under the job's lock, counting a retry. */
    public void requeue(String jid) throws Exception {
        JsonNode s = json("/jobs/" + jid + "/status");
        String lss = s.get("last_successful_status").isNull() ? "" : s.get("last_successful_status").textValue();
        String next = switch (lss) {
            case "", "Pending" -> "Estimating";
            case "Estimating" -> "Provisioning";
            case "Provisioning" -> "Downloading";
            case "Downloading" -> "Processing";
            case "Processing" -> "Storing";
            case "Storing" -> "Recording";
            case "Recording" -> "Notify";
            default -> throw new IllegalStateException("no requeue after " + lss);
        };
        if (!lock("/jobs/" + jid)) {
            throw new IllegalStateException(jid + " is locked");
        }
        setJobStatus(jid, next, null, true);
        unlock("/jobs/" + jid);
    }

    private static String bucket(String state) {
        return switch (state) {
            case "Failed" -> "batch-failed";
            case "Completed" -> "batch-completed";
            case "Deleted" -> "batch-deleted";
            default -> "batch-processing";
        };
    }
}
