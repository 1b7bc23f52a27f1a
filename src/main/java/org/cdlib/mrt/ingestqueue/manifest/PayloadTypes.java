package org.cdlib.mrt.ingestqueue.manifest;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.manifest.CheckmManifest;

/**
 * The submission {@code type} as Merritt takes it (CONTRACTS §2): this queue's names, Merritt's
 * package-type names ({@code batchManifest}, {@code batchManifestContainer},
 * {@code batchManifestFile}, {@code manifest}, ...) as aliases, and the type inferred when the
 * field is absent: a manifest by a {@code #%checkm} first line and its {@code #%profile}, a
 * container by its bytes (zip, gzip, bzip2, tar) or its name's extension, otherwise a file.
 */
public final class PayloadTypes {
    /** Merritt's spellings, matched case-insensitively, and the queue's name for each. */
    private static final Map<String, String> ALIASES = Map.ofEntries(
            Map.entry("file", "file"), Map.entry("singlefile", "file"), Map.entry("single-file", "file"),
            Map.entry("container", "container"),
            Map.entry("manifest", "object-manifest"), Map.entry("object-manifest", "object-manifest"),
            Map.entry("objectmanifest", "object-manifest"), Map.entry("object_manifest", "object-manifest"),
            Map.entry("batch-manifest", "batch-manifest"), Map.entry("batchmanifest", "batch-manifest"),
            Map.entry("batch_manifest", "batch-manifest"),
            Map.entry("container-batch-manifest", "container-batch-manifest"),
            Map.entry("batchmanifestcontainer", "container-batch-manifest"),
            Map.entry("single-file-batch-manifest", "single-file-batch-manifest"),
            Map.entry("batchmanifestfile", "single-file-batch-manifest"));

    public static final List<String> MERRITT_NAMES =
            List.of("manifest", "batchManifest", "batchManifestContainer", "batchManifestFile");
    private static final List<String> CONTAINER_EXTENSIONS = List.of(".zip", ".tar", ".tgz", ".tar.gz", ".tbz", ".tbz2",
            ".tar.bz2", ".gz", ".bz2", ".jar");
    /**
     * The names Merritt's ingest expands as containers (HandlerDisaggregate: gzip by a name ending
     * {@code gz}, bzip2 by {@code bz2}, zip, tar), so also {@code .tgz}, {@code .tar.gz} and
     * {@code .tar.bz2}; a container-batch row named otherwise is not expanded there.
     */
    private static final List<String> MERRITT_CONTAINER_ENDINGS = List.of(".zip", ".tar", ".gz", ".tgz", ".bz2");

    private PayloadTypes() {
    }

    /** The queue's name for a type as a client spells it, or null when it names none. */
    public static String canonical(String type) {
        return ALIASES.get(type.strip().toLowerCase(Locale.ROOT));
    }

    /**
     * The type of a submission that names none: from the uploaded file's bytes when there is one
     * ({@code upload}), else from the name ({@code name}: the file name or the URL).
     */
    public static String infer(Path upload, String name) {
        if (upload != null && Files.isRegularFile(upload)) {
            byte[] head;
            try (InputStream in = Files.newInputStream(upload)) {
                head = in.readNBytes(8192);
            } catch (IOException e) {
                head = new byte[0];
            }
            String byBytes = byBytes(head);
            if (byBytes != null) {
                return byBytes;
            }
        }
        String byName = byName(name);
        if ("file".equals(byName) && name != null && name.matches("(?i)https?://.*")) {
            return AUTO; // a URL's content decides, when Batch Pending reads it
        }
        return byName;
    }

    /** What a payload's first bytes say it is: a manifest of its profile's kind, a container, else a file. */
    public static String byContent(byte[] head) {
        String t = byBytes(head);
        return t != null ? t : "file";
    }

    /** The type of a URL submission that named none and whose name does not decide: its first bytes will. */
    public static final String AUTO = "auto";

    /** A checkm manifest by its first line and profile, a container by its magic bytes; null when neither. */
    public static String byBytes(byte[] head) {
        if (head.length >= 4 && head[0] == 'P' && head[1] == 'K' && (head[2] == 3 || head[2] == 5 || head[2] == 7)) {
            return "container";
        }
        if (head.length >= 2 && (head[0] & 0xff) == 0x1f && (head[1] & 0xff) == 0x8b) {
            return "container";
        }
        if (head.length >= 3 && head[0] == 'B' && head[1] == 'Z' && head[2] == 'h') {
            return "container";
        }
        if (head.length >= 262 && new String(head, 257, 5, StandardCharsets.ISO_8859_1).equals("ustar")) {
            return "container";
        }
        String text = new String(head, StandardCharsets.UTF_8);
        if (text.startsWith("\uFEFF")) {
            text = text.substring(1);
        }
        String start = text.stripLeading().toLowerCase(Locale.ROOT);
        if (!start.startsWith("#%checkm") && !start.startsWith("#%profile")) {
            // the '#%checkm_0.7' declaration is optional to Merritt's parser: a profile first is a manifest too
            return null;
        }
        for (String line : text.split("\r?\n")) {
            String l = line.strip();
            if (l.toLowerCase(Locale.ROOT).startsWith("#%profile")) {
                String profile = l.substring("#%profile".length()).replaceAll("^[\\s|]+", "").split("\\|")[0].strip();
                CheckmManifest.Kind kind = CheckmManifest.Kind.ofProfile(profile);
                if (kind == null) {
                    return "object-manifest"; // the job names the unknown profile when it reads the manifest
                }
                return switch (kind) {
                    case BATCH -> "batch-manifest";
                    case CONTAINER_BATCH -> "container-batch-manifest";
                    case SINGLE_FILE_BATCH -> "single-file-batch-manifest";
                    default -> "object-manifest";
                };
            }
        }
        return "object-manifest";
    }

    /**
     * Why Merritt would not expand the object a batch manifest's row names as the manifest's
     * profile asks, or null when it would: a container-batch row's file (its {@code nfo:fileName},
     * else its URL's last segment) must have a container's name, a batch-of-manifests row's an
     * object manifest's ({@code .checkm}). mrt-doc's manifest cases
     * ({@code sampleBatchOf*_incorrect_filename}) have Merritt leave such a row unexpanded; the
     * queue refuses the manifest naming the row rather than expand what Merritt would not.
     */
    public static String notExpandable(CheckmManifest.Kind kind, String name) {
        String n = name == null ? "" : name.toLowerCase(Locale.ROOT);
        return switch (kind) {
            case CONTAINER_BATCH ->
                MERRITT_CONTAINER_ENDINGS.stream().anyMatch(n::endsWith)
                        ? null
                        : "'" + name
                                + "' is not a container Merritt would expand: a mrt-container-batch-manifest row's"
                                + " file name (nfo:fileName, else the URL's) must end in .zip, .tar, .tgz, .tar.gz,"
                                + " .gz or .bz2";
            case BATCH ->
                n.endsWith(".checkm")
                        ? null
                        : "'" + name + "' is not an object manifest Merritt would read: a mrt-batch-manifest row's"
                                + " file name (nfo:fileName, else the URL's) must end in .checkm";
            default -> null;
        };
    }

    /**
     * By extension: a container's, else a file. A manifest is only recognised by its content (an
     * uploaded one); a URL's content is not read at submission, so a manifest given by URL needs its type.
     */
    public static String byName(String name) {
        if (name == null) {
            return "file";
        }
        String n = name.toLowerCase(Locale.ROOT);
        int q = n.indexOf('?');
        if (q >= 0) {
            n = n.substring(0, q);
        }
        for (String ext : CONTAINER_EXTENSIONS) {
            if (n.endsWith(ext)) {
                return "container";
            }
        }
        return "file";
    }
}
