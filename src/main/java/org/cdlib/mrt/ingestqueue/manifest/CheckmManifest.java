package org.cdlib.mrt.ingestqueue.manifest;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;
import org.cdlib.mrt.ingestqueue.text.Text;
import org.cdlib.mrt.ingestqueue.text.Urls;

/**
 * A checkm 0.7 manifest (CONTRACTS §1): the four Merritt profiles, cells split on {@code |},
 * {@code %20} and {@code %7c} decoded, {@code #%eof} required. Parsing checks every row and
 * reports the first problem with its line number; a manifest that parses is usable as a whole.
 */
public record CheckmManifest(Kind kind, String profile, List<String> fields, List<Row> rows) {

    /** Merritt caps a batch manifest at this many bytes. */
    public static final int MAX_BATCH_MANIFEST_BYTES = 5_000_000;
    /**
     * The longest data row in UTF-8 bytes, refused before it is split. Each cell is held to
     * {@link QueueLimits#FIELD_BYTES} ({@code nfo:fileUrl} to {@link QueueLimits#URL_BYTES}): a
     * batch manifest's rows become jobs in ZooKeeper.
     */
    public static final int MAX_LINE_BYTES = 64 * 1024;

    public enum Kind {
        OBJECT("mrt-ingest-manifest"),
        BATCH("mrt-batch-manifest"),
        CONTAINER_BATCH("mrt-container-batch-manifest"),
        SINGLE_FILE_BATCH("mrt-single-file-batch-manifest"),
        STORE("mrt-add-manifest");

        private final String profileName;

        Kind(String profileName) {
            this.profileName = profileName;
        }

        public String profileName() {
            return profileName;
        }

        public boolean isBatch() {
            return this == BATCH || this == CONTAINER_BATCH || this == SINGLE_FILE_BATCH;
        }

        public static Kind ofProfile(String profile) {
            String p = profile.strip();
            String last = p.substring(p.lastIndexOf('/') + 1);
            for (Kind k : values()) {
                if (k.profileName.equalsIgnoreCase(last)) {
                    return k;
                }
            }
            return null;
        }
    }

    /** One data row; cells are keyed by the lowercased field name, e.g. {@code nfo:fileurl}. */
    public record Row(int line, Map<String, String> cells) {
        public String get(String field) {
            String v = cells.get(field.toLowerCase(Locale.ROOT));
            return v == null || v.isEmpty() ? null : v;
        }

        public String fileUrl() {
            return get("nfo:fileUrl");
        }

        public String hashAlgorithm() {
            return get("nfo:hashAlgorithm");
        }

        public String hashValue() {
            return get("nfo:hashValue");
        }

        public Long fileSize() {
            String v = get("nfo:fileSize");
            return v == null ? null : Long.parseLong(v);
        }

        public String fileName() {
            return get("nfo:fileName");
        }

        /** {@code nfo:fileLastModified} as written (checked to be an ISO 8601 date, {@link LastModified}). */
        public String fileLastModified() {
            return get("nfo:fileLastModified");
        }

        public String mimeType() {
            String v = get("mrt:mimeType");
            return v != null ? v : get("nie:mimeType");
        }

        public String primaryIdentifier() {
            return get("mrt:primaryIdentifier");
        }

        /** {@code mrt:localIdentifier} split on {@code ;}, blanks dropped, duplicates removed. */
        public List<String> localIdentifiers() {
            String v = get("mrt:localIdentifier");
            if (v == null) {
                return List.of();
            }
            Set<String> ids = new LinkedHashSet<>();
            for (String s : v.split(";")) {
                if (!s.isBlank()) {
                    ids.add(s.strip());
                }
            }
            return List.copyOf(ids);
        }

        public String creator() {
            return get("mrt:creator");
        }

        public String title() {
            return get("mrt:title");
        }

        public String date() {
            return get("mrt:date");
        }
    }

    public static CheckmManifest parse(String text) {
        return parse(text.getBytes(StandardCharsets.UTF_8));
    }

    /** A manifest as fetched: bytes that must be UTF-8 (a line that is not is refused by its number). */
    public static CheckmManifest parse(byte[] bytes) {
        CheckmReader reader = new CheckmReader(new ByteArrayInputStream(bytes));
        List<Row> rows = new ArrayList<>();
        for (Row r = reader.next(); r != null; r = reader.next()) {
            rows.add(r);
        }
        Kind kind = reader.finish();
        String profile = reader.profile();
        List<String> fields = reader.fields();
        if (kind.isBatch() && rows.isEmpty()) {
            throw new ManifestException(
                    0, "a " + kind.profileName() + " must list at least one object; this one lists none");
        }
        if (kind == Kind.OBJECT) {
            Set<String> names = new HashSet<>();
            for (Row r : rows) {
                String name = r.fileName() != null ? r.fileName() : lastSegment(r.fileUrl());
                if (!names.add(name)) {
                    throw new ManifestException(
                            r.line(), "file name '" + name + "' appears twice in the object manifest");
                }
            }
        }
        return new CheckmManifest(kind, profile, List.copyOf(fields), List.copyOf(rows));
    }

    static Row row(int lineNo, String line, List<String> fields) {
        int lineBytes = QueueLimits.utf8Length(line);
        if (lineBytes > MAX_LINE_BYTES) {
            // names the cell that makes the line long, if one does, without splitting the whole line
            for (int c = 0, from = 0; c < fields.size() && from <= line.length(); c++) {
                int to = line.indexOf('|', from);
                to = to < 0 ? line.length() : to;
                checkCell(lineNo, fields.get(c), decode(line.substring(from, to).strip()));
                from = to + 1;
            }
            throw new ManifestException(
                    lineNo, "the line is " + lineBytes + " bytes; the limit is " + MAX_LINE_BYTES + " bytes");
        }
        String[] cells = line.split("\\|", -1);
        int n = cells.length;
        while (n > fields.size() && cells[n - 1].isBlank()) {
            n--; // trailing empty cells beyond the fields
        }
        if (n > fields.size()) {
            throw new ManifestException(lineNo, n + " cells but '#%fields' names only " + fields.size());
        }
        Map<String, String> map = new LinkedHashMap<>();
        for (int c = 0; c < n; c++) {
            String cell = decode(cells[c].strip());
            checkCell(lineNo, fields.get(c), cell);
            map.put(fields.get(c), cell);
        }
        Row row = new Row(lineNo, map);
        if (row.fileUrl() == null) {
            throw new ManifestException(lineNo, "nfo:fileUrl is empty");
        }
        if (row.hashValue() != null && row.hashAlgorithm() == null) {
            throw new ManifestException(lineNo, "nfo:hashValue given without nfo:hashAlgorithm");
        }
        if (row.hashAlgorithm() != null) {
            DigestAlgorithm algorithm;
            try {
                algorithm = DigestAlgorithm.fromName(row.hashAlgorithm());
            } catch (IllegalArgumentException e) {
                throw new ManifestException(lineNo, e.getMessage());
            }
            if (row.hashValue() == null) {
                throw new ManifestException(lineNo, "nfo:hashAlgorithm given without nfo:hashValue");
            }
            String problem = algorithm.formProblem(row.hashValue());
            if (problem != null) {
                throw new ManifestException(lineNo, "nfo:hashValue: " + problem);
            }
        }
        // mrt:primaryIdentifier is passed on as written: Merritt's parser does not check its form (docs/DESIGN.md)
        String size = row.get("nfo:fileSize");
        if (size != null && !size.matches("\\d{1,18}")) {
            throw new ManifestException(
                    lineNo, "nfo:fileSize '" + abbreviate(size) + "' is not a whole number of bytes");
        }
        String modified = row.fileLastModified();
        String problem = modified == null ? null : LastModified.problem(modified);
        if (problem != null) {
            throw new ManifestException(lineNo, problem);
        }
        return row;
    }

    /**
     * Refuses a cell over {@link QueueLimits#FIELD_BYTES} ({@code nfo:fileUrl}:
     * {@link QueueLimits#URL_BYTES}); one holding a control character (a carriage return, a
     * NUL, a tab...), since every cell is one line of text that becomes a job's field, a file
     * name or a line of {@code mrt-dc.xml}; and a URL naming a user or password (never repeated).
     */
    private static void checkCell(int lineNo, String field, String cell) {
        int limit = field.equals("nfo:fileurl") ? QueueLimits.URL_BYTES : QueueLimits.FIELD_BYTES;
        int bytes = QueueLimits.utf8Length(cell);
        if (bytes > limit) {
            throw new ManifestException(
                    lineNo,
                    "cell " + MerrittFields.spelled(field) + " is " + bytes + " bytes; the limit is " + limit
                            + " bytes");
        }
        String problem = Text.problem(cell, false);
        if (problem != null) {
            throw new ManifestException(lineNo, "cell " + MerrittFields.spelled(field) + " contains " + problem
                    + "; a cell is one line of text");
        }
        if (field.equals("nfo:fileurl") && Urls.hasUserInfo(cell)) {
            throw new ManifestException(
                    lineNo,
                    "nfo:fileUrl " + Urls.redacted(cell) + " names a user or password before its host; "
                            + "credentials are not accepted in URLs");
        }
    }

    /** Decodes the two escapes checkm defines for cells. */
    static String decode(String cell) {
        if (cell.indexOf('%') < 0) {
            return cell;
        }
        return cell.replace("%20", " ").replace("%7c", "|").replace("%7C", "|");
    }

    static String lastSegment(String url) {
        String u = url;
        int q = u.indexOf('?');
        if (q >= 0) {
            u = u.substring(0, q);
        }
        return u.substring(u.lastIndexOf('/') + 1);
    }

    private static String abbreviate(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "..." : s;
    }
}
