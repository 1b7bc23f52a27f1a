package org.cdlib.mrt.ingestqueue.fetch;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Enumeration;
import java.util.Optional;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipFile;
import org.apache.commons.compress.compressors.CompressorException;
import org.apache.commons.compress.compressors.CompressorStreamFactory;

/**
 * Walks the entries of a zip or a (possibly compressed) tar, one method a format, and writes
 * each through the {@link UnpackTarget}. Here are the checks only a format can make: symbolic
 * links, hard links, devices, pipes and zip entries whose data cannot be read are refused.
 */
final class Unpacker {
    private Unpacker() {
    }

    /** Unpacks a zip into {@code target}; returns the number of files written. */
    static int unzip(Path container, UnpackTarget target) throws IOException {
        int files = 0;
        try (ZipFile zip = ZipFile.builder().setPath(container).get()) {
            for (Enumeration<ZipArchiveEntry> en = zip.getEntries(); en.hasMoreElements(); ) {
                ZipArchiveEntry e = en.nextElement();
                target.entry();
                if (e.isUnixSymlink()) {
                    throw target.refused(e.getName(), "is a symbolic link");
                }
                Optional<Path> p = target.place(e.getName(), e.isDirectory());
                if (p.isEmpty()) {
                    continue;
                }
                if (!zip.canReadEntryData(e)) {
                    throw target.refused(e.getName(), "uses a compression method or encryption that cannot be read");
                }
                try (InputStream in = zip.getInputStream(e)) {
                    target.write(e.getName(), in, p.get());
                }
                files++;
            }
        }
        return files;
    }

    /** Unpacks a tar, gzip- or bzip2-compressed or not, into {@code target}; returns the number of files written. */
    static int untar(Path container, String name, UnpackTarget target) throws IOException {
        int files = 0;
        try (InputStream raw = new BufferedInputStream(Files.newInputStream(container))) {
            String compression = Container.compression(raw);
            InputStream in = raw;
            if (compression != null) {
                try {
                    in = new BufferedInputStream(
                            new CompressorStreamFactory().createCompressorInputStream(compression, raw));
                } catch (CompressorException e) {
                    throw new FetchException("container " + name + ": cannot decompress (" + e.getMessage() + ")", e);
                }
            }
            try (TarArchiveInputStream tar = new TarArchiveInputStream(in)) {
                for (TarArchiveEntry e; (e = tar.getNextEntry()) != null; ) {
                    target.entry();
                    if (e.isSymbolicLink()) {
                        throw target.refused(e.getName(), "is a symbolic link");
                    }
                    if (e.isLink()) {
                        throw target.refused(e.getName(), "is a hard link");
                    }
                    if (e.isCharacterDevice() || e.isBlockDevice() || e.isFIFO()) {
                        throw target.refused(e.getName(), "is a device or pipe");
                    }
                    Optional<Path> p = target.place(e.getName(), e.isDirectory());
                    if (p.isEmpty()) {
                        continue;
                    }
                    if (!e.isFile()) {
                        throw target.refused(e.getName(), "is not a regular file");
                    }
                    target.write(e.getName(), tar, p.get());
                    files++;
                }
            }
        }
        return files;
    }
}
