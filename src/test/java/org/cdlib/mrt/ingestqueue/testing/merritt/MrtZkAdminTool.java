package org.cdlib.mrt.ingestqueue.testing.merritt;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * Merritt's Admin Tool (CDLUC3/mrt-admin-sinatra {@code app/lib/client/zk/mrtzk.rb}) over the Ruby
 * mrt-zk gem ({@code merritt_zk_job.rb}, {@code merritt_zk_batch.rb}, {@code merritt_zk_queue_item.rb},
 * {@code merritt_zk_locks.rb}) exactly as they call ZooKeeper: single calls in their order, no multi,
 * every write {@code set} with version -1, reads that fail where the Ruby fails (a missing node raises,
 * {@code zk.delete} of a missing node raises), no state-transition check (the Ruby's
 * {@code set_status} writes whatever it is given). None of their code is used: the facts are.
 */
public final class MrtZkAdminTool {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> JOB_DELETABLE = List.of("Completed", "Deleted"); // no next state in states.yml
    private static final List<String> BATCH_DELETABLE = List.of("Completed", "Deleted");
    private final ZooKeeper zk;

    public MrtZkAdminTool(ZooKeeper zk) {
        this.zk = zk;
    }

    /** A job as the Ruby {@code Job} holds it after {@code load}/{@code load_optimized}. */
    public static final class RubyJob {
        public final String id;
        String status; // nil when its status is not one of JobState's
        int retryCount;
        public JsonNode data;
        public String bid;
        public int priority;
        public long spaceNeeded;
        String jobStatePath;
        String batchStatePath;

        RubyJob(String id) {
            this.id = id;
        }

        public String path() {
            return "/jobs/" + id;
        }

        public String status() {
            return status;
        }
    }

    /** A batch as the Ruby {@code Batch} holds it after {@code load(set_status_flag: false)}. */
    public static final class RubyBatch {
        public final String id;
        String status;
        public JsonNode data;
        public boolean hasFailure;

        RubyBatch(String id) {
            this.id = id;
        }

        public String path() {
            return "/batches/" + id;
        }

        public String status() {
            return status;
        }
    }

    // ---- ZK gem primitives (Ruby `zk`): get raises on a missing node, delete raises, create raises when there

    private boolean exists(String p) throws Exception {
        return zk.exists(p, false) != null;
    }

    private String get(String p) throws Exception {
        return new String(zk.getData(p, false, null), StandardCharsets.UTF_8);
    }

    private void create(String p, String data) throws Exception {
        zk.create(
                p,
                data == null ? null : data.getBytes(StandardCharsets.UTF_8),
                ZooDefs.Ids.OPEN_ACL_UNSAFE,
                CreateMode.PERSISTENT);
    }

    private void set(String p, String data) throws Exception {
        zk.setData(p, data.getBytes(StandardCharsets.UTF_8), -1);
    }

    /** {@code zk.rm_rf}: the children first, depth first; a node already gone is passed. */
    private void rmRf(String p) throws Exception {
        List<String> children;
        try {
            children = zk.getChildren(p, false);
        } catch (KeeperException.NoNodeException e) {
            return;
        }
        for (String c : children) {
            rmRf(p + "/" + c);
        }
        try {
            zk.delete(p, -1);
        } catch (KeeperException.NoNodeException e) {
            // gone
        }
    }

    private JsonNode jsonProperty(String itemPath, String key) throws Exception {
        String s = get(itemPath + "/" + key);
        try {
            return JSON.readTree(s);
        } catch (Exception e) {
            throw new IllegalStateException(
                    "Node Object for (" + itemPath + "/" + key + ") does not contain valid json: " + s);
        }
    }

    private static String statusOf(JsonNode js, List<String> states) {
        JsonNode s = js.get("status");
        String name = s == null || !s.isTextual() ? "na" : s.textValue();
        return states.contains(name) ? name : null;
    }

    // ---- Job (merritt_zk_job.rb)

    /**
     * {@code Job#load}: status, configuration, bid, priority,
     * space_needed, the optional nodes, then the two state paths.
     */
    public RubyJob loadJob(String jid) throws Exception {
        RubyJob j = loadOptimized(jid);
        for (String optional : List.of("identifiers", "metadata", "inventory")) {
            if (exists(j.path() + "/" + optional)) {
                jsonProperty(j.path(), optional);
            }
        }
        setJobStatePath(j);
        setBatchStatePath(j);
        return j;
    }

    /** {@code Job#load_optimized} (the Admin Tool's list): status, configuration, bid, priority, space_needed. */
    public RubyJob loadOptimized(String jid) throws Exception {
        RubyJob j = new RubyJob(jid);
        if (!exists(j.path())) {
            throw new IllegalStateException("Missing Node " + j.path());
        }
        JsonNode js = jsonProperty(j.path(), "status");
        j.status = statusOf(js, MrtZk.JOB_STATES);
        j.retryCount = js.has("retry_count") ? js.get("retry_count").asInt() : 0;
        j.data = jsonProperty(j.path(), "configuration");
        j.bid = get(j.path() + "/bid");
        j.priority = Integer.parseInt(get(j.path() + "/priority").trim());
        j.spaceNeeded = Long.parseLong(get(j.path() + "/space_needed").trim());
        return j;
    }

    /** {@code Job.list_jobs_as_json}: every child of /jobs but {@code states}, a job that fails to load left out. */
    public List<Map<String, Object>> listJobsAsJson() throws Exception {
        List<Map<String, Object>> jobs = new ArrayList<>();
        List<String> children = new ArrayList<>(zk.getChildren("/jobs", false));
        children.sort(null);
        for (String cp : children) {
            if (cp.equals("states")) {
                continue;
            }
            try {
                RubyJob j = loadOptimized(cp);
                Map<String, Object> m = new LinkedHashMap<>();
                if (j.data != null && j.data.isObject()) {
                    j.data.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue()));
                }
                m.put("id", j.id);
                m.put("bid", j.bid);
                m.put("priority", j.priority);
                m.put("space_needed", j.spaceNeeded);
                if (j.status == null) {
                    throw new IllegalStateException("undefined method `name' for nil");
                }
                m.put("status", j.status);
                jobs.add(m);
            } catch (Exception e) {
                // "List Job #{cp} exception: #{e}": the job is not listed
            }
        }
        return jobs;
    }

    private static String batchStateSubpath(String status) {
        return switch (status) {
            case "Failed" -> "batch-failed";
            case "Completed" -> "batch-completed";
            case "Deleted" -> "batch-deleted";
            default -> "batch-processing";
        };
    }

    /** {@code set_job_state_path}: delete the old reference (raising when gone), create the new one if missing. */
    private void setJobStatePath(RubyJob j) throws Exception {
        if (j.status == null) {
            throw new IllegalStateException("undefined method `name' for nil");
        }
        String js = String.format("/jobs/states/%s/%02d-%s", j.status.toLowerCase(Locale.ROOT), j.priority, j.id);
        if (js.equals(j.jobStatePath)) {
            return;
        }
        if (j.jobStatePath != null) {
            zk.delete(j.jobStatePath, -1);
        }
        j.jobStatePath = js;
        if (exists(js)) {
            return;
        }
        String p = js.substring(0, js.lastIndexOf('/'));
        if (!exists(p)) {
            create(p, null);
        }
        create(js, null);
    }

    /** {@code set_batch_state_path}: the same for {@code /batches/BID/states/batch-*}/JID. */
    private void setBatchStatePath(RubyJob j) throws Exception {
        String bs = String.format("/batches/%s/states/%s/%s", j.bid, batchStateSubpath(j.status), j.id);
        if (bs.equals(j.batchStatePath)) {
            return;
        }
        if (j.batchStatePath != null) {
            zk.delete(j.batchStatePath, -1);
        }
        j.batchStatePath = bs;
        if (exists(bs)) {
            return;
        }
        String p = bs.substring(0, bs.lastIndexOf('/'));
        String pp = p.substring(0, p.lastIndexOf('/'));
        if (!exists(pp)) {
            create(pp, null);
        }
        if (!exists(p)) {
            create(p, null);
        }
        create(bs, null);
    }

    /**
     * {@code Job#set_status}: retry counted, the status object rewritten whole ({@code status_object}:
     * the old one copied, {@code last_successful_status} the state left unless Failed/Deleted either
     * side or unchanged, {@code retry_count}, {@code message}; {@code last_modified} kept), then the
     * job's state reference and its batch reference moved.
     */
    public void setJobStatus(RubyJob j, String to, String message, boolean jobRetry) throws Exception {
        if (jobRetry) {
            j.retryCount++;
        }
        if (!to.equals(j.status)) {
            String statusPath = j.path() + "/status";
            ObjectNode json =
                    exists(statusPath) ? (ObjectNode) jsonProperty(j.path(), "status") : JSON.createObjectNode();
            if (!exists(statusPath)) {
                json.put("last_modified", MrtZk.now());
            }
            String old = json.has("status") && json.get("status").isTextual() ? json.get("status").textValue() : null;
            json.put("status", to);
            if (!json.has("last_successful_status")) {
                json.set("last_successful_status", NullNode.getInstance());
            }
            if (old != null && !List.of("Failed", "Deleted").contains(to) && !List.of("Failed", "Deleted").contains(old)
                    && !to.equals(old)) {
                json.put("last_successful_status", old);
            }
            json.put("retry_count", j.retryCount);
            json.put("message", message == null ? "" : message);
            if (j.status == null) {
                create(statusPath, JSON.writeValueAsString(json));
            } else {
                set(statusPath, JSON.writeValueAsString(json));
            }
            j.status = to;
        }
        setJobStatePath(j);
        setBatchStatePath(j);
    }

    /** {@code QueueItem#lock}: a 0-byte ephemeral create, raising when there (no exists check). */
    public void lock(String itemPath) throws Exception {
        zk.create(itemPath + "/lock", null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
    }

    /** {@code QueueItem#unlock}: deletes the lock whoever holds it, raising when there is none. */
    public void unlock(String itemPath) throws Exception {
        zk.delete(itemPath + "/lock", -1);
    }

    /** {@code Job#delete}: only a deletable job; its two references and the job, {@code rm_rf}. */
    public void delete(RubyJob j) throws Exception {
        if (j.status == null || !JOB_DELETABLE.contains(j.status)) {
            throw new IllegalStateException("Delete invalid " + j.path());
        }
        if (j.jobStatePath != null) {
            rmRf(j.jobStatePath);
        }
        if (j.batchStatePath != null) {
            rmRf(j.batchStatePath);
        }
        rmRf(j.path());
    }

    // ---- Batch (merritt_zk_batch.rb)

    /** {@code Batch#load(set_status_flag: false)}: status, submission, whether any job failed. */
    public RubyBatch loadBatch(String bid) throws Exception {
        RubyBatch b = new RubyBatch(bid);
        if (!exists(b.path())) {
            throw new IllegalStateException("Missing Node " + b.path());
        }
        b.status = statusOf(jsonProperty(b.path(), "status"), MrtZk.BATCH_STATES);
        b.data = jsonProperty(b.path(), "submission");
        String failed = b.path() + "/states/batch-failed";
        b.hasFailure = exists(failed) && !zk.getChildren(failed, false).isEmpty();
        return b;
    }

    /** {@code QueueItem#set_status} on a batch: the status object copied, its status and message replaced. */
    public void setBatchStatus(RubyBatch b, String to, String message) throws Exception {
        if (to.equals(b.status)) {
            return;
        }
        String statusPath = b.path() + "/status";
        ObjectNode json = exists(statusPath) ? (ObjectNode) jsonProperty(b.path(), "status") : JSON.createObjectNode();
        if (!exists(statusPath)) {
            json.put("last_modified", MrtZk.now());
        }
        json.put("status", to);
        json.put("message", message == null ? "" : message);
        if (b.status == null) {
            create(statusPath, JSON.writeValueAsString(json));
        } else {
            set(statusPath, JSON.writeValueAsString(json));
        }
        b.status = to;
    }

    private int count(String p) throws Exception {
        return exists(p) ? zk.getChildren(p, false).size() : 0;
    }

    /** {@code Batch.list_batches_as_json}: every batch with its job counts per bucket; one that fails is left out. */
    public List<Map<String, Object>> listBatchesAsJson() throws Exception {
        List<Map<String, Object>> batches = new ArrayList<>();
        List<String> children = new ArrayList<>(zk.getChildren("/batches", false));
        children.sort(null);
        for (String cp : children) {
            try {
                RubyBatch b = loadBatch(cp);
                if (b.status == null) {
                    throw new IllegalStateException("undefined method `name' for nil");
                }
                Map<String, Object> m = new LinkedHashMap<>();
                b.data.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue()));
                m.put("id", b.id);
                m.put("status", b.status);
                int failed = count(b.path() + "/states/batch-failed");
                int deleted = count(b.path() + "/states/batch-deleted");
                int completed = count(b.path() + "/states/batch-completed");
                int processing = count(b.path() + "/states/batch-processing");
                m.put("jobCountFailed", failed);
                m.put("jobCountDeleted", deleted);
                m.put("jobCountCompleted", completed);
                m.put("jobCountProcessing", processing);
                m.put("jobCount", processing + failed + deleted + completed);
                batches.add(m);
            } catch (Exception e) {
                // "List Batch #{cp} exception: #{e}"
            }
        }
        return batches;
    }

    /**
     * {@code Batch#delete}: only a deletable batch; each job of each bucket loaded and deleted (a job
     * that fails is passed), its {@code /batch-uuids} node deleted (raising when gone), the batch {@code rm_rf}.
     */
    public void delete(RubyBatch b) throws Exception {
        if (b.status == null || !BATCH_DELETABLE.contains(b.status)) {
            throw new IllegalStateException("Delete invalid " + b.path());
        }
        for (String state : List.of("batch-processing", "batch-failed", "batch-completed", "batch-deleted")) {
            String p = b.path() + "/states/" + state;
            if (!exists(p)) {
                continue;
            }
            for (String cp : zk.getChildren(p, false)) {
                try {
                    delete(loadJob(cp));
                } catch (Exception e) {
                    // "Delete Job #{cp} exception: #{e}"
                }
            }
        }
        String uuid = b.data != null && b.data.has("batchID") ? b.data.get("batchID").asText("") : "";
        if (!uuid.isEmpty()) {
            zk.delete("/batch-uuids/" + uuid, -1);
        }
        rmRf(b.path());
    }

    /**
     * {@code Batch.delete_completed_batches} (the Admin Tool's cleanup): each batch whose
     * batch-processing is absent or empty is loaded (a load that fails stops the whole cleanup, as the
     * Ruby does: no rescue around it) and deleted when Completed or Deleted.
     */
    public List<String> deleteCompletedBatches() throws Exception {
        List<String> ids = new ArrayList<>();
        List<String> children = new ArrayList<>(zk.getChildren("/batches", false));
        children.sort(null);
        for (String cp : children) {
            String processing = "/batches/" + cp + "/states/batch-processing";
            if (exists(processing) && !zk.getChildren(processing, false).isEmpty()) {
                continue;
            }
            RubyBatch b = loadBatch(cp);
            if (!BATCH_DELETABLE.contains(String.valueOf(b.status))) {
                continue;
            }
            delete(b);
            ids.add(b.id);
        }
        return ids;
    }

    // ---- Locks (merritt_zk_locks.rb): persistent nodes, false when there

    private boolean createLock(String p) {
        try {
            create(p, null);
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    private void deleteQuietly(String p) {
        try {
            zk.delete(p, -1);
        } catch (Exception e) {
            // rescue StandardError: no action
        }
    }

    /** {@code Locks.init_locks}: the lock folders, each created when missing (mrt-ingest does the same at start). */
    public void initLocks() throws Exception {
        for (String p : List.of("/locks", "/locks/queue", "/locks/storage", "/locks/inventory", "/locks/collections")) {
            if (!exists(p)) {
                try {
                    create(p, null);
                } catch (KeeperException.NodeExistsException e) {
                    // made by another
                }
            }
        }
    }

    public boolean lockIngestQueue() {
        return createLock("/locks/queue/ingest");
    }

    public void unlockIngestQueue() {
        deleteQuietly("/locks/queue/ingest");
    }

    public boolean lockCollection(String mnemonic) {
        return createLock("/locks/collections/" + mnemonic);
    }

    public void unlockCollection(String mnemonic) {
        deleteQuietly("/locks/collections/" + mnemonic);
    }

    public static String storeLockPath(String ark) {
        return "/locks/storage/" + ark.replaceAll(":?/", "_");
    }

    public static String inventoryLockPath(String ark) {
        return "/locks/inventory/" + ark.replaceAll(":?/", "_");
    }

    // ---- The Admin Tool's buttons (mrtzk.rb), each as the tool runs it on its own ZooKeeper session

    public void holdJob(String jid) throws Exception {
        setJobStatus(loadJob(jid), "Held", "", false);
    }

    public void releaseJob(String jid) throws Exception {
        setJobStatus(loadJob(jid), "Pending", "", false);
    }

    /** {@code delete_ingest_job}: the job set to Deleted (the queue removes it with its batch). */
    public void deleteJob(String jid) throws Exception {
        setJobStatus(loadJob(jid), "Deleted", "", false);
    }

    /** {@code requeue_ingest_job}: under its lock, the step after the last success, counting a retry. */
    public void requeueJob(String jid) throws Exception {
        RubyJob j = loadJob(jid);
        JsonNode js = jsonProperty(j.path(), "status");
        String last = js.has("last_successful_status") && js.get("last_successful_status").isTextual()
                ? js.get("last_successful_status").textValue() : "";
        lock(j.path());
        String next = switch (last) {
            case "Pending", "" -> "Estimating";
            case "Estimating" -> "Provisioning";
            case "Provisioning" -> "Downloading";
            case "Downloading" -> "Processing";
            case "Processing" -> "Storing";
            case "Storing" -> "Recording";
            case "Recording" -> "Notify";
            default -> null;
        };
        if (next != null) {
            setJobStatus(j, next, "", true);
        }
        unlock(j.path());
    }

    /**
     * {@code fail_ingest_job}: the job set to Failed whoever works on it; the object's storage and
     * inventory locks removed when there; the job's lock removed when there.
     */
    public void failJob(String jid) throws Exception {
        RubyJob j = loadJob(jid);
        setJobStatus(j, "Failed", "", false);
        JsonNode ids = jsonProperty(j.path(), "identifiers");
        String ark = ids.has("primary_id") && ids.get("primary_id").isTextual()
                ? ids.get("primary_id").textValue()
                : null;
        // (Ruby's `if ark` also takes "": it would then ask for "/locks/storage/", which ZooKeeper refuses)
        if (ark != null && !ark.isEmpty()) {
            if (exists(storeLockPath(ark))) {
                deleteQuietly(storeLockPath(ark));
            }
            if (exists(inventoryLockPath(ark))) {
                deleteQuietly(inventoryLockPath(ark));
            }
        }
        if (exists(j.path() + "/lock")) {
            unlock(j.path());
        }
    }

    public void deleteBatch(String bid) throws Exception {
        RubyBatch b = loadBatch(bid);
        setBatchStatus(b, "Deleted", "");
    }

    public void updateReportingBatch(String bid) throws Exception {
        RubyBatch b = loadBatch(bid);
        setBatchStatus(b, "UpdateReporting", "");
    }

    /** "Release All Held Jobs": the page clicks each Release button (a Held job in the list), one after another. */
    public List<String> releaseAll() throws Exception {
        List<String> released = new ArrayList<>();
        for (Map<String, Object> job : listJobsAsJson()) {
            if ("Held".equals(job.get("status"))) {
                releaseJob((String) job.get("id"));
                released.add((String) job.get("id"));
            }
        }
        return released;
    }

    /** {@code cleanup_ingest_queue}. */
    public List<String> cleanup() throws Exception {
        return deleteCompletedBatches();
    }
}
