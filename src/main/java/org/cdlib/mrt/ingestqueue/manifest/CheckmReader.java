package org.cdlib.mrt.ingestqueue.manifest;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Reads a checkm manifest a row at a time, knowing the byte offset where each line starts, so a
 * manifest of a million objects is checked in one streaming pass and its jobs are created a
 * window at a time from a saved offset, never held in memory whole. Lines must be UTF-8 and at
 * most {@link #MAX_LINE_BYTES} (a memory guard; the row's own limits are narrower and name the
 * cell); either failure names the line.
 * <p>
 * The structure is taken as Merritt's parser (mrt-core's {@code Manifest}) takes it: the
 * {@code #%checkm_0.7} declaration is optional, the profile must be known by the first data row,
 * a manifest without {@code #%fields} is read in Merritt's columns for its profile
 * ({@link MerrittFields}), and {@code #%eof} must be the very last line.
 */
public final class CheckmReader implements Closeable {
    public static final int MAX_LINE_BYTES = 8 << 20;

    private final InputStream in;
    private long offset;
    private int line;
    private boolean started;
    private boolean eof;
    private boolean ended;
    private String profile;
    private List<String> fields;
    private CheckmManifest.Kind kind;

    public CheckmReader(InputStream in) {
        this.in = in instanceof BufferedInputStream ? in : new BufferedInputStream(in, 64 * 1024);
    }

    /**
     * Opens a manifest file at a saved offset: the header (profile and fields) is read from the
     * start of the file, then reading goes on at {@code offset} (0: right after the header).
     */
    public static CheckmReader open(Path file, long offset) throws IOException {
        String profile;
        List<String> fields;
        long afterHeader;
        int headerLines;
        try (CheckmReader head = new CheckmReader(Files.newInputStream(file))) {
            head.readHeader();
            profile = head.profile;
            fields = head.fields;
            afterHeader = head.offset;
            headerLines = head.line;
        }
        CheckmReader r = new CheckmReader(Files.newInputStream(file));
        long start = Math.max(offset, afterHeader);
        r.in.skipNBytes(start);
        r.offset = start;
        r.started = true;
        r.line = start == afterHeader ? headerLines : -1_000_000_000; // past a saved offset, line numbers are not known
        r.profile = profile;
        r.fields = fields;
        return r;
    }

    /** Reads directives up to the first data row (left unread), so profile and fields are known. */
    private void readHeader() {
        while (fields == null && !ended) {
            long at = offset;
            String t = nextLine();
            if (t == null) {
                break;
            }
            if (t.isEmpty() || t.startsWith("#")) {
                handle(t);
            } else {
                offset = at; // not consumed: the caller reopens at this offset
                line--;
                break;
            }
        }
    }

    /** The byte offset where the next line starts: a cursor to {@link #open} at later. */
    public long offset() {
        return offset;
    }

    public String profile() {
        return profile;
    }

    /** The columns rows are read in: as {@code #%fields} declares them, else Merritt's for the profile. */
    public List<String> fields() {
        CheckmManifest.Kind k = fields != null || profile == null ? null : CheckmManifest.Kind.ofProfile(profile);
        return k != null ? MerrittFields.defaults(k) : fields;
    }

    /** The next data row, or null at {@code #%eof} or the end of the input. */
    public CheckmManifest.Row next() {
        while (!eof) {
            String l = nextLine();
            if (l == null) {
                return null;
            }
            if (l.isEmpty()) {
                continue;
            }
            started = true;
            if (l.startsWith("#")) {
                handle(l);
                continue;
            }
            if (kind == null) {
                // Merritt checks the profile when it meets the first data row, and reads it in its own columns
                kind = kind(line, "before the first data row");
                fields = fields == null ? MerrittFields.defaults(kind) : fields;
            }
            CheckmManifest.Row row = CheckmManifest.row(line, l, fields);
            String name = row.fileName() != null ? row.fileName() : CheckmManifest.lastSegment(row.fileUrl());
            String notExpanded = PayloadTypes.notExpandable(kind, name);
            if (notExpanded != null) {
                throw new ManifestException(line, notExpanded);
            }
            return row;
        }
        // Merritt's parser takes the last line it reads for the end mark, so even an empty line after it fails there
        String after = readLine();
        if (after != null) {
            throw new ManifestException(
                    line,
                    (after.isBlank() ? "an empty line" : "'" + abbreviate(after.strip()) + "'")
                            + " follows '#%eof'; '#%eof' must be the manifest's last line (Merritt's parser fails"
                            + " otherwise)");
        }
        return null;
    }

    /** The next line without its end, its blanks and (on line 1) a byte order mark; null at the end. */
    private String nextLine() {
        String raw = readLine();
        if (raw != null && line == 1 && raw.startsWith("\uFEFF")) {
            raw = raw.substring(1);
        }
        return raw == null ? null : raw.strip();
    }

    private void handle(String l) {
        if (!l.startsWith("#%")) {
            return; // a comment
        }
        String[] parts = directive(l);
        switch (parts[0].toLowerCase(Locale.ROOT)) {
            case "profile" -> profile = parts.length > 1 ? parts[1] : "";
            case "fields" -> fields = MerrittFields.declared(line, Arrays.asList(parts).subList(1, parts.length));
            case "eof" -> eof = true;
            default -> { } // #%checkm_0.7 (optional to Merritt), #%prefix (ignored by Merritt) and others carry nothing
        }
    }

    /**
     * A directive line split as Merritt's checkm reader reads it: the name is the run of
     * non-blank, non-{@code |} characters after {@code #%}; any run of blanks and {@code |} after
     * it is skipped ({@code #%profile http://...}, {@code #%profile|http://...} and
     * {@code #%profile | http://...} are the same), and the rest is split on {@code |}.
     */
    static String[] directive(String l) {
        String body = l.substring(2);
        int end = 0;
        while (end < body.length() && body.charAt(end) != '|' && !Character.isWhitespace(body.charAt(end))) {
            end++;
        }
        String name = body.substring(0, end);
        int from = end;
        while (from < body.length() && (body.charAt(from) == '|' || Character.isWhitespace(body.charAt(from)))) {
            from++;
        }
        String rest = body.substring(from);
        List<String> parts = new ArrayList<>();
        parts.add(name);
        if (!rest.isEmpty()) {
            Arrays.stream(rest.split("\\|", -1)).map(String::strip).forEach(parts::add);
        }
        return parts.toArray(String[]::new);
    }

    /**
     * After the last row: the checks that need the whole manifest (header, {@code #%eof}, a known
     * profile, the fields); returns its kind.
     */
    public CheckmManifest.Kind finish() {
        if (!started) {
            throw new ManifestException(0, "empty: no '#%profile' line and no data row");
        }
        if (!eof) {
            throw new ManifestException(line, "missing '#%eof' (the manifest is truncated or not a checkm manifest)");
        }
        return kind();
    }

    /** The manifest's kind from its profile; refused when there is none or it is unknown. */
    public CheckmManifest.Kind kind() {
        return kind(0, "");
    }

    private CheckmManifest.Kind kind(int at, String where) {
        if (profile == null) {
            throw new ManifestException(at, "no '#%profile' line" + (where.isEmpty() ? "" : " " + where)
                    + ": cannot tell what kind of manifest this is");
        }
        CheckmManifest.Kind k = CheckmManifest.Kind.ofProfile(profile);
        if (k == null) {
            throw new ManifestException(at, "unknown manifest profile '" + profile + "' (expected mrt-ingest-manifest, "
                    + "mrt-batch-manifest, mrt-container-batch-manifest or mrt-single-file-batch-manifest)");
        }
        return k;
    }

    /** One line without its end, decoded as strict UTF-8; null at the end of the input. */
    private String readLine() {
        if (ended) {
            return null;
        }
        ByteArrayOutputStream b = new ByteArrayOutputStream(256);
        try {
            int c;
            int n = 0;
            while ((c = in.read()) >= 0) {
                offset++;
                if (c == '\n') {
                    break;
                }
                if (++n > MAX_LINE_BYTES) {
                    throw new ManifestException(line + 1, "the line is longer than " + MAX_LINE_BYTES + " bytes");
                }
                b.write(c);
            }
            if (c < 0) {
                ended = true;
                if (n == 0) {
                    line++;
                    return null;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        line++;
        byte[] bytes = b.toByteArray();
        int len = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes, 0, len)).toString();
        } catch (CharacterCodingException e) {
            throw new ManifestException(line, "not UTF-8 text (a manifest must be UTF-8)");
        }
    }

    private static String abbreviate(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "..." : s;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
