package org.cdlib.mrt.ingestqueue.steps;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;

/** The space of the filesystem that holds the working directories; a seam so tests can fill a disk. */
public interface FreeSpace {

    long usableBytes() throws IOException;

    long totalBytes() throws IOException;

    /** One figure of a filesystem (FileStore's getters throw IOException). */
    interface Figure {
        long of(FileStore store) throws IOException;
    }

    /**
     * Whether {@code a} and {@code b} (or their nearest existing parents) lie on one filesystem: then
     * what is written under both (a download and storage's copy of it) takes room from the same disk.
     */
    static boolean sameFileSystem(Path a, Path b) throws IOException {
        return Files.getFileStore(existing(a)).equals(Files.getFileStore(existing(b)));
    }

    private static Path existing(Path dir) {
        Path p = dir.toAbsolutePath();
        while (p.getParent() != null && !Files.exists(p)) {
            p = p.getParent();
        }
        return p;
    }

    /**
     * The filesystem of {@code dir} (or of its nearest existing parent, before it is created). Once
     * {@code dir} exists its store is kept: finding a path's store parses {@code /proc/mounts}, which
     * provisioning did six times a job, while each figure is still read fresh (one {@code statfs}).
     */
    static FreeSpace of(Path dir) {
        return new FreeSpace() {
            private volatile FileStore found;

            @Override
            public long usableBytes() throws IOException {
                return figure(FileStore::getUsableSpace);
            }

            @Override
            public long totalBytes() throws IOException {
                return figure(FileStore::getTotalSpace);
            }

            private long figure(Figure f) throws IOException {
                try {
                    return f.of(store());
                } catch (IOException e) {
                    found = null; // the directory went: its nearest parent is asked
                    return f.of(store());
                }
            }

            private FileStore store() throws IOException {
                FileStore kept = found;
                if (kept != null) {
                    return kept;
                }
                Path p = existing(dir);
                FileStore store = Files.getFileStore(p);
                if (p.equals(dir.toAbsolutePath())) {
                    found = store;
                }
                return store;
            }

            @Override
            public String toString() {
                return "filesystem of " + dir;
            }
        };
    }
}
