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
 */
public final class CheckmReader implements Closeable {
    public static final int MAX_LINE_BYTES = 8 << 20;

    private final InputStream in;
    private long offset;
    private int line;
    private boolean header;
    private boolean eof;
    private boolean ended;
    private String profile;
    private List<String> fields;

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
        r.header = true;
        r.line = start == afterHeader ? headerLines : -1_000_000_000; // past a saved offset, line numbers are not known
        r.profile = profile;
        r.fields = fields;
        return r;
    }

    /** Reads directives up to the first data row (left unread), so profile and fields are known. */
    private void readHeader() {
        while (fields == null && !ended) {
            long at = offset;
            String l = readLine();
            if (l == null) {
                break;
            }
            String t = l.strip();
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

    public List<String> fields() {
        return fields;
    }


    /** The next data row, or null at {@code #%eof} or the end of the input. */
    public CheckmManifest.Row next() {
        while (!eof) {
            String raw = readLine();
            if (raw == null) {
                return null;
            }
            String l = raw.strip();
            if (line == 1 && l.startsWith("\uFEFF")) {
                l = l.substring(1);
            }
            if (l.isEmpty()) {
                continue;
            }
            if (!header || l.startsWith("#")) {
                handle(l);
                continue;
            }
            if (fields == null) {
                throw new ManifestException(line, "data row before the '#%fields' line");
            }
            return CheckmManifest.row(line, l, fields);
        }
        return null;
    }

    private void handle(String l) {
        if (l.startsWith("\uFEFF")) {
            l = l.substring(1);
        }
        if (l.isEmpty()) {
            return;
        }
        if (!header) {
            if (!l.toLowerCase(Locale.ROOT).startsWith("#%checkm")) {
                throw new ManifestException(line, "expected '#%checkm_0.7' as the first line, got '" + abbreviate(l) + "'");
            }
            header = true;
            return;
        }
        if (!l.startsWith("#%")) {
            return; // a comment
        }
        String[] parts = directive(l);
        switch (parts[0].toLowerCase(Locale.ROOT)) {
            case "profile" -> profile = parts.length > 1 ? parts[1] : "";
            case "fields" -> {
                List<String> f = new ArrayList<>();
                for (int i = 1; i < parts.length; i++) {
                    if (!parts[i].isEmpty()) {
                        f.add(parts[i].toLowerCase(Locale.ROOT));
                    }
                }
                if (f.isEmpty()) {
                    throw new ManifestException(line, "#%fields names no column");
                }
                fields = f;
            }
            case "eof" -> eof = true;
            default -> { } // #%prefix and other directives carry nothing the queue needs
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
        if (!header) {
            throw new ManifestException(0, "empty: no '#%checkm_0.7' line");
        }
        if (!eof) {
            throw new ManifestException(line, "missing '#%eof' (the manifest is truncated or not a checkm manifest)");
        }
        return kind();
    }

    /** The manifest's kind from its profile; refused when there is none or it is unknown. */
    public CheckmManifest.Kind kind() {
        if (profile == null) {
            throw new ManifestException(0, "no '#%profile' line: cannot tell what kind of manifest this is");
        }
        CheckmManifest.Kind kind = CheckmManifest.Kind.ofProfile(profile);
        if (kind == null) {
            throw new ManifestException(0, "unknown manifest profile '" + profile + "' (expected mrt-ingest-manifest, "
                    + "mrt-batch-manifest, mrt-container-batch-manifest or mrt-single-file-batch-manifest)");
        }
        if (fields == null) {
            throw new ManifestException(0, "no '#%fields' line");
        }
        if (!fields.contains("nfo:fileurl")) {
            throw new ManifestException(0, "'#%fields' has no nfo:fileUrl column");
        }
        return kind;
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
