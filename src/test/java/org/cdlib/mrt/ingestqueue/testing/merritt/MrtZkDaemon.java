package org.cdlib.mrt.ingestqueue.testing.merritt;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * Merritt's ingest daemons (mrt-ingest at 9b4523b: {@code BatchConsumer}, {@code BatchReportConsumer},
 * the job consumers) through mrt-zk's Java ({@code org.cdlib.mrt.zk.Batch}, {@code Job},
 * {@code QueueItem}, {@code QueueItemHelper} at f113b84), exactly as they call ZooKeeper: single calls
 * in their order, no multi, {@code setData(-1)}, the transition check of {@code states.yml}. Java's
 * {@code setJobStatePath}/{@code setBatchStatePath} compare paths with {@code ==}, so every status
 * change deletes the job's batch reference and creates it again, even within batch-processing:
 * that is kept. None of their code is used.
 */
public final class MrtZkDaemon {
    /** A job configuration as Merritt's batch consumer writes it. */
    public static final String CONFIGURATION = "{\"profile_name\":\"demo_content\",\"submitter\":\"merritt\","
            + "\"payload_url\":\"http://example.org/obj.zip\",\"payload_type\":\"container\","
            + "\"response_type\":\"json\"}";
    /** A batch submission as Merritt's front end writes it. */
    public static final String SUBMISSION = "{\"batchID\":\"bid-1\",\"profile\":\"demo_content\",\"type\":\"file\","
            + "\"filename\":\"a.txt\",\"update\":false,\"submitter\":\"merritt\"}";
    /** Identifiers of a job not yet minted. */
    public static final String NO_IDENTIFIERS = "{\"primary_id\":\"\",\"local_id\":[]}";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** states.yml, job_states: the moves mrt-zk's Java allows. */
    static final Map<String, List<String>> JOB_MOVES = Map.ofEntries(
            Map.entry("Pending", List.of("Held", "Estimating", "Failed")),
            Map.entry("Held", List.of("Pending", "Deleted")),
            Map.entry("Estimating", List.of("Provisioning", "Failed")),
            Map.entry("Provisioning", List.of("Downloading", "Failed")),
            Map.entry("Downloading", List.of("Processing", "Failed")),
            Map.entry("Processing", List.of("Storing", "Failed")),
            Map.entry("Storing", List.of("Recording", "Failed")),
            Map.entry("Recording", List.of("Notify", "Failed")),
            Map.entry("Notify", List.of("Completed", "Failed")),
            Map.entry("Completed", List.of()),
            Map.entry("Deleted", List.of()),
            Map.entry("Failed", List.of("Pending", "Estimating", "Provisioning", "Downloading", "Processing", "Storing",
                    "Recording", "Notify", "Deleted")));
    /** states.yml, batch_states. */
    static final Map<String, List<String>> BATCH_MOVES = Map.of(
            "Pending", List.of("Held", "Processing"),
            "Held", List.of("Pending", "Deleted"),
            "Processing", List.of("Reporting", "Failed"),
            "Reporting", List.of("Completed", "Failed"),
            "Completed", List.of(),
            "Deleted", List.of(),
            "Failed", List.of("UpdateReporting", "Deleted"),
            "UpdateReporting", List.of("Completed", "Failed"));

    private final ZooKeeper zk;

    public MrtZkDaemon(ZooKeeper zk) {
        this.zk = zk;
    }

    /** A job mrt-zk's Java holds after {@code acquireJob}/{@code load}. */
    public static final class DaemonJob {
        public final String id;
        public String status;
        public String bid;
        public int priority;
        int retryCount;
        String jobStatePath;
        String batchStatePath;

        DaemonJob(String id) {
            this.id = id;
        }

        public String path() {
            return "/jobs/" + id;
        }
    }

    private boolean exists(String p) throws Exception {
        return zk.exists(p, false) != null;
    }

    private String get(String p) throws Exception {
        return new String(zk.getData(p, false, null), StandardCharsets.UTF_8);
    }

    private void create(String p) throws Exception {
        zk.create(p, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }

    private void createNode(String path, String data, CreateMode mode) throws Exception {
        zk.create(
                path,
                data == null ? new byte[0] : data.getBytes(StandardCharsets.UTF_8),
                ZooDefs.Ids.OPEN_ACL_UNSAFE,
                mode);
    }

    private void ensure(String path) throws Exception {
        try {
            createNode(path, null, CreateMode.PERSISTENT);
        } catch (KeeperException.NodeExistsException e) {
            // there
        }
    }

    /** {@code QueueItemHelper.delete}: an exists check, then the delete. */
    private void deleteIfThere(String p) throws Exception {
        if (p != null && exists(p)) {
            try {
                zk.delete(p, -1);
            } catch (KeeperException.NoNodeException e) {
                // gone between the two: the helper retries and finds nothing
            }
        }
    }

    private void deleteAll(String p) throws Exception {
        if (!exists(p)) {
            return;
        }
        for (String c : zk.getChildren(p, false)) {
            deleteAll(p + "/" + c);
        }
        deleteIfThere(p);
    }

    /** {@code QueueItem.lock}: an exists check, then a 0-byte ephemeral; false when held or on any error. */
    public boolean lock(String itemPath) {
        try {
            if (zk.exists(itemPath + "/lock", false) != null) {
                return false;
            }
            zk.create(itemPath + "/lock", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    /** {@code QueueItem.unlock}: deletes the lock node, whoever made it. */
    public void unlock(String itemPath) throws Exception {
        deleteIfThere(itemPath + "/lock");
    }

    // ---- batches

    /**
     * {@code Batch.createBatch}: the sequential root, its uuid, submission and Pending status; no states node, no lock.
     */
    public String createBatch(String uuid, String submission) throws Exception {
        ensure("/batch-uuids");
        String path =
                zk.create("/batches/bid", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL);
        String bid = path.substring("/batches/".length());
        createNode("/batch-uuids/" + uuid, bid, CreateMode.PERSISTENT);
        createNode(path + "/submission", submission, CreateMode.PERSISTENT);
        createNode(
                path + "/status",
                "{\"message\":\"\",\"last_modified\":\"" + MrtZk.now() + "\",\"status\":\"Pending\"}",
                CreateMode.PERSISTENT);
        return bid;
    }


    private String batchStatus(String bid) throws Exception {
        return JSON.readTree(get("/batches/" + bid + "/status")).get("status").textValue();
    }

    /**
     * {@code QueueItem.setStatus} on a batch: the transition checked, the status rewritten with {@code setData(-1)}.
     */
    public void setBatchStatus(String bid, String to, String message) throws Exception {
        String from = batchStatus(bid);
        if (from.equals(to)) {
            return;
        }
        if (!BATCH_MOVES.getOrDefault(from, List.of()).contains(to)) {
            throw new IllegalStateException(String.format("State change (%s->%s) is not allowed", from, to));
        }
        ObjectNode json = (ObjectNode) JSON.readTree(get("/batches/" + bid + "/status"));
        json.put("status", to);
        json.put("last_modified", MrtZk.now());
        json.put("message", message == null ? "" : message);
        zk.setData("/batches/" + bid + "/status", JSON.writeValueAsBytes(json), -1);
    }

    /**
     * {@code Batch.acquirePendingBatch} (mrt-ingest's {@code BatchConsumer}): the first batch, in name
     * order, with no {@code states} node that it can lock: loaded, {@code states} created, set Processing.
     */
    public String acquirePendingBatch() throws Exception {
        for (String cp : batches()) {
            if (!exists("/batches/" + cp + "/states") && lock("/batches/" + cp)) {
                batchStatus(cp); // load
                get("/batches/" + cp + "/submission");
                create("/batches/" + cp + "/states");
                setBatchStatus(cp, "Processing", "");
                return cp;
            }
        }
        return null;
    }

    /** The batches in name order, as mrt-zk's Java walks them. */
    private List<String> batches() throws Exception {
        List<String> batches = new ArrayList<>(zk.getChildren("/batches", false));
        batches.sort(null);
        return batches;
    }

    /** Whether the batch's batch-processing folder exists and is empty. */
    private boolean noJobsProcessing(String bid) throws Exception {
        String p = "/batches/" + bid + "/states/batch-processing";
        return exists(p) && zk.getChildren(p, false).isEmpty();
    }

    /**
     * {@code Batch.acquireBatchForReporting} (mrt-ingest's {@code BatchReportConsumer}): the first batch
     * whose batch-processing exists and is empty, not Completed/Failed/UpdateReporting, that it can
     * lock: set Reporting.
     */
    public String acquireBatchForReporting() throws Exception {
        for (String cp : batches()) {
            if (noJobsProcessing(cp)) {
                String s = batchStatus(cp);
                if (List.of("Completed", "Failed", "UpdateReporting").contains(s)) {
                    continue;
                }
                if (lock("/batches/" + cp)) {
                    setBatchStatus(cp, "Reporting", "");
                    return cp;
                }
            }
        }
        return null;
    }

    /**
     * {@code Batch.deleteCompletedBatches} (run by mrt-ingest's report consumers on every poll): each
     * batch with an empty batch-processing, Completed or Deleted, deleted with its jobs.
     */
    public List<String> deleteCompletedBatches() throws Exception {
        List<String> deleted = new ArrayList<>();
        if (!exists("/batches")) {
            return deleted;
        }
        for (String cp : batches()) {
            if (noJobsProcessing(cp)) {
                String s = batchStatus(cp);
                if (!s.equals("Completed") && !s.equals("Deleted")) {
                    continue;
                }
                try {
                    for (String bucket :
                            List.of("batch-processing", "batch-failed", "batch-completed", "batch-deleted")) {
                        String b = "/batches/" + cp + "/states/" + bucket;
                        if (exists(b)) {
                            for (String jid : zk.getChildren(b, false)) {
                                DaemonJob j = load(jid);
                                if (!List.of("Completed", "Deleted").contains(j.status)) {
                                    throw new IllegalStateException("Can not delete Job: " + j.path());
                                }
                                deleteIfThere(j.jobStatePath);
                                deleteIfThere(j.batchStatePath);
                                deleteAll(j.path());
                            }
                        }
                    }
                    JsonNode sub = JSON.readTree(get("/batches/" + cp + "/submission"));
                    String uuid = sub.has("batchID") ? sub.get("batchID").asText("") : "";
                    if (!uuid.isEmpty()) {
                        deleteIfThere("/batch-uuids/" + uuid);
                    }
                    deleteAll("/batches/" + cp);
                    deleted.add(cp);
                } catch (Exception e) {
                    // "General Error cleaning ZK node"
                }
            }
        }
        return deleted;
    }

    // ---- jobs

    /**
     * {@code Job.createJob}: root, lock, bid, priority 5, space
     * 0, configuration, identifiers, status, references, unlock.
     */
    public String createJob(String bid, int priority, String configuration, String identifiers) throws Exception {
        String path =
                zk.create("/jobs/jid", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL);
        String jid = path.substring("/jobs/".length());
        createNode(path + "/lock", null, CreateMode.EPHEMERAL);
        createNode(path + "/bid", bid, CreateMode.PERSISTENT);
        createNode(path + "/priority", "5", CreateMode.PERSISTENT);
        createNode(path + "/space_needed", "0", CreateMode.PERSISTENT);
        createNode(path + "/configuration", configuration, CreateMode.PERSISTENT);
        createNode(path + "/identifiers", identifiers, CreateMode.PERSISTENT);
        if (priority != 5) {
            zk.setData(path + "/priority", Integer.toString(priority).getBytes(StandardCharsets.UTF_8), -1);
        }
        createNode(
                path + "/status",
                "{\"retry_count\":0,\"last_successful_status\":null,\"message\":\"\",\"last_modified\":\"" + MrtZk.now()
                        + "\",\"status\":\"Pending\"}",
                CreateMode.PERSISTENT);
        ensure("/jobs/states/pending");
        createNode(String.format("/jobs/states/pending/%02d-%s", priority, jid), null, CreateMode.PERSISTENT);
        ensure("/batches/" + bid + "/states/batch-processing");
        ensure("/batches/" + bid + "/states/batch-processing/" + jid);
        zk.delete(path + "/lock", -1);
        return jid;
    }


    private static String bucket(String state) {
        return switch (state) {
            case "Failed" -> "batch-failed";
            case "Completed" -> "batch-completed";
            case "Deleted" -> "batch-deleted";
            default -> "batch-processing";
        };
    }

    /** {@code Job.load(client)}: status, properties, then the job's two references created where missing. */
    public DaemonJob load(String jid) throws Exception {
        DaemonJob j = new DaemonJob(jid);
        JsonNode s = JSON.readTree(get(j.path() + "/status"));
        j.status = s.get("status").textValue();
        if (!JOB_MOVES.containsKey(j.status)) {
            throw new IllegalStateException("No enum constant JobState." + j.status);
        }
        j.retryCount = s.get("retry_count").intValue();
        if (exists(j.path() + "/configuration")) {
            get(j.path() + "/configuration");
        }
        j.bid = get(j.path() + "/bid");
        j.priority = Integer.parseInt(get(j.path() + "/priority"));
        Long.parseLong(get(j.path() + "/space_needed"));
        for (String optional : List.of("identifiers", "metadata", "inventory", "store")) {
            if (exists(j.path() + "/" + optional)) {
                get(j.path() + "/" + optional);
            }
        }
        setJobStatePath(j);
        setBatchStatePath(j);
        return j;
    }

    private void setJobStatePath(DaemonJob j) throws Exception {
        String js = String.format("/jobs/states/%s/%02d-%s", j.status.toLowerCase(Locale.ROOT), j.priority, j.id);
        deleteIfThere(j.jobStatePath);
        j.jobStatePath = js;
        if (!exists(js)) {
            String p = js.substring(0, js.lastIndexOf('/'));
            if (!exists(p)) {
                create(p);
            }
            create(js);
        }
    }

    private void setBatchStatePath(DaemonJob j) throws Exception {
        String bs = String.format("/batches/%s/states/%s/%s", j.bid, bucket(j.status), j.id);
        deleteIfThere(j.batchStatePath); // Java's `bs == batchStatePath` never holds: the reference goes and comes back
        j.batchStatePath = bs;
        if (!exists(bs)) {
            String p = bs.substring(0, bs.lastIndexOf('/'));
            if (!exists(p)) {
                try {
                    create(p);
                } catch (KeeperException.NodeExistsException e) {
                    // createIfNeededForgiving
                }
            }
            try {
                create(bs);
            } catch (KeeperException.NodeExistsException e) {
                // createIfNeededForgiving
            }
        }
    }

    /**
     * {@code Job.acquireJob(client, state)} (each mrt-ingest job consumer): the state's references in
     * name order, the first it can lock loaded (on a load that fails: unlocked, and the error thrown).
     */
    public DaemonJob acquireJob(String state) throws Exception {
        String p = "/jobs/states/" + state.toLowerCase(Locale.ROOT);
        if (!exists(p)) {
            return null;
        }
        List<String> jobs = new ArrayList<>(zk.getChildren(p, false));
        jobs.sort(null);
        for (String cp : jobs) {
            String jid = cp.substring(3);
            if (lock("/jobs/" + jid)) {
                try {
                    return load(jid);
                } catch (Exception e) {
                    unlock("/jobs/" + jid);
                    throw e;
                }
            }
        }
        return null;
    }

    /** {@code QueueItem.setStatus} on a job, then {@code setStatusTrigger}: its references moved. */
    public void setStatus(DaemonJob j, String to, String message) throws Exception {
        if (!to.equals(j.status)) {
            if (!JOB_MOVES.getOrDefault(j.status, List.of()).contains(to)) {
                throw new IllegalStateException(String.format("State change (%s->%s) is not allowed", j.status, to));
            }
            ObjectNode old = (ObjectNode) JSON.readTree(get(j.path() + "/status"));
            ObjectNode json = old.deepCopy();
            json.put("status", to);
            json.put("last_modified", MrtZk.now());
            if (!json.has("last_successful_status")) {
                json.set("last_successful_status", NullNode.getInstance());
            }
            String was = old.has("status") ? old.get("status").textValue() : null;
            if (was != null && !to.equals("Failed") && !to.equals("Deleted") && !to.equals(was)) {
                json.put("last_successful_status", was);
            }
            json.put("retry_count", j.retryCount);
            json.put("message", message == null ? "" : message);
            zk.setData(j.path() + "/status", JSON.writeValueAsBytes(json), -1);
            j.status = to;
        }
        setJobStatePath(j);
        setBatchStatePath(j);
    }

    /** The success of a job state in states.yml (Estimating -> Provisioning …). */
    public static String next(String state) {
        return JOB_MOVES.get(state).stream()
                .filter(s -> !s.equals("Failed") && !s.equals("Held"))
                .findFirst()
                .orElseThrow();
    }

    public void unlock(DaemonJob j) throws Exception {
        unlock(j.path());
    }

    /** {@code MerrittLocks.checkLockCollection}, as mrt-ingest's Initialize/Estimate consumers ask it. */
    public boolean collectionLocked(String profile) throws Exception {
        return exists("/locks/collections/" + profile);
    }
}
