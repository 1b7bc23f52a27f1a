package org.cdlib.mrt.ingestqueue.api.submissions;

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
import java.util.TreeSet;
import java.util.UUID;
import org.cdlib.mrt.ingestqueue.api.auth.ApiUsers;
import org.cdlib.mrt.ingestqueue.api.http.ApiError;
import org.cdlib.mrt.ingestqueue.api.http.InputChecks;
import org.cdlib.mrt.ingestqueue.fetch.FetchException;
import org.cdlib.mrt.ingestqueue.fetch.SafeName;
import org.cdlib.mrt.ingestqueue.fetch.UploadMark;
import org.cdlib.mrt.ingestqueue.fetch.UrlPolicy;
import org.cdlib.mrt.ingestqueue.manifest.Ark;
import org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm;
import org.cdlib.mrt.ingestqueue.manifest.PayloadTypes;
import org.cdlib.mrt.ingestqueue.profile.ProfileRegistry;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a Merritt submission form (CONTRACTS §2) or its JSON equivalent into a batch
 * submission. Only the batch is written here; every download happens in the queue. An uploaded
 * payload is kept under {@code <ingest.home>/uploads/<uuid>/<name>} and named by a file: URL there.
 */
public final class Submissions {
    static final Set<String> TYPES = Set.of("file", "container", "object-manifest", "manifest", "batch-manifest",
            "container-batch-manifest", "single-file-batch-manifest");
    private static final List<String> DC = List.of("contributor", "coverage", "creator", "date", "description",
            "format",
            "identifier", "language", "publisher", "relation", "rights", "source", "subject", "title", "type");
    /** The form's text fields a submission keeps, each held to {@link QueueLimits#FIELD_BYTES}. */
    private static final List<String> FORM_TEXT = List.of("filename", "type", "profile", "submitter", "creator",
            "title", "date",
            "localIdentifier", "primaryIdentifier", "note", "digestType", "digestValue", "notification",
            "responseForm");
    /** The JSON body's text fields, each held to {@link QueueLimits#FIELD_BYTES}. */
    static final List<String> JSON_TEXT = List.of("profile", "submitter", "type", "submission_mode", "file_name",
            "title",
            "creator", "date", "local_identifier", "primary_identifier", "digest_type", "digest_value", "notification",
            "note");

    /** The longest name one file may have on the file systems the queue writes to (ext4, XFS: 255 bytes). */
    static final int NAME_BYTES = 255;
    private static final Logger LOG = LoggerFactory.getLogger(Submissions.class);

    private final ProfileRegistry profiles;
    private final Path uploads;
    private final UrlPolicy urls;

    public Submissions(ProfileRegistry profiles, Path ingestHome, UrlPolicy urls) {
        this.profiles = profiles;
        this.uploads = ingestHome.resolve("uploads");
        this.urls = urls;
    }

    /** From the multipart form; {@code mode} is add or update (the path the client posted to). */
    BatchSubmission fromForm(MultiMap form, List<FileUpload> files, String mode, ApiUsers.User user) {
        return fromForm(form, files, mode, user, null);
    }

    /**
     * From the multipart form, with the primary id given in the path ({@code /poster/submit/ark/<naan>/<name>});
     * a form's primaryIdentifier that names another id is refused.
     */
    BatchSubmission fromForm(MultiMap form, List<FileUpload> files, String mode, ApiUsers.User user, String pathArk) {
        Map<String, String> f = new LinkedHashMap<>();
        form.forEach(e -> f.putIfAbsent(e.getKey(), e.getValue()));
        if (pathArk != null) {
            String given = f.get("primaryIdentifier");
            if (given != null && !given.isBlank() && !given.strip().equals(pathArk)) {
                throw new ApiError(400, "field 'primaryIdentifier' (" + given.strip()
                        + ") differs from the id in the path ("
                        + pathArk + ")");
            }
            f.put("primaryIdentifier", pathArk);
        }
        FileUpload file = files.stream().filter(u -> u.name().equals("file")).findFirst().orElse(null);
        for (String name : FORM_TEXT) {
            limit(name, f.get(name), QueueLimits.FIELD_BYTES);
        }
        limit("url", f.get("url"), QueueLimits.URL_BYTES);
        limit("payloadUrl", f.get("payloadUrl"), QueueLimits.URL_BYTES);
        if (file != null) {
            limit("file (its file name)", file.fileName(), QueueLimits.FIELD_BYTES);
        }
        String url = first(f.get("url"), f.get("payloadUrl"));
        String fileName = first(f.get("filename"), file != null ? file.fileName() : null);
        fileNameLength(first(f.get("filename"), null) != null ? "filename" : "file", fileName);
        if (fileName != null && fileName.indexOf('\uFFFD') >= 0) {
            // the form's decoder replaced bytes that are not UTF-8: the name cannot be kept as it was sent
            throw new ApiError(400, "the file name '" + InputChecks.printable(fileName)
                    + "' is not UTF-8; send the name in UTF-8 "
                    + "(or give it in the 'filename' field)");
        }
        Path upload = null;
        String payloadUrl;
        if (file != null) {
            upload = uploadTarget(fileName);
            payloadUrl = upload.toUri().toString();
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
        limitDublinCore(dc, "DC.");
        String type = f.get("type");
        if (type == null || type.isBlank()) {
            type = PayloadTypes.infer(file != null ? Path.of(file.uploadedFileName()) : null, first(fileName, url));
        }
        BatchSubmission s = build(f.get("profile"), submitter(user, f.get("submitter")), payloadUrl, type, mode,
                fileName,
                f.get("title"), f.get("creator"), f.get("date"), f.get("localIdentifier"), f.get("primaryIdentifier"),
                f.get("digestType"), f.get("digestValue"), f.get("notification"), f.get("responseForm"), f.get("note"),
                dc);
        if (upload != null) {
            keep(file, upload); // only once the submission is accepted: a refused one leaves no upload behind
        }
        return s;
    }

    /** From {@code POST /api/batches}: the same fields in snake_case. */
    @SuppressWarnings("unchecked")
    BatchSubmission fromJson(Map<String, Object> j, ApiUsers.User user) {
        for (String name : JSON_TEXT) {
            limit(name, str(j.get(name)), QueueLimits.FIELD_BYTES);
        }
        limit("payload_url", str(j.get("payload_url")), QueueLimits.URL_BYTES);
        String url = str(j.get("payload_url"));
        if (url == null) {
            throw new ApiError(400, "payload_url is required (the file, container or manifest to ingest)");
        }
        Map<String, List<String>> dc = new LinkedHashMap<>();
        if (j.get("dublin_core") instanceof Map<?, ?> m) {
            ((Map<String, Object>) m).forEach((k, v) -> dc.put(k, v instanceof List<?> l
                    ? l.stream().map(String::valueOf).toList() : List.of(String.valueOf(v))));
        }
        limitDublinCore(dc, "dublin_core.");
        String type = str(j.get("type"));
        if (type == null || type.isBlank()) {
            type = PayloadTypes.infer(null, first(str(j.get("file_name")), url));
        }
        String submitter = submitter(user, str(j.get("submitter")));
        fileNameLength("file_name", str(j.get("file_name")));
        return build(str(j.get("profile")), submitter, checkUrl(url), type,
                mode(str(j.get("submission_mode"))), str(j.get("file_name")), str(j.get("title")),
                str(j.get("creator")), str(j.get("date")), str(j.get("local_identifier")),
                str(j.get("primary_identifier")),
                str(j.get("digest_type")), str(j.get("digest_value")), str(j.get("notification")), "json",
                str(j.get("note")), dc);
    }

    private BatchSubmission build(String profile, String submitter, String url, String type, String mode,
            String fileName,
            String title, String creator, String date, String localId, String primaryId, String digestType,
            String digestValue, String notification, String responseForm, String note, Map<String, List<String>> dc) {
        if (profile == null) {
            throw new ApiError(400, "'profile' is required");
        }
        InputChecks.notification(notification);
        if (profiles.find(profile).isEmpty()) {
            throw new ApiError(400, "unknown profile '" + profile + "'");
        }
        String t = type == null ? "file" : PayloadTypes.AUTO.equals(type) ? PayloadTypes.AUTO
                : PayloadTypes.canonical(type);
        if (t == null || !TYPES.contains(t) && !PayloadTypes.AUTO.equals(t)) {
            throw new ApiError(400, "unknown type '" + type + "' (expected one of " + String.join(", ",
                    new TreeSet<>(TYPES))
                    + ", or Merritt's " + String.join(", ", PayloadTypes.MERRITT_NAMES) + ")");
        }
        digestType = blankToNull(digestType);
        digestValue = blankToNull(digestValue);
        if (digestType != null) {
            DigestAlgorithm algorithm;
            try {
                algorithm = DigestAlgorithm.fromName(digestType);
            } catch (IllegalArgumentException e) {
                throw new ApiError(400, "field 'digestType': " + e.getMessage());
            }
            if (digestValue == null) {
                throw new ApiError(400, "field 'digestType' given without 'digestValue'");
            }
            String problem = algorithm.formProblem(digestValue);
            if (problem != null) {
                throw new ApiError(400, "field 'digestValue': " + problem);
            }
        } else if (digestValue != null) {
            throw new ApiError(400, "field 'digestValue' given without 'digestType'");
        }
        BatchSubmission s = new BatchSubmission(profile, submitter, url, title, creator, date, null, t, mode, fileName,
                localId,
                primaryId, digestType, digestValue, notification,
                responseForm == null ? "xml" : responseForm.toLowerCase(Locale.ROOT), note, Instant.now().toString(),
                dc.isEmpty() ? null : dc);
        int bytes = QueueJson.write(s).length;
        if (bytes > QueueLimits.NODE_BYTES) {
            throw new ApiError(400, "the submission is " + bytes + " bytes once serialized; the limit is "
                    + QueueLimits.NODE_BYTES
                    + " bytes (shorten its text fields)");
        }
        if (primaryId != null && !primaryId.isBlank()) {
            String problem = Ark.problem(primaryId.strip());
            if (problem != null) {
                throw new ApiError(400, "field 'primaryIdentifier': " + problem);
            }
        }
        return s;
    }

    /**
     * The batch's submitter, who owns it: the authenticated user. A user with the role poster
     * (Merritt's UI, posting for its users with one account) names the user it posts for; anyone
     * else may only name themselves, alone or as Merritt's {@code user/Display Name}.
     */
    static String submitter(ApiUsers.User user, String named) {
        if (named == null || named.isBlank()) {
            return user.name();
        }
        String n = named.strip();
        if (user.has("poster") || n.equals(user.name()) || n.startsWith(user.name() + "/")) {
            return n;
        }
        throw new ApiError(403, "field 'submitter' names '" + InputChecks.printable(n) + "', not user '" + user.name()
                + "': only a user with the role poster submits for someone else (leave the field out, or give '"
                + user.name() + "/Display Name')");
    }

    /**
     * The JSON body's {@code submission_mode}: add (the default) or update, as Merritt's form has them
     * ({@code /poster/add}, {@code /poster/update}). Anything else is refused, never run as add: files
     * are deleted from an object by an update whose payload holds {@code mrt-delete.txt} (CONTRACTS §5).
     */
    static String mode(String given) {
        if (given == null || given.isBlank()) {
            return "add";
        }
        String m = given.strip().toLowerCase(Locale.ROOT);
        if (!m.equals("add") && !m.equals("update")) {
            throw new ApiError(400, "field 'submission_mode' is '" + InputChecks.printable(given.strip())
                    + "'; the accepted values "
                    + "are add and update (to delete files from an object, submit an update whose payload holds "
                    + "mrt-delete.txt listing them)");
        }
        return m;
    }

    /**
     * Refuses a file name with a part longer than a file system keeps ({@link #NAME_BYTES} bytes),
     * naming the field, before anything is written.
     */
    private static void fileNameLength(String field, String name) {
        if (name == null) {
            return;
        }
        for (String part : name.split("/")) {
            int bytes = QueueLimits.utf8Length(part);
            if (bytes > NAME_BYTES) {
                throw new ApiError(400, "field '" + field + "': the file name " + (part.length() == name.length() ? ""
                        : "part ")
                        + "'" + InputChecks.printable(part.substring(0, Math.min(part.length(), 40))) + "...' is "
                        + bytes
                        + " bytes; a file name (each part between '/') may have at most " + NAME_BYTES + " bytes");
            }
        }
    }

    /** Refuses (404) a profile this service does not have: holds are for collections that exist. */
    public void requireProfile(String name) {
        if (profiles.find(name).isEmpty()) {
            throw new ApiError(404, "no profile '" + name
                    + "': only the collection of a profile in the profiles directory can be held");
        }
    }

    /** Refuses a field of more than {@code limit} UTF-8 bytes, naming it. */
    private static void limit(String field, String value, int limit) {
        int bytes = QueueLimits.utf8Length(value);
        if (bytes > limit) {
            throw new ApiError(400, "field '" + field + "' is " + bytes + " bytes; the limit is " + limit + " bytes");
        }
    }

    /** Refuses Dublin Core of more than {@link QueueLimits#DUBLIN_CORE_BYTES}, names and values together. */
    private static void limitDublinCore(Map<String, List<String>> dc, String prefix) {
        long bytes = 0;
        for (Map.Entry<String, List<String>> e : dc.entrySet()) {
            bytes += QueueLimits.utf8Length(e.getKey());
            for (String v : e.getValue()) {
                bytes += QueueLimits.utf8Length(v);
            }
        }
        if (bytes > QueueLimits.DUBLIN_CORE_BYTES) {
            throw new ApiError(400, "the Dublin Core fields (" + prefix + "*) are " + bytes
                    + " bytes together; the limit is "
                    + QueueLimits.DUBLIN_CORE_BYTES + " bytes");
        }
    }

    /**
     * Where an uploaded payload will be kept: {@code uploads/bid-<uuid>/<name>}; nothing is created yet.
     * The folder's name becomes the batch's Merritt batch id, as in Merritt's queue directory.
     */
    private Path uploadTarget(String name) {
        try {
            String safe = SafeName.check(name == null || name.isBlank() ? "payload" : name);
            if (safe.contains("/")) {
                safe = safe.substring(safe.lastIndexOf('/') + 1);
            }
            return uploads.resolve("bid-" + UUID.randomUUID()).resolve(safe).toAbsolutePath();
        } catch (FetchException e) {
            throw new ApiError(400, "file name refused: " + e.getMessage());
        }
    }

    private void keep(FileUpload upload, Path target) {
        try {
            Files.createDirectories(target.getParent());
            Files.move(Path.of(upload.uploadedFileName()), target, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            // the service's trouble (a full disk): the paths are for the log, not the depositor
            LOG.warn("cannot keep an upload as {}: {}", target, e.toString());
            discard(target.toUri().toString());
            throw new ApiError(500,
                    "cannot keep the uploaded file (the service log has the details); nothing was kept");
        }
    }

    /** Removes what was kept of a submission that was then refused: a refused submission keeps no file. */
    void discard(String payloadUrl) {
        UploadMark.discard(uploads.getParent(), payloadUrl);
    }

    private String checkUrl(String url) {
        if (!url.strip().toLowerCase(Locale.ROOT).matches("https?://.*")) {
            throw new ApiError(400, url
                    + ": only http and https URLs may be submitted (upload a local file as 'file')");
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

    private static String blankToNull(String v) {
        return v == null || v.isBlank() ? null : v.strip();
    }

    private static String str(Object o) {
        return o == null ? null : String.valueOf(o);
    }

    /** The fields a Merritt form may have (each one's text is checked before the form is read). */
    public static List<String> fieldNames() {
        List<String> names = new ArrayList<>(List.of("file", "url", "filename", "type", "profile", "submitter",
                "creator",
                "title", "date", "localIdentifier", "primaryIdentifier", "note", "digestType", "digestValue",
                "notification", "responseForm", "notificationFormat"));
        DC.forEach(d -> names.add("DC." + d));
        return names;
    }
}
