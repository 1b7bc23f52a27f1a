package org.cdlib.mrt.ingestqueue.manifest;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The columns of a checkm manifest as Merritt's parser knows them. Merritt (mrt-core's
 * {@code ManifestRowIngest} and {@code ManifestRowBatch}) never reads {@code #%fields} or
 * {@code #%prefix}: it reads every row in a fixed order of its own, one for object manifests and
 * one for the three batch profiles. The queue reads the columns a manifest declares (checkm's
 * rule, which depositors' tools and the queue's own manifests rely on) and comes as close to
 * Merritt as that allows:
 * <ul>
 * <li>a manifest without {@code #%fields} is read in Merritt's order for its profile;</li>
 * <li>a field's prefix is ignored, as Merritt ignores {@code #%prefix}: {@code mrtfoo:mimeType}
 * is the mime type, {@code nfo:fileURL} the URL;</li>
 * <li>{@code nfo:fileUrl} must be the first column, since that is where Merritt takes the URL
 * from: a manifest declaring another first column would be fetched from another URL by Merritt.</li>
 * </ul>
 */
final class MerrittFields {
    /** mrt-core's ManifestRowIngest (and ManifestRowAdd) columns, lowercased. */
    static final List<String> OBJECT = List.of("nfo:fileurl", "nfo:hashalgorithm", "nfo:hashvalue", "nfo:filesize",
            "nfo:filelastmodified", "nfo:filename", "nie:mimetype");
    /** mrt-core's ManifestRowBatch columns (batch, container-batch and single-file-batch manifests), lowercased. */
    static final List<String> BATCH = List.of(
            "nfo:fileurl",
            "nfo:hashalgorithm",
            "nfo:hashvalue",
            "nfo:filesize",
            "nfo:filelastmodified",
            "nfo:filename",
            "mrt:primaryidentifier",
            "mrt:localidentifier",
            "mrt:creator",
            "mrt:title",
            "mrt:date");
    /** The spelling of each known field, for messages. */
    private static final List<String> SPELLED = List.of(
            "nfo:fileUrl",
            "nfo:hashAlgorithm",
            "nfo:hashValue",
            "nfo:fileSize",
            "nfo:fileLastModified",
            "nfo:fileName",
            "mrt:primaryIdentifier",
            "mrt:localIdentifier",
            "mrt:creator",
            "mrt:title",
            "mrt:date",
            "mrt:mimeType",
            "nie:mimeType");
    /** A known field by the name after its prefix. */
    private static final Map<String, String> BY_LOCAL_NAME = Map.ofEntries(Map.entry("fileurl", "nfo:fileurl"),
            Map.entry("hashalgorithm", "nfo:hashalgorithm"), Map.entry("hashvalue", "nfo:hashvalue"),
            Map.entry("filesize", "nfo:filesize"), Map.entry("filelastmodified", "nfo:filelastmodified"),
            Map.entry("filename", "nfo:filename"), Map.entry("primaryidentifier", "mrt:primaryidentifier"),
            Map.entry("localidentifier", "mrt:localidentifier"), Map.entry("creator", "mrt:creator"),
            Map.entry("title", "mrt:title"), Map.entry("date", "mrt:date"));

    private MerrittFields() {
    }

    /** Merritt's columns for a manifest of this kind, used when it has no {@code #%fields}. */
    static List<String> defaults(CheckmManifest.Kind kind) {
        return kind.isBatch() ? BATCH : OBJECT;
    }

    /**
     * The key a declared field is read under: lowercased, and a known field by its name after
     * the prefix whatever the prefix ({@code mrt:mimeType} and {@code nie:mimeType} stay as they
     * are, both being read for the mime type); an unknown field stays as written, lowercased.
     */
    static String key(String declared) {
        String f = declared.toLowerCase(Locale.ROOT);
        String local = f.substring(f.lastIndexOf(':') + 1);
        if (local.equals("mimetype")) {
            return f.equals("mrt:mimetype") ? f : "nie:mimetype";
        }
        return BY_LOCAL_NAME.getOrDefault(local, f);
    }

    /** A field's usual spelling ({@code nfo:fileUrl}), or the key itself for one the queue does not know. */
    static String spelled(String key) {
        return SPELLED.stream().filter(key::equalsIgnoreCase).findFirst().orElse(key);
    }

    /**
     * The keys of the columns a {@code #%fields} line names ({@code line} is its number): refused
     * when it names none, names one field twice, or does not begin with {@code nfo:fileUrl}.
     */
    static List<String> declared(int line, List<String> names) {
        List<String> keys = new ArrayList<>();
        for (String name : names) {
            if (name.isEmpty()) {
                continue;
            }
            String key = key(name);
            int before = keys.indexOf(key);
            if (before >= 0) {
                throw new ManifestException(
                        line,
                        "'#%fields' names " + spelled(key) + " twice (columns " + (before + 1) + " and "
                                + (keys.size() + 1) + ")");
            }
            keys.add(key);
        }
        if (keys.isEmpty()) {
            throw new ManifestException(line, "#%fields names no column");
        }
        if (!keys.get(0).equals("nfo:fileurl")) {
            throw new ManifestException(
                    line,
                    "'#%fields' begins with " + spelled(keys.get(0)) + "; nfo:fileUrl must be the first column,"
                            + " because Merritt's parser takes every row's"
                            + " URL from the first column whatever '#%fields'"
                            + " says");
        }
        return List.copyOf(keys);
    }
}
