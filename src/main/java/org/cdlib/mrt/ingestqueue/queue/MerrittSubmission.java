package org.cdlib.mrt.ingestqueue.queue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A batch submission as Merritt's ingest front end writes it through mrt-zk's
 * {@code Batch.createBatch} (CDLUC3/mrt-ingest {@code batchProcess.HandlerSubmit}: camelCase keys,
 * {@code batchID} {@code bid-<uuid>}, {@code profile}, {@code type}, {@code filename},
 * {@code update} a boolean, …), read as ours. Its payload is the uploaded file Merritt keeps at
 * {@code <ingestServicePath>/queue/<batchID>/<filename>}: this queue reads it at
 * {@code <ingest.home>/uploads/<batchID>/<filename>}, so Merritt's queue directory is mounted (or
 * linked) as {@code <ingest.home>/uploads}.
 */
final class MerrittSubmission {
    private static final List<String> DC = List.of("contributor", "coverage", "creator", "date", "description", "format",
            "identifier", "language", "publisher", "relation", "rights", "source", "subject", "title", "type");

    private MerrittSubmission() {
    }

    /** Ours, or Merritt's read as ours. */
    static BatchSubmission read(String path, byte[] data, Path ingestHome) {
        JsonNode j = QueueJson.treeOrNull(data);
        if (j == null || j.has("profile_name") || !j.has("profile")) {
            return QueueJson.read(path, data, BatchSubmission.class);
        }
        String batchId = text(j, "batchID");
        String file = text(j, "filename");
        if (batchId == null || file == null || batchId.contains("/") || batchId.contains("..") || file.contains("/")
                || file.contains("..")) {
            throw new CorruptNodeException(path, "a Merritt submission without a usable batchID and filename");
        }
        Map<String, List<String>> dc = new LinkedHashMap<>();
        for (String element : DC) {
            String v = text(j, "DC" + element);
            if (v != null) {
                dc.put(element, List.of(v));
            }
        }
        return new BatchSubmission(text(j, "profile"), text(j, "submitter"),
                ingestHome.resolve("uploads").resolve(batchId).resolve(file).toUri().toString(),
                text(j, "title"), text(j, "creator"), text(j, "date"), null, type(text(j, "type")),
                j.path("update").asBoolean(false) ? "update" : "add", file, text(j, "localID"), text(j, "objectID"),
                text(j, "digestType"), text(j, "digestValue"), text(j, "notification"), text(j, "responseForm"),
                text(j, "note"), text(j, "submissionDate"), dc.isEmpty() ? null : dc);
    }

    /** Merritt's package types ({@code PackageTypeEnum}) as ours. */
    private static String type(String merritt) {
        if (merritt == null) {
            return "auto";
        }
        return switch (merritt.toLowerCase(Locale.ROOT)) {
            case "manifest" -> "object-manifest";
            case "batchmanifest" -> "batch-manifest";
            case "batchmanifestcontainer" -> "container-batch-manifest";
            case "batchmanifestfile" -> "single-file-batch-manifest";
            default -> merritt.toLowerCase(Locale.ROOT);
        };
    }

    private static String text(JsonNode j, String key) {
        return QueueJson.textOrNull(j, key);
    }
}
