package org.cdlib.mrt.ingestqueue.fetch;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * The directory one container unpacks into, and the checks on what reaches it: every entry
 * name is {@link SafeName resolved} inside the directory (no zip-slip), every file is created
 * new (a name given twice is refused), and the entries and the bytes actually written are
 * counted against the container's {@link Container.Limits}, refused as soon as one is passed
 * (declared sizes may lie). Which entry types a format may hold is the {@link Unpacker}'s check.
 */
final class UnpackTarget {
    private final Path dir;
    private final String name;
    private final Container.Limits limits;
    private final long containerBytes;
    private long bytes;
    private int entries;

    UnpackTarget(Path dir, String name, Container.Limits limits, long containerBytes) {
        this.dir = dir;
        this.name = name;
        this.limits = limits;
        this.containerBytes = Math.max(1, containerBytes);
    }

    /** Counts one more entry (file or folder). */
    void entry() throws FetchException {
        if (++entries > limits.maxEntries()) {
            throw new FetchException("container " + name + ": more than " + limits.maxEntries()
                    + " entries; the limit is " + limits.maxEntries() + " (ingest.container.max-entries)");
        }
    }

    private void add(long n) throws FetchException {
        bytes += n;
        if (bytes > limits.maxBytes()) {
            throw new FetchException("container " + name + ": unpacks to more than " + limits.maxBytes()
                    + " bytes; the limit is " + limits.maxBytes() + " bytes (ingest.container.max-bytes)");
        }
        if (bytes > Container.Limits.RATIO_FLOOR && bytes / containerBytes >= limits.maxRatio()) {
            throw new FetchException("container " + name + ": unpacks to more than " + limits.maxRatio()
                    + " times its size of " + containerBytes + " bytes (" + bytes
                    + " bytes so far); the limit is a ratio of "
                    + limits.maxRatio() + " (ingest.container.max-ratio)");
        }
    }

    /**
     * Makes the place of {@code entry}: a folder is created here (even when empty; the archive's
     * own root is skipped) and the answer is empty; a file's path is the answer, to be written.
     */
    Optional<Path> place(String entry, boolean folder) throws IOException {
        if (folder && isTop(entry)) {
            return Optional.empty();
        }
        Path p = path(entry);
        if (folder) {
            Files.createDirectories(p);
            return Optional.empty();
        }
        return Optional.of(p);
    }

    /** {@code ./} or {@code /}: the archive's own root, which tar writes as a directory entry. */
    private static boolean isTop(String entry) {
        return entry.replace(".", "").replace("/", "").isEmpty() && !entry.contains("..");
    }

    private Path path(String entry) throws FetchException {
        try {
            return SafeName.resolve(dir, entry);
        } catch (FetchException e) {
            throw new FetchException("container " + name + ": entry " + e.getMessage().replaceFirst("^file name ", ""));
        }
    }

    /** Copies one entry, counting its bytes against the limits as they come. */
    void write(String entry, InputStream in, Path p) throws IOException {
        Files.createDirectories(p.getParent());
        try (OutputStream out = Files.newOutputStream(p, StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE)) {
            byte[] buf = new byte[64 * 1024];
            for (int n; (n = in.read(buf)) > 0; ) {
                add(n);
                out.write(buf, 0, n);
            }
        } catch (FileAlreadyExistsException e) {
            throw refused(entry, "appears twice");
        }
    }

    FetchException refused(String entry, String why) {
        return new FetchException("container " + name + ": entry '" + entry + "' " + why);
    }
}
