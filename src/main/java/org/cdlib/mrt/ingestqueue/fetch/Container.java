package org.cdlib.mrt.ingestqueue.fetch;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Enumeration;
import org.apache.commons.compress.archivers.ArchiveException;
import org.apache.commons.compress.archivers.ArchiveStreamFactory;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipFile;
import org.apache.commons.compress.compressors.CompressorException;
import org.apache.commons.compress.compressors.CompressorStreamFactory;

/**
 * Unpacks a container payload (zip, tar, tar.gz/tgz, tar.bz2; recognised by content, not by
 * name) into a directory. Entries keep their paths as they are, a single top-level folder
 * included. Every entry name is {@link SafeName checked} (no zip-slip); symbolic links, hard
 * links and device entries are refused, as is a name given twice. Nothing is written outside
 * the target directory.
 * <p>
 * What a container may unpack to is bounded ({@link Limits}): the total of its files' bytes,
 * the number of entries, and the ratio of unpacked bytes to the container's size. All are
 * counted while unpacking (declared sizes may lie), and the refusal names the limit.
 */
public final class Container {
    private Container() {
    }

    /**
     * Bounds of one container ({@code ingest.container.*}).
     *
     * @param maxBytes   the total bytes of its files, unpacked
     * @param maxEntries entries (files and folders)
     * @param maxRatio   unpacked bytes per byte of the container, checked once more than
     *                   {@link #RATIO_FLOOR} bytes are unpacked (small text compresses well)
     */
    public record Limits(long maxBytes, int maxEntries, int maxRatio) {
        public static final long RATIO_FLOOR = 16L * 1024 * 1024;

        public Limits {
            if (maxBytes < 1 || maxEntries < 1 || maxRatio < 1) {
                throw new IllegalArgumentException("ingest.container.max-bytes (" + maxBytes + "), max-entries (" + maxEntries
                        + ") and max-ratio (" + maxRatio + ") must be at least 1");
            }
        }

        public static Limits defaults() {
            return new Limits(100L * 1024 * 1024 * 1024, 100_000, 100);
        }
    }

    /** What has been unpacked so far, refused as soon as a limit is passed. */
    private static final class Budget {
        final Limits limits;
        final String name;
        final long containerBytes;
        long bytes;
        int entries;

        Budget(Limits limits, String name, long containerBytes) {
            this.limits = limits;
            this.name = name;
            this.containerBytes = Math.max(1, containerBytes);
        }

        void entry() throws FetchException {
            if (++entries > limits.maxEntries()) {
                throw new FetchException("container " + name + ": more than " + limits.maxEntries()
                        + " entries; the limit is " + limits.maxEntries() + " (ingest.container.max-entries)");
            }
        }

        void add(long n) throws FetchException {
            bytes += n;
            if (bytes > limits.maxBytes()) {
                throw new FetchException("container " + name + ": unpacks to more than " + limits.maxBytes()
                        + " bytes; the limit is " + limits.maxBytes() + " bytes (ingest.container.max-bytes)");
            }
            if (bytes > Limits.RATIO_FLOOR && bytes / containerBytes >= limits.maxRatio()) {
                throw new FetchException("container " + name + ": unpacks to more than " + limits.maxRatio()
                        + " times its size of " + containerBytes + " bytes (" + bytes + " bytes so far); the limit is a ratio of "
                        + limits.maxRatio() + " (ingest.container.max-ratio)");
            }
        }
    }

    /** Unpacks {@code container} into {@code target} (which must exist) within the default limits. */
    public static int unpack(Path container, String name, Path target) throws FetchException {
        return unpack(container, name, target, Limits.defaults());
    }

    /** Unpacks {@code container} into {@code target} (which must exist); returns the number of files written. */
    public static int unpack(Path container, String name, Path target, Limits limits) throws FetchException {
        String format = format(container, name);
        try {
            Budget budget = new Budget(limits, name, Files.size(container));
            return format.equals("zip") ? unzip(container, name, target, budget) : untar(container, name, target, budget);
        } catch (FetchException e) {
            throw e;
        } catch (IOException e) {
            throw new FetchException("container " + name + ": cannot unpack (" + Fetcher.describe(e) + ")", e);
        }
    }

    /** "zip" or "tar" (the latter possibly compressed). */
    static String format(Path container, String name) throws FetchException {
        try (InputStream in = new BufferedInputStream(Files.newInputStream(container))) {
            String compression = compression(in);
            if (compression != null) {
                try (InputStream inner = new BufferedInputStream(
                        new CompressorStreamFactory().createCompressorInputStream(compression, in))) {
                    if (!"tar".equals(archive(inner))) {
                        throw new FetchException("container " + name + ": a " + compression
                                + " file that holds no tar archive");
                    }
                    return "tar";
                }
            }
            String archive = archive(in);
            if ("zip".equals(archive) || "jar".equals(archive)) {
                return "zip";
            }
            if ("tar".equals(archive)) {
                return "tar";
            }
            throw new FetchException("container " + name + ": "
                    + (archive == null ? "not a zip, tar or tar.gz file" : "an archive of type '" + archive
                            + "'; only zip, tar and tar.gz are accepted"));
        } catch (FetchException e) {
            throw e;
        } catch (IOException | CompressorException e) {
            throw new FetchException("container " + name + ": cannot read (" + e.getMessage() + ")", e);
        }
    }

    private static String compression(InputStream in) {
        try {
            String c = CompressorStreamFactory.detect(in);
            return CompressorStreamFactory.GZIP.equals(c) || CompressorStreamFactory.BZIP2.equals(c) ? c : null;
        } catch (CompressorException e) {
            return null; // not compressed
        }
    }

    private static String archive(InputStream in) {
        try {
            return ArchiveStreamFactory.detect(in);
        } catch (ArchiveException e) {
            return null;
        }
    }

    private static int unzip(Path container, String name, Path target, Budget budget) throws IOException {
        int files = 0;
        try (ZipFile zip = ZipFile.builder().setPath(container).get()) {
            for (Enumeration<ZipArchiveEntry> en = zip.getEntries(); en.hasMoreElements(); ) {
                ZipArchiveEntry e = en.nextElement();
                budget.entry();
                if (e.isUnixSymlink()) {
                    throw refused(name, e.getName(), "is a symbolic link");
                }
                if (e.isDirectory() && isTop(e.getName())) {
                    continue;
                }
                Path p = entryPath(name, e.getName(), target);
                if (e.isDirectory()) {
                    Files.createDirectories(p);
                    continue;
                }
                if (!zip.canReadEntryData(e)) {
                    throw refused(name, e.getName(), "uses a compression method or encryption that cannot be read");
                }
                try (InputStream in = zip.getInputStream(e)) {
                    write(name, e.getName(), in, p, budget);
                }
                files++;
            }
        }
        return files;
    }

    private static int untar(Path container, String name, Path target, Budget budget) throws IOException {
        int files = 0;
        try (InputStream raw = new BufferedInputStream(Files.newInputStream(container))) {
            String compression = compression(raw);
            InputStream in = raw;
            if (compression != null) {
                try {
                    in = new BufferedInputStream(new CompressorStreamFactory().createCompressorInputStream(compression, raw));
                } catch (CompressorException e) {
                    throw new FetchException("container " + name + ": cannot decompress (" + e.getMessage() + ")", e);
                }
            }
            try (TarArchiveInputStream tar = new TarArchiveInputStream(in)) {
                for (TarArchiveEntry e; (e = tar.getNextEntry()) != null; ) {
                    budget.entry();
                    if (e.isSymbolicLink()) {
                        throw refused(name, e.getName(), "is a symbolic link");
                    }
                    if (e.isLink()) {
                        throw refused(name, e.getName(), "is a hard link");
                    }
                    if (e.isCharacterDevice() || e.isBlockDevice() || e.isFIFO()) {
                        throw refused(name, e.getName(), "is a device or pipe");
                    }
                    if (e.isDirectory() && isTop(e.getName())) {
                        continue;
                    }
                    Path p = entryPath(name, e.getName(), target);
                    if (e.isDirectory()) {
                        Files.createDirectories(p);
                        continue;
                    }
                    if (!e.isFile()) {
                        throw refused(name, e.getName(), "is not a regular file");
                    }
                    write(name, e.getName(), tar, p, budget);
                    files++;
                }
            }
        }
        return files;
    }

    /** {@code ./} or {@code /}: the archive's own root, which tar writes as a directory entry. */
    private static boolean isTop(String entry) {
        return entry.replace(".", "").replace("/", "").isEmpty() && !entry.contains("..");
    }

    private static Path entryPath(String container, String entry, Path target) throws FetchException {
        try {
            return SafeName.resolve(target, entry);
        } catch (FetchException e) {
            throw new FetchException("container " + container + ": entry " + e.getMessage().replaceFirst("^file name ", ""));
        }
    }

    /** Copies one entry, counting its bytes against the budget as they come. */
    private static void write(String container, String entry, InputStream in, Path p, Budget budget) throws IOException {
        Files.createDirectories(p.getParent());
        try (java.io.OutputStream out = Files.newOutputStream(p, java.nio.file.StandardOpenOption.CREATE_NEW,
                java.nio.file.StandardOpenOption.WRITE)) {
            byte[] buf = new byte[64 * 1024];
            for (int n; (n = in.read(buf)) > 0; ) {
                budget.add(n);
                out.write(buf, 0, n);
            }
        } catch (FileAlreadyExistsException e) {
            throw refused(container, entry, "appears twice");
        }
    }

    /**
     * The bytes a container says it unpacks to, where the format says it: a zip's central
     * directory (the sum of its entries' sizes) or a gzip's trailer (the size modulo 2^32; a
     * value below the compressed size is not trusted). Empty when the bytes give no answer.
     * {@code head} is the start of the container, {@code tail} its end, {@code size} its whole length.
     */
    public static java.util.OptionalLong declaredSize(byte[] head, byte[] tail, long size) {
        boolean zip = head.length >= 4 && head[0] == 'P' && head[1] == 'K';
        if (zip && tail.length >= 22) {
            // zip: the end of central directory record, then the central directory itself when it is in the tail
            for (int i = tail.length - 22; i >= 0 && i >= tail.length - 22 - 65535; i--) {
                if (le32(tail, i) == 0x06054b50L) {
                    long cdSize = le32(tail, i + 12);
                    long cdOffset = le32(tail, i + 16);
                    long cdStartInTail = tail.length - (size - cdOffset);
                    if (cdOffset == 0xffffffffL || cdStartInTail < 0 || cdStartInTail + cdSize > i) {
                        return java.util.OptionalLong.empty(); // zip64 or a directory beyond the tail
                    }
                    long total = 0;
                    int p = (int) cdStartInTail;
                    while (p + 46 <= i && le32(tail, p) == 0x02014b50L) {
                        long uncompressed = le32(tail, p + 24);
                        if (uncompressed == 0xffffffffL) {
                            return java.util.OptionalLong.empty();
                        }
                        total += uncompressed;
                        p += 46 + le16(tail, p + 28) + le16(tail, p + 30) + le16(tail, p + 32);
                    }
                    return java.util.OptionalLong.of(total);
                }
            }
        }
        boolean gzip = head.length >= 2 && (head[0] & 0xff) == 0x1f && (head[1] & 0xff) == 0x8b;
        if (gzip && tail.length >= 4 && size >= 18) {
            long isize = le32(tail, tail.length - 4);
            if (isize >= size) {
                return java.util.OptionalLong.of(isize);
            }
        }
        return java.util.OptionalLong.empty();
    }

    private static long le32(byte[] b, int i) {
        return (b[i] & 0xffL) | (b[i + 1] & 0xffL) << 8 | (b[i + 2] & 0xffL) << 16 | (b[i + 3] & 0xffL) << 24;
    }

    private static int le16(byte[] b, int i) {
        return (b[i] & 0xff) | (b[i + 1] & 0xff) << 8;
    }

    private static FetchException refused(String container, String entry, String why) {
        return new FetchException("container " + container + ": entry '" + entry + "' " + why);
    }
}
