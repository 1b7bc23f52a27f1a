package org.cdlib.mrt.ingestqueue.steps;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;

/** The space of the filesystem that holds the working directories; a seam so tests can fill a disk. */
public interface FreeSpace {

    long usableBytes() throws IOException;

    long totalBytes() throws IOException;

    /** The filesystem of {@code dir} (or of its nearest existing parent, before it is created). */
    static FreeSpace of(Path dir) {
        return new FreeSpace() {
            @Override
            public long usableBytes() throws IOException {
                return store().getUsableSpace();
            }

            @Override
            public long totalBytes() throws IOException {
                return store().getTotalSpace();
            }

            private FileStore store() throws IOException {
                Path p = dir.toAbsolutePath();
                while (p.getParent() != null && !Files.exists(p)) {
                    p = p.getParent();
                }
                return Files.getFileStore(p);
            }

            @Override
            public String toString() {
                return "filesystem of " + dir;
            }
        };
    }
}
