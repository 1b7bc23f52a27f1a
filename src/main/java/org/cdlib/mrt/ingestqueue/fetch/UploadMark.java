package org.cdlib.mrt.ingestqueue.fetch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The file in an uploaded payload's directory ({@code uploads/<uuid>}) naming the batch it
 * became, written right after the batch is created: cleanup keeps the upload exactly as long as
 * that batch.
 */
public final class UploadMark {
    // the line keeps the logger name operators knew it by, from when cleanup wrote the mark
    private static final Logger LOG = LoggerFactory.getLogger("org.cdlib.mrt.ingestqueue.maintenance.CleanupStep");
    public static final String FILE = ".bid";

    private UploadMark() {
    }

    /** Notes which batch an uploaded payload ({@code file:} under {@code <ingestHome>/uploads}) became; others are left alone. */
    public static void write(Path ingestHome, String payloadUrl, String bid) {
        if (payloadUrl == null || !payloadUrl.startsWith("file:")) {
            return;
        }
        try {
            Path file = Path.of(java.net.URI.create(payloadUrl));
            Path uploads = ingestHome.toAbsolutePath().normalize().resolve("uploads");
            if (file.startsWith(uploads) && file.getParent() != null) {
                Files.writeString(file.getParent().resolve(FILE), bid);
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("upload {}: cannot note batch {}: {}", payloadUrl, bid, e.getMessage());
        }
    }

    /** The batch the upload in {@code dir} became, if it was noted. */
    public static Optional<String> batchOf(Path dir) throws IOException {
        Path mark = dir.resolve(FILE);
        return Files.isRegularFile(mark) ? Optional.of(Files.readString(mark).strip()) : Optional.empty();
    }
}
