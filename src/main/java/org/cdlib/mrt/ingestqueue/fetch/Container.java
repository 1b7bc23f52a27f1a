package org.cdlib.mrt.ingestqueue.fetch;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import org.apache.commons.compress.archivers.ArchiveException;
import org.apache.commons.compress.archivers.ArchiveStreamFactory;
import org.apache.commons.compress.compressors.CompressorException;
import org.apache.commons.compress.compressors.CompressorStreamFactory;

/**
 * Unpacks a container payload (zip, tar, tar.gz/tgz, tar.bz2; recognised by content, not by
 * name) into a directory. Entries keep their paths as they are, a single top-level folder
 * included. Every entry name is {@link SafeName checked} (no zip-slip); symbolic links, hard
 * links and device entries are refused, as is a name given twice, and so is a container that
 * holds no file at all. Nothing is written outside the target directory.
 * <p>
 * What a container may unpack to is bounded ({@link Limits}): the total of its files' bytes,
 * the number of entries, and the ratio of unpacked bytes to the container's size. All are
 * counted while unpacking (declared sizes may lie), and the refusal names the limit.
 * <p>
 * This class tells the format and holds the limits; {@link Unpacker} walks each format's
 * entries, {@link UnpackTarget} checks and writes them, {@link DeclaredSize} reads what a
 * container declares.
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
                throw new IllegalArgumentException("ingest.container.max-bytes (" + maxBytes + "), max-entries ("
                        + maxEntries + ") and max-ratio (" + maxRatio + ") must be at least 1");
            }
        }

        public static Limits defaults() {
            return new Limits(100L * 1024 * 1024 * 1024, 100_000, 100);
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
            UnpackTarget to = new UnpackTarget(target, name, limits, Files.size(container));
            int files = format.equals("zip") ? Unpacker.unzip(container, to) : Unpacker.untar(container, name, to);
            if (files == 0) {
                // an object of no files is no object: the depositor hears it, rather than a version with nothing in it
                throw new FetchException("container " + name
                        + ": the container holds no files (only folders, or nothing); " + "there is nothing to ingest");
            }
            return files;
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

    static String compression(InputStream in) {
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

    /**
     * The bytes a container says it unpacks to, where the format says it: a zip's central
     * directory (the sum of its entries' sizes) or a gzip's trailer (the size modulo 2^32; a
     * value below the compressed size is not trusted). Empty when the bytes give no answer.
     * {@code head} is the start of the container, {@code tail} its end, {@code size} its whole length.
     */
    public static OptionalLong declaredSize(byte[] head, byte[] tail, long size) {
        return DeclaredSize.of(head, tail, size);
    }
}
