package org.cdlib.mrt.ingestqueue.testing.merritt;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.text.SimpleDateFormat;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import org.apache.zookeeper.ZooKeeper;

/**
 * A second writer that does exactly what CDL's mrt-zk (CDLUC3/mrt-zk at f113b84) does on the
 * wire, as one neighbour: its Java's reads with their strictness (enum names by {@code valueOf},
 * {@code retry_count} an int, numbers parsed whole) are here; its writes are made by the one stand-in
 * of the tool that makes them ({@link MrtZkDaemon} for the Java's creates and locks,
 * {@link MrtZkAdminTool} for the Ruby client's {@code set_status} and requeue). None of its code is used.
 */
public final class MrtZk {
    public static final List<String> JOB_STATES = List.of("Pending", "Held", "Estimating", "Provisioning",
            "Downloading", "Processing", "Storing", "Recording", "Notify", "Failed", "Completed", "Deleted");
    public static final List<String> BATCH_STATES = List.of("Pending", "Held", "Processing", "Reporting", "Failed",
            "UpdateReporting", "Completed", "Deleted");
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ZooKeeper zk;
    private final MrtZkDaemon daemon;
    private final MrtZkAdminTool adminTool;

    public MrtZk(ZooKeeper zk) {
        this.zk = zk;
        this.daemon = new MrtZkDaemon(zk);
        this.adminTool = new MrtZkAdminTool(zk);
    }

    public static String now() {
        return new SimpleDateFormat("yyyy-MM-dd HH:mm:ss Z", Locale.ROOT).format(new Date());
    }

    public String text(String path) throws Exception {
        return new String(zk.getData(path, false, null), StandardCharsets.UTF_8);
    }

    public JsonNode json(String path) throws Exception {
        return JSON.readTree(zk.getData(path, false, null));
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
        return new Loaded(
                status,
                lss,
                s.get("retry_count").intValue(),
                Integer.parseInt(text(p + "/priority")),
                Long.parseLong(text(p + "/space_needed")),
                text(p + "/bid"),
                ids == null ? null : ids.get("primary_id").textValue(),
                ids == null
                        ? null
                        : JSON.convertValue(
                                ids.get("local_id"),
                                JSON.getTypeFactory().constructCollectionType(List.class, String.class)));
    }

    public String batchStatus(String bid) throws Exception {
        String status = json("/batches/" + bid + "/status").get("status").textValue();
        if (!BATCH_STATES.contains(status)) {
            throw new IllegalArgumentException("No enum constant BatchState." + status);
        }
        return status;
    }

    /** {@code Batch.createBatch} ({@link MrtZkDaemon#createBatch}). */
    public String createBatch(String uuid, String submission) throws Exception {
        return daemon.createBatch(uuid, submission);
    }

    /** {@code Job.createJob} ({@link MrtZkDaemon#createJob}). */
    public String createJob(String bid, int priority, String configuration, String identifiers) throws Exception {
        return daemon.createJob(bid, priority, configuration, identifiers);
    }

    /** {@code QueueItem.lock} ({@link MrtZkDaemon#lock}): false when held. */
    public boolean lock(String itemPath) throws Exception {
        return daemon.lock(itemPath);
    }

    /** {@code QueueItem.unlock} ({@link MrtZkDaemon#unlock}): deletes the lock whoever holds it. */
    public void unlock(String itemPath) throws Exception {
        daemon.unlock(itemPath);
    }

    /** The Admin Tool's {@code set_status} on a job ({@link MrtZkAdminTool#setJobStatus}), no transition check. */
    public void setJobStatus(String jid, String to, String message, boolean retry) throws Exception {
        adminTool.setJobStatus(adminTool.loadJob(jid), to, message, retry);
    }

    /** The Admin Tool's requeue ({@link MrtZkAdminTool#requeueJob}). */
    public void requeue(String jid) throws Exception {
        adminTool.requeueJob(jid);
    }
}
