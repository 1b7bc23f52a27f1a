package org.cdlib.mrt.ingestqueue.steps;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.cdlib.mrt.ingestqueue.queue.QueueJson;
import org.cdlib.mrt.ingestqueue.services.StoredVersion;

/**
 * What storage made of each job — mode (add | update), version, deletions — kept as
 * {@code <ingest.home>/<bid>/.versions/<jid>.json}, beside the batch's working directories but
 * outside them, so the depositor's report can say it after the working directory is removed.
 */
public final class StoredVersions {
    private StoredVersions() {
    }

    static Path file(Path ingestHome, String bid, String jid) {
        return ingestHome.resolve(bid).resolve(".versions").resolve(jid + ".json");
    }

    static void write(Path ingestHome, String bid, String jid, StoredVersion v) throws IOException {
        Path f = file(ingestHome, bid, jid);
        Files.createDirectories(f.getParent());
        Path tmp = f.resolveSibling(jid + ".json.tmp");
        Files.write(tmp, QueueJson.write(v));
        Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
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
