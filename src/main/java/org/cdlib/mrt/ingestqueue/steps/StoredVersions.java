package org.cdlib.mrt.ingestqueue.steps;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.services.StoredVersion;

/**
 * What storage made of each job — mode (add | update), version, deletions — kept as
 * {@code <ingest.home>/.versions/<bid>/<jid>.json}, outside the working directories, so the
 * depositor's report can say it after the working directory is removed. Cleanup removes a batch's
 * folder once the batch is gone ({@link #prune}).
 */
public final class StoredVersions {
    private StoredVersions() {
    }

    static Path file(Path ingestHome, String bid, String jid) {
        return ingestHome.resolve(".versions").resolve(bid).resolve(jid + ".json");
    }

    static void write(Path ingestHome, String bid, String jid, StoredVersion v) throws IOException {
        Path f = file(ingestHome, bid, jid);
        Files.createDirectories(f.getParent());
        Path tmp = f.resolveSibling(jid + ".json.tmp");
        Files.write(tmp, QueueJson.write(v));
        Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Removes {@code .versions/<bid>} of every batch that {@code exists} no longer knows; returns how many. */
    public static int prune(Path ingestHome, java.util.function.Predicate<String> exists) throws IOException {
        Path root = ingestHome.resolve(".versions");
        if (!Files.isDirectory(root)) {
            return 0;
        }
        int removed = 0;
        java.util.List<Path> batches;
        try (java.util.stream.Stream<Path> list = Files.list(root)) {
            batches = list.filter(Files::isDirectory).toList();
        }
        for (Path b : batches) {
            if (exists.test(b.getFileName().toString())) {
                continue;
            }
            try (java.util.stream.Stream<Path> walk = Files.walk(b)) {
                for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
            removed++;
        }
        return removed;
    }

    /** The job's stored version, or null when it has none (not yet stored, or failed before storage). */
    public static StoredVersion read(Path ingestHome, String bid, String jid) {
        Path f = file(ingestHome, bid, jid);
        try {
            return Files.isRegularFile(f) ? QueueJson.read(f.toString(), Files.readAllBytes(f), StoredVersion.class) : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
