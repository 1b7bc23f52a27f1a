package org.cdlib.mrt.ingestqueue.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.commons.io.FileUtils;

/**
 * A benchmark's working directory, deleted when the JVM exits ({@code -Dbench.keep=true} keeps it
 * to look at). A real-path run leaves ~2 GB (storage, inventory, ZooKeeper's logs): 56 runs left
 * behind filled half this machine's disk, and provisioning then rightly held every job for space.
 */
final class BenchDirs {
    private BenchDirs() {
    }

    static Path temporary(String prefix) throws IOException {
        return keep(Files.createTempDirectory(prefix));
    }

    /** In {@code parent}: another filesystem than the default temporary one. */
    static Path temporary(Path parent, String prefix) throws IOException {
        return keep(Files.createTempDirectory(parent, prefix));
    }

    private static Path keep(Path dir) {
        if (!Boolean.getBoolean("bench.keep")) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> FileUtils.deleteQuietly(dir.toFile())));
        }
        return dir;
    }
}
