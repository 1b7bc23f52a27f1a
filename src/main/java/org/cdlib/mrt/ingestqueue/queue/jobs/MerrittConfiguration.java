package org.cdlib.mrt.ingestqueue.queue.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.Locale;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;

/**
 * A job's configuration as ours, whoever wrote it: ours; mrt-zk's own ({@code createJobConfiguration}:
 * {@code profile_name}, {@code submitter}, {@code payload_url}, {@code payload_type},
 * {@code response_type}, which are ours too); or the one Merritt's ingest service writes through
 * {@code Job.createJob} (CDLUC3/mrt-ingest {@code queue.HandlerSubmit}: camelCase, {@code batchID}
 * and {@code jobID} uuids, {@code profile}, {@code type}, {@code filename}, {@code update}), whose
 * payload Merritt keeps at {@code <ingestServicePath>/queue/<batchID>/<jobID>/<filename>}, read here
 * at {@code <ingest.home>/uploads/...}. A job written elsewhere has no working directory of ours:
 * it gets the one our own jobs get, {@code <ingest.home>/<BID>/<JID>}.
 */
public final class MerrittConfiguration {
    private MerrittConfiguration() {
    }

    public static JobConfiguration read(String path, byte[] data, Path ingestHome, String bid, String jid) {
        JsonNode j = QueueJson.treeOrNull(data);
        JobConfiguration c;
        if (j == null || j.has("profile_name") || !j.has("profile")) {
            c = QueueJson.read(path, data, JobConfiguration.class);
        } else {
            String batch = text(j, "batchID");
            String job = text(j, "jobID");
            String file = text(j, "filename");
            String url = null;
            if (batch != null && job != null && file != null && !(batch + job + file).contains("..")
                    && !(batch + job + file).contains("/")) {
                url = ingestHome.resolve("uploads").resolve(batch).resolve(job).resolve(file).toUri().toString();
            }
            String type = text(j, "type");
            c = new JobConfiguration(
                    null,
                    text(j, "profile"),
                    text(j, "submitter"),
                    url,
                    type == null ? null : "manifest".equals(type.toLowerCase(Locale.ROOT)) ? "object_manifest" : type,
                    text(j, "responseForm"),
                    j.path("update").asBoolean(false) ? "update" : "add",
                    null,
                    text(j, "localID"),
                    file,
                    text(j, "digestType"),
                    text(j, "digestValue"),
                    null,
                    text(j, "creator"),
                    text(j, "title"),
                    text(j, "date"),
                    null,
                    null);
        }
        return c.workingDir() != null || bid == null
                ? c
                : c.withWorkingDir(ingestHome.resolve(bid).resolve(jid).toString());
    }

    private static String text(JsonNode j, String key) {
        return QueueJson.textOrNull(j, key);
    }
}
