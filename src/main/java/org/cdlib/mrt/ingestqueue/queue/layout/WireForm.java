package org.cdlib.mrt.ingestqueue.queue.layout;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import org.cdlib.mrt.ingestqueue.queue.model.BatchStatus;
import org.cdlib.mrt.ingestqueue.queue.model.JobStatus;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueueTime;

/**
 * Status and identifier nodes in the form this queue wrote before it spoke mrt-zk's (lower-case
 * states, {@code error_message}, {@code last_modification_date}, ISO time stamps, {@code primary}),
 * told apart from mrt-zk's form, and rewritten in it. Nodes mrt-zk wrote (another key order, no
 * history) are left as they are: only the old keys and spellings count.
 */
public final class WireForm {
    private WireForm() {
    }

    /** Whether a job or batch status node still has the old form. */
    public static boolean oldStatus(byte[] data) {
        JsonNode j = tree(data);
        if (j == null) {
            return false;
        }
        String status = j.path("status").asText("");
        String stamp = j.path("last_modified").asText("");
        return j.has("last_modification_date") || j.has("error_message") || !status.isEmpty()
                && Character.isLowerCase(status.charAt(0)) || stamp.indexOf('T') > 0
                || j.has("last_successful_status") && !j.get("last_successful_status").isNull()
                && Character.isLowerCase(j.get("last_successful_status").asText("x").charAt(0));
    }

    /** Whether an identifiers node still has the old form (no {@code primary_id}). */
    public static boolean oldIdentifiers(byte[] data) {
        JsonNode j = tree(data);
        return j != null && (!j.has("primary_id") || j.get("primary_id").isNull());
    }

    public static byte[] status(JobStatus s) {
        return QueueJson.write(new JobStatus(
                s.status(),
                s.lastSuccessfulStatus(),
                stamp(s.lastModified()),
                s.retryCount(),
                s.message(),
                s.history(),
                s.summary()));
    }

    public static byte[] status(BatchStatus s) {
        return QueueJson.write(new BatchStatus(s.status(), stamp(s.lastModified()), s.jobsCreated(), s.message(),
                s.firstJob(), s.jobsTotal(), s.cursor(), s.jobRuns()));
    }

    private static String stamp(String old) {
        Instant at = QueueTime.parse(old);
        return at == null ? QueueTime.now() : QueueTime.format(at);
    }

    private static JsonNode tree(byte[] data) {
        return QueueJson.treeOrNull(data);
    }
}
