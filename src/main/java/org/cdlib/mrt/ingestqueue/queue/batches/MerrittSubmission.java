package org.cdlib.mrt.ingestqueue.queue.batches;

import static org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration.DUBLIN_CORE;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.cdlib.mrt.ingestqueue.queue.errors.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;

/**
 * A batch submission as Merritt's ingest front end writes it through mrt-zk's
 * {@code Batch.createBatch} (CDLUC3/mrt-ingest {@code batchProcess.HandlerSubmit}: camelCase keys,
 * {@code batchID} {@code bid-<uuid>}, {@code profile}, {@code type}, {@code filename},
 * {@code update} a boolean, …), read as ours. Its payload is the uploaded file Merritt keeps at
 * {@code <ingestServicePath>/queue/<batchID>/<filename>}: this queue reads it at
 * {@code <ingest.home>/uploads/<batchID>/<filename>}, so Merritt's queue directory is mounted (or
 * linked) as {@code <ingest.home>/uploads}.
 */
public final class MerrittSubmission {

    private MerrittSubmission() {
    }

    /** Ours, or Merritt's read as ours. */
    public static BatchSubmission read(String path, byte[] data, Path ingestHome) {
        JsonNode j = QueueJson.treeOrNull(data);
        if (j instanceof ObjectNode ours && j.has("profile_name") && j.has("batchID") && j.hasNonNull("type")) {
            // written by write(): "type" is Merritt's name (the one key both forms have with other values)
            ours.put("type", type(j.get("type").asText()));
            return QueueJson.MAPPER.convertValue(ours, BatchSubmission.class);
        }
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
        for (String element : DUBLIN_CORE) {
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

    /**
     * Ours, with the keys Merritt's front end writes beside them (mrt-ingest
     * {@code batchProcess.HandlerSubmit}), so an mrt-zk host that takes the batch, or the Admin
     * Tool that shows it, reads what it expects; our reader takes ours ({@code profile_name}).
     */
    static byte[] write(BatchSubmission s, String batchUuid) {
        ObjectNode j = (ObjectNode) QueueJson.MAPPER.valueToTree(s);
        j.put("batchID", batchUuid);
        put(j, "profile", s.profileName());
        put(j, "type", merrittType(s.type())); // Merritt's name where it has one (read back as ours); auto stays
        put(j, "filename", s.fileName());
        j.put("update", "update".equalsIgnoreCase(s.submissionMode()));
        put(j, "submitter", s.submitter());
        put(j, "responseForm", s.responseForm());
        put(j, "creator", s.ercWho());
        put(j, "title", s.ercWhat());
        put(j, "date", s.ercWhen());
        put(j, "objectID", s.primaryIdentifier());
        put(j, "localID", s.localIdentifier());
        put(j, "notification", s.notification());
        put(j, "digestType", s.digestType());
        put(j, "digestValue", s.digestValue());
        put(j, "note", s.note());
        if (s.dublinCore() != null) {
            s.dublinCore().forEach((element, values) -> {
                if (DUBLIN_CORE.contains(element) && !values.isEmpty()) {
                    put(j, "DC" + element, values.get(0));
                }
            });
        }
        put(j, "submissionDate", s.submitted());
        return QueueJson.write(j);
    }

    /** The Merritt batch id a submission node carries ({@code batchID}); null when none. */
    static String batchUuid(byte[] data) {
        JsonNode j = QueueJson.treeOrNull(data);
        return j == null ? null : text(j, "batchID");
    }

    /**
     * The Merritt batch id of a new batch: an upload's folder when it is one ({@code uploads/bid-<uuid>/<name>},
     * so an mrt-zk host finds the payload in Merritt's queue directory, {@code <queue>/<batchID>/<filename>}),
     * else a new one.
     */
    static String newBatchUuid(BatchSubmission s, Path ingestHome) {
        try {
            Path payload = Path.of(URI.create(s.payloadUrl())).normalize();
            Path folder = payload.getParent();
            if (folder != null && folder.getParent() != null
                    && folder.getParent().equals(ingestHome.toAbsolutePath().normalize().resolve("uploads"))
                    && folder.getFileName().toString().matches("bid-[0-9a-f-]{36}")) {
                return folder.getFileName().toString();
            }
        } catch (RuntimeException notAFile) {
            // a URL payload: a new id
        }
        return "bid-" + UUID.randomUUID();
    }

    /** Ours as Merritt's package types; {@code auto} has none (Merritt's front end always says) and stays. */
    private static String merrittType(String ours) {
        if (ours == null) {
            return null;
        }
        return switch (ours) {
            case "object-manifest" -> "manifest";
            case "batch-manifest" -> "batchManifest";
            case "container-batch-manifest" -> "batchManifestContainer";
            case "single-file-batch-manifest" -> "batchManifestFile";
            default -> ours;
        };
    }

    private static void put(ObjectNode j, String key, String value) {
        if (value != null && !value.isBlank()) {
            j.put(key, value);
        }
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
