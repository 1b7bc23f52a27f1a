package org.cdlib.mrt.ingestqueue.api;

import io.vertx.core.MultiMap;
import io.vertx.ext.web.FileUpload;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.cdlib.mrt.ingestqueue.fetch.FetchException;
import org.cdlib.mrt.ingestqueue.fetch.SafeName;
import org.cdlib.mrt.ingestqueue.fetch.UrlPolicy;
import org.cdlib.mrt.ingestqueue.profile.ProfileRegistry;
import org.cdlib.mrt.ingestqueue.queue.BatchSubmission;

/**
 * Turns a Merritt submission form (CONTRACTS §2) or its JSON equivalent into a batch
 * submission. Only the batch is written here; every download happens in the queue. An uploaded
 * payload is kept under {@code <ingest.home>/uploads/<uuid>/<name>} and named by a file: URL there.
 */
final class Submissions {
    static final Set<String> TYPES = Set.of("file", "container", "object-manifest", "manifest", "batch-manifest",
            "container-batch-manifest", "single-file-batch-manifest");
    private static final List<String> DC = List.of("contributor", "coverage", "creator", "date", "description", "format",
            "identifier", "language", "publisher", "relation", "rights", "source", "subject", "title", "type");

    private final ProfileRegistry profiles;
    private final Path uploads;
    private final UrlPolicy urls;

    Submissions(ProfileRegistry profiles, Path ingestHome, UrlPolicy urls) {
        this.profiles = profiles;
        this.uploads = ingestHome.resolve("uploads");
        this.urls = urls;
    }

    /** From the multipart form; {@code mode} is add or update (the path the client posted to). */
    BatchSubmission fromForm(MultiMap form, List<FileUpload> files, String mode, String user) {
        Map<String, String> f = new LinkedHashMap<>();
        form.forEach(e -> f.putIfAbsent(e.getKey(), e.getValue()));
        FileUpload file = files.stream().filter(u -> u.name().equals("file")).findFirst().orElse(null);
        String url = first(f.get("url"), f.get("payloadUrl"));
        String fileName = first(f.get("filename"), file != null ? file.fileName() : null);
        String payloadUrl;
        if (file != null) {
            payloadUrl = keep(file, fileName);
        } else if (url != null) {
            payloadUrl = checkUrl(url);
        } else {
            throw new ApiError(400, "the form has neither a 'file' upload nor a 'url' field: nothing to ingest");
        }
        Map<String, List<String>> dc = new LinkedHashMap<>();
        for (String element : DC) {
            List<String> values = form.getAll("DC." + element);
            if (!values.isEmpty()) {
                dc.put(element, List.copyOf(values));
            }
        }
        return build(f.get("profile"), first(f.get("submitter"), user), payloadUrl, f.get("type"), mode, fileName,
                f.get("title"), f.get("creator"), f.get("date"), f.get("localIdentifier"), f.get("primaryIdentifier"),
                f.get("digestType"), f.get("digestValue"), f.get("notification"), f.get("responseForm"), f.get("note"), dc);
    }

    /** From {@code POST /api/batches}: the same fields in snake_case. */
    @SuppressWarnings("unchecked")
    BatchSubmission fromJson(Map<String, Object> j, String user) {
        String url = str(j.get("payload_url"));
        if (url == null) {
            throw new ApiError(400, "payload_url is required (the file, container or manifest to ingest)");
        }
        Map<String, List<String>> dc = new LinkedHashMap<>();
        if (j.get("dublin_core") instanceof Map<?, ?> m) {
            ((Map<String, Object>) m).forEach((k, v) -> dc.put(k, v instanceof List<?> l
                    ? l.stream().map(String::valueOf).toList() : List.of(String.valueOf(v))));
        }
        return build(str(j.get("profile")), first(str(j.get("submitter")), user), checkUrl(url), str(j.get("type")),
                first(str(j.get("submission_mode")), "add"), str(j.get("file_name")), str(j.get("title")),
                str(j.get("creator")), str(j.get("date")), str(j.get("local_identifier")), str(j.get("primary_identifier")),
                str(j.get("digest_type")), str(j.get("digest_value")), str(j.get("notification")), "json",
                str(j.get("note")), dc);
    }

    private BatchSubmission build(String profile, String submitter, String url, String type, String mode, String fileName,
            String title, String creator, String date, String localId, String primaryId, String digestType,
            String digestValue, String notification, String responseForm, String note, Map<String, List<String>> dc) {
        if (profile == null) {
            throw new ApiError(400, "'profile' is required");
        }
        if (profiles.find(profile).isEmpty()) {
            throw new ApiError(400, "unknown profile '" + profile + "'");
        }
        String t = type == null ? "file" : type.strip().toLowerCase(Locale.ROOT);
        if (!TYPES.contains(t)) {
            throw new ApiError(400, "unknown type '" + type + "' (expected one of " + String.join(", ", new java.util.TreeSet<>(TYPES)) + ")");
        }
        if (digestType != null) {
            try {
                org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm.fromName(digestType);
            } catch (IllegalArgumentException e) {
                throw new ApiError(400, e.getMessage());
            }
        }
        return new BatchSubmission(profile, submitter, url, title, creator, date, null, t, mode, fileName, localId, primaryId,
                digestType, digestValue, notification, responseForm == null ? "xml" : responseForm.toLowerCase(Locale.ROOT),
                note, Instant.now().toString(), dc.isEmpty() ? null : dc);
    }

    private String keep(FileUpload upload, String name) {
        try {
            String safe = SafeName.check(name == null || name.isBlank() ? "payload" : name);
            if (safe.contains("/")) {
                safe = safe.substring(safe.lastIndexOf('/') + 1);
            }
            Path dir = Files.createDirectories(uploads.resolve(UUID.randomUUID().toString()));
            Path target = dir.resolve(safe);
            Files.move(Path.of(upload.uploadedFileName()), target, StandardCopyOption.ATOMIC_MOVE);
            return target.toUri().toString();
        } catch (FetchException e) {
            throw new ApiError(400, "file name refused: " + e.getMessage());
        } catch (IOException e) {
            throw new ApiError(500, "cannot keep the uploaded file: " + e.getMessage());
        }
    }

    private String checkUrl(String url) {
        if (!url.strip().toLowerCase(Locale.ROOT).matches("https?://.*")) {
            throw new ApiError(400, url + ": only http and https URLs may be submitted (upload a local file as 'file')");
        }
        try {
            return urls.check(url).toString();
        } catch (FetchException e) {
            throw new ApiError(400, e.getMessage());
        }
    }

    private static String first(String a, String b) {
        return a != null && !a.isBlank() ? a.strip() : b;
    }

    private static String str(Object o) {
        return o == null ? null : String.valueOf(o);
    }

    static List<String> fieldNames() {
        List<String> names = new ArrayList<>(List.of("file", "url", "filename", "type", "profile", "submitter", "creator",
                "title", "date", "localIdentifier", "primaryIdentifier", "note", "digestType", "digestValue",
                "notification", "responseForm", "notificationFormat"));
        DC.forEach(d -> names.add("DC." + d));
        return names;
    }
}
