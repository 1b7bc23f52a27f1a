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
 */
public final class Container {
    private Container() {
    }

    /** Unpacks {@code container} into {@code target} (which must exist); returns the number of files written. */
    public static int unpack(Path container, String name, Path target) throws FetchException {
        String format = format(container, name);
        try {
            return format.equals("zip") ? unzip(container, name, target) : untar(container, name, target);
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

    private static int unzip(Path container, String name, Path target) throws IOException {
        int files = 0;
        try (ZipFile zip = ZipFile.builder().setPath(container).get()) {
            for (Enumeration<ZipArchiveEntry> en = zip.getEntries(); en.hasMoreElements(); ) {
                ZipArchiveEntry e = en.nextElement();
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
                    write(name, e.getName(), in, p);
                }
                files++;
            }
        }
        return files;
    }

    private static int untar(Path container, String name, Path target) throws IOException {
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
                    write(name, e.getName(), tar, p);
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

    private static void write(String container, String entry, InputStream in, Path p) throws IOException {
        Files.createDirectories(p.getParent());
        try {
            Files.copy(in, p);
        } catch (FileAlreadyExistsException e) {
            throw refused(container, entry, "appears twice");
        }
    }

    private static FetchException refused(String container, String entry, String why) {
        return new FetchException("container " + container + ": entry '" + entry + "' " + why);
    }
}
