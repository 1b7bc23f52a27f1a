package org.cdlib.mrt.ingestqueue.objects;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm;

/**
 * {@code system/mrt-manifest.txt} (CONTRACTS §5): one row per file under {@code producer/} and
 * {@code system/} (the manifest itself excepted), with its SHA-256, size and URL. A URL of this
 * service's {@code /files/} is signed ({@link FileUrlSigner}): storage fetches it without credentials.
 */
public final class StorageManifest {
    public static final String NAME = "mrt-manifest.txt";

    /** Where a file can be fetched from, by its name in the object ({@code producer/a.txt}). */
    public interface FileUrls {
        String of(Path file, String name);
    }

    /**
     * Digests already computed for a file (by checkm name: {@code sha-256}), by its name in the object and its path;
     * empty when none are known or they are no longer of the file as it is (the caller checks): the file is read.
     */
    public interface KnownDigests {
        KnownDigests NONE = (name, file) -> Map.of();

        Map<String, String> of(String name, Path file);
    }

    private final List<ManifestFile> files;
    private final String text;
    private final Map<String, String> alsoDigests;

    private StorageManifest(List<ManifestFile> files, String text, Map<String, String> alsoDigests) {
        this.files = files;
        this.text = text;
        this.alsoDigests = alsoDigests;
    }

    public List<ManifestFile> files() {
        return files;
    }

    public String text() {
        return text;
    }

    /**
     * Each file's digest by the {@code also} algorithm {@link #build(Path, FileUrls, long, DigestAlgorithm)} was
     * given, by its name in the object ({@code producer/a.txt}); empty when none was.
     */
    public Map<String, String> alsoDigests() {
        return alsoDigests;
    }

    public static StorageManifest build(Path workingDir, FileUrls urls) throws IOException {
        return build(workingDir, urls, 0);
    }

    /**
     * As {@link #build(Path, FileUrls)}, its URLs served only while session {@code lease} holds the job (0: no lease).
     */
    public static StorageManifest build(Path workingDir, FileUrls urls, long lease) throws IOException {
        return build(workingDir, urls, lease, null);
    }

    /**
     * As {@link #build(Path, FileUrls, long)}, each file's digest by {@code also} (null: none) computed on the same
     * read as its SHA-256 ({@link #alsoDigests}): a storage that keeps files by another digest need not read them
     * again.
     */
    public static StorageManifest build(Path workingDir, FileUrls urls, long lease, DigestAlgorithm also)
            throws IOException {
        return build(workingDir, urls, lease, also, KnownDigests.NONE);
    }

    /**
     * As {@link #build(Path, FileUrls, long, DigestAlgorithm)}, a file whose SHA-256 (and {@code also}) digest is
     * {@code known} not read at all (the download computed them on its stream); any other read once for both.
     */
    public static StorageManifest build(Path workingDir, FileUrls urls, long lease, DigestAlgorithm also,
            KnownDigests known) throws IOException {
        List<ManifestFile> files = new ArrayList<>();
        Map<String, String> alsoDigests = new LinkedHashMap<>();
        StringBuilder t = new StringBuilder("""
            #%checkm_0.7
            #%profile | http://uc3.cdlib.org/registry/store/manifest/mrt-add-manifest
            #%prefix | mrt: | http://uc3.cdlib.org/ontology/mrt/mom#
            #%prefix | nfo: | http://www.semanticdesktop.org/ontologies/2007/03/22/nfo#
            #%prefix | nie: | http://www.semanticdesktop.org/ontologies/2007/01/19/nie/#
            #%fields | nfo:fileURL | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileLastModified \
            | nfo:fileName | nie:mimeType
            """);
        for (String part : List.of("producer", "system")) {
            Path dir = workingDir.resolve(part);
            if (!Files.isDirectory(dir)) {
                continue;
            }
            List<Path> list;
            try (Stream<Path> walk = Files.walk(dir)) {
                list = walk.filter(Files::isRegularFile).sorted().toList();
            }
            for (Path f : list) {
                String name = part + "/" + dir.relativize(f).toString().replace('\\', '/');
                if (name.equals("system/" + NAME)) {
                    continue;
                }
                String[] digests = digests(f, also, known.of(name, f));
                String digest = digests[0];
                if (also != null) {
                    alsoDigests.put(name, digests[1]);
                }
                long size = Files.size(f);
                String mime = Files.probeContentType(f);
                files.add(new ManifestFile(name, size, "sha-256", digest, mime));
                t.append(cell(FileUrlSigner.signIfServed(workingDir, urls.of(f, name), lease)))
                        .append(" | sha-256 | ")
                        .append(digest)
                        .append(" | ")
                        .append(size)
                        .append(" | ")
                        .append(Instant.ofEpochMilli(
                                Files.getLastModifiedTime(f).toMillis()))
                        .append(" | ")
                        .append(cell(name))
                        .append(" | ")
                        .append(mime == null ? "" : mime)
                        .append('\n');
            }
        }
        t.append("#%eof\n");
        return new StorageManifest(List.copyOf(files), t.toString(), Map.copyOf(alsoDigests));
    }

    /**
     * The files of the manifest storing wrote in {@code system/} ({@link #build}), as it listed them,
     * so recording tells inventory what storage was sent without reading and digesting every file
     * again; empty when there is none.
     */
    public static Optional<List<ManifestFile>> written(Path workingDir) throws IOException {
        Path f = workingDir.resolve("system").resolve(NAME);
        if (!Files.isRegularFile(f)) {
            return Optional.empty();
        }
        List<ManifestFile> files = new ArrayList<>();
        for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
            if (line.isEmpty() || line.startsWith("#%")) {
                continue;
            }
            String[] c = line.split(" \\| ", -1);
            if (c.length != 7) {
                throw new IOException(f + ": not a storage manifest row (7 cells): " + line);
            }
            String mime = c[6];
            files.add(new ManifestFile(uncell(c[5]), Long.parseLong(c[3]), c[1], c[2], mime.isEmpty() ? null : mime));
        }
        return Optional.of(List.copyOf(files));
    }

    /** checkm cells encode {@code %}, blanks and bars. */
    private static String cell(String s) {
        return s.replace("%", "%25").replace(" ", "%20").replace("|", "%7c");
    }

    /**
     * {@link #cell} undone: every {@code %} of a cell begins one of its three escapes, so they are undone in reverse.
     */
    public static String uncell(String s) {
        return s.replace("%7c", "|").replace("%20", " ").replace("%25", "%");
    }

    static String sha256(Path f) throws IOException {
        return digests(f, null)[0];
    }

    /** The file's SHA-256 and {@code also} digest: the {@code known} ones, else both from one read. */
    private static String[] digests(Path f, DigestAlgorithm also, Map<String, String> known) throws IOException {
        String sha256 = known.get(DigestAlgorithm.SHA256.checkmName());
        String other = also == null ? null : known.get(also.checkmName());
        return sha256 != null && (also == null || other != null) ? new String[] {sha256, other} : digests(f, also);
    }

    /** The file's SHA-256 and, when {@code also} is given, its digest by that algorithm: one read. */
    private static String[] digests(Path f, DigestAlgorithm also) throws IOException {
        DigestAlgorithm.Digester d = DigestAlgorithm.SHA256.newDigester();
        DigestAlgorithm.Digester a = also == null ? null : also.newDigester();
        byte[] buf = new byte[256 * 1024];
        try (InputStream in = Files.newInputStream(f)) {
            for (int n; (n = in.read(buf)) > 0; ) {
                d.update(buf, 0, n);
                if (a != null) {
                    a.update(buf, 0, n);
                }
            }
        }
        return new String[] {d.hex(), a == null ? null : a.hex()};
    }
}
