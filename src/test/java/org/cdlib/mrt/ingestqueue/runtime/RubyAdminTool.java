package org.cdlib.mrt.ingestqueue.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * The JOB-level buttons of Merritt's Admin Tool (CDLUC3/mrt-admin-sinatra {@code ZKClient}), each
 * made exactly as the Ruby gem (mrt-zk {@code merritt_zk_job.rb}, {@code merritt_zk_queue_item.rb},
 * {@code merritt_zk_locks.rb}) makes it: {@code Job#load} (which creates the job's state and batch
 * references when they are missing), {@code set_status} (the status rewritten whole with
 * {@code setData(-1)}, no transition check, then the state reference moved by a delete and a create,
 * then the batch reference), {@code lock}/{@code unlock} (an empty ephemeral node; unlock deletes
 * whoever holds it). No multi, no versions: as the gem writes. Read from the gem, none of its code used.
 */
final class RubyAdminTool {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ZooKeeper zk;

    RubyAdminTool(ZooKeeper zk) {
        this.zk = zk;
    }

    /** A job as {@code Job#load} leaves it: its status and the two reference paths it computed. */
    final class RubyJob {
        final String id;
        String status;
        int retryCount;
        int priority;
        String bid;
        String jobStatePath;
        String batchStatePath;

        RubyJob(String id) {
            this.id = id;
        }

        String path() {
            return "/jobs/" + id;
        }

        /** {@code load}: status, properties, then {@code set_job_state_path} and {@code set_batch_state_path}. */
        RubyJob load() throws Exception {
            JsonNode s = json(path() + "/status");
            status = s.get("status").textValue();
            retryCount = s.has("retry_count") ? s.get("retry_count").asInt() : 0;
            priority = Integer.parseInt(text(path() + "/priority").trim());
            bid = text(path() + "/bid");
            setJobStatePath();
            setBatchStatePath();
            return this;
        }

        /** {@code set_status(zk, status, message, job_retry:)}. */
        void setStatus(String to, String message, boolean retry) throws Exception {
            if (to.equals(status)) {
                return;
            }
            if (retry) {
                retryCount++;
            }
            ObjectNode old = (ObjectNode) json(path() + "/status");
            String oldStatus = old.get("status").textValue();
            old.put("status", to);
            if (!old.has("last_successful_status")) {
                old.putNull("last_successful_status");
            }
            if (!List.of("Failed", "Deleted").contains(to) && !List.of("Failed", "Deleted").contains(oldStatus)
                    && !to.equals(oldStatus)) {
                old.put("last_successful_status", oldStatus);
            }
            old.put("retry_count", retryCount);
            old.put("message", message == null ? "" : message);
            zk.setData(path() + "/status", JSON.writeValueAsBytes(old), -1);
            status = to;
            setJobStatePath();
            setBatchStatePath();
        }

        private void setJobStatePath() throws Exception {
            String js = String.format("/jobs/states/%s/%02d-%s", status.toLowerCase(Locale.ROOT), priority, id);
            if (js.equals(jobStatePath)) {
                return;
            }
            if (jobStatePath != null) {
                zk.delete(jobStatePath, -1);
            }
            jobStatePath = js;
            if (zk.exists(js, false) != null) {
                return;
            }
            String p = js.substring(0, js.lastIndexOf('/'));
            if (zk.exists(p, false) == null) {
                create(p, CreateMode.PERSISTENT);
            }
            create(js, CreateMode.PERSISTENT);
        }

        private void setBatchStatePath() throws Exception {
            String sub = switch (status) {
                case "Failed" -> "batch-failed";
                case "Completed" -> "batch-completed";
                case "Deleted" -> "batch-deleted";
                default -> "batch-processing";
            };
            String bs = "/batches/" + bid + "/states/" + sub + "/" + id;
            if (bs.equals(batchStatePath)) {
                return;
            }
            if (batchStatePath != null) {
                zk.delete(batchStatePath, -1);
            }
            batchStatePath = bs;
            if (zk.exists(bs, false) != null) {
                return;
            }
            String p = bs.substring(0, bs.lastIndexOf('/'));
            String pp = p.substring(0, p.lastIndexOf('/'));
            if (zk.exists(pp, false) == null) {
                create(pp, CreateMode.PERSISTENT);
            }
            if (zk.exists(p, false) == null) {
                create(p, CreateMode.PERSISTENT);
            }
            create(bs, CreateMode.PERSISTENT);
        }

        /** {@code lock}: raises when held (ZK::Exceptions::NodeExists). */
        void lock() throws Exception {
            create(path() + "/lock", CreateMode.EPHEMERAL);
        }

        void unlock() throws Exception {
            zk.delete(path() + "/lock", -1);
        }
    }

    RubyJob job(String jid) throws Exception {
        return new RubyJob(jid).load();
    }

    /** {@code hold_ingest_job}. */
    void hold(String jid) throws Exception {
        job(jid).setStatus("Held", "", false);
    }

    /** {@code release_ingest_job}: Pending, whatever the state before. */
    void release(String jid) throws Exception {
        job(jid).setStatus("Pending", "", false);
    }

    /** {@code delete_ingest_job}. */
    void delete(String jid) throws Exception {
        job(jid).setStatus("Deleted", "", false);
    }

    /** {@code requeue_ingest_job}: the step after the last success, under the job's lock, a retry. */
    void requeue(String jid) throws Exception {
        RubyJob j = job(jid);
        JsonNode s = json(j.path() + "/status");
        String lss = s.path("last_successful_status").isTextual() ? s.get("last_successful_status").textValue() : "";
        String next = switch (lss) {
            case "", "Pending" -> "Estimating";
            case "Estimating" -> "Provisioning";
            case "Provisioning" -> "Downloading";
            case "Downloading" -> "Processing";
            case "Processing" -> "Storing";
            case "Storing" -> "Recording";
            case "Recording" -> "Notify";
            default -> null;
        };
        j.lock();
        if (next != null) {
            j.setStatus(next, "", true);
        }
        j.unlock();
    }

    /**
     * {@code fail_ingest_job}: Failed; Merritt's storage and inventory object locks of its ARK
     * deleted when there; the job's lock deleted when it exists, whoever holds it.
     */
    void fail(String jid) throws Exception {
        RubyJob j = job(jid);
        j.setStatus("Failed", "", false);
        JsonNode ids = json(j.path() + "/identifiers");
        String ark = ids.path("primary_id").asText("");
        if (!ark.isEmpty()) {
            String node = ark.replaceAll(":?/", "_");
            deleteIfThere("/locks/storage/" + node);
            deleteIfThere("/locks/inventory/" + node);
        }
        if (zk.exists(j.path() + "/lock", false) != null) {
            j.unlock();
        }
    }

    /** {@code Locks.lock_collection}: a persistent empty node; false when it is there already. */
    boolean lockCollection(String profile) throws Exception {
        return createLock("/locks/collections/" + profile);
    }

    void unlockCollection(String profile) {
        deleteIfThere("/locks/collections/" + profile);
    }

    /** {@code pause_ingest}: {@code Locks.lock_ingest_queue}. */
    boolean pauseIngest() throws Exception {
        return createLock("/locks/queue/ingest");
    }

    void unpauseIngest() {
        deleteIfThere("/locks/queue/ingest");
    }

    /** The jobs table's "Release All Held Jobs": {@code release_ingest_job} on every Held job listed. */
    int releaseAllHeld() throws Exception {
        int n = 0;
        for (String jid : zk.getChildren("/jobs", false)) {
            if (jid.equals("states")) {
                continue;
            }
            try {
                if ("Held".equals(json("/jobs/" + jid + "/status").get("status").textValue())) {
                    release(jid);
                    n++;
                }
            } catch (KeeperException.NoNodeException e) {
                // gone meanwhile
            }
        }
        return n;
    }

    private boolean createLock(String path) {
        try {
            create(path, CreateMode.PERSISTENT);
            return true;
        } catch (Exception e) {
            return false; // rescue StandardError: false
        }
    }

    private void deleteIfThere(String path) {
        try {
            zk.delete(path, -1);
        } catch (Exception e) {
            // rescue StandardError: no action
        }
    }

    private void create(String path, CreateMode mode) throws Exception {
        zk.create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, mode);
    }

    String text(String path) throws Exception {
        return new String(zk.getData(path, false, null), StandardCharsets.UTF_8);
    }

    JsonNode json(String path) throws Exception {
        return JSON.readTree(zk.getData(path, false, null));
    }
}
