package org.cdlib.mrt.ingestqueue.fetch;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;
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

    /**
     * Notes which batch an uploaded payload ({@code file:} under
     * {@code <ingestHome>/uploads}) became; others are left alone.
     */
    public static void write(Path ingestHome, String payloadUrl, String bid) {
        if (payloadUrl == null || !payloadUrl.startsWith("file:")) {
            return;
        }
        try {
            Path file = Path.of(URI.create(payloadUrl));
            Path uploads = ingestHome.toAbsolutePath().normalize().resolve("uploads");
            if (file.startsWith(uploads) && file.getParent() != null) {
                Files.writeString(file.getParent().resolve(FILE), bid);
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("upload {}: cannot note batch {}: {}", payloadUrl, bid, e.getMessage());
        }
    }

    /**
     * Removes an upload kept for a submission that was then refused (the queue was busy or full):
     * its directory under {@code <ingestHome>/uploads} and everything in it. Other URLs are left alone.
     */
    public static void discard(Path ingestHome, String payloadUrl) {
        Path dir = uploadDir(ingestHome, payloadUrl);
        if (dir == null) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("upload {}: cannot remove it after its submission was refused: {}", payloadUrl, e.getMessage());
        }
    }

    /**
     * The upload's own directory ({@code uploads/bid-<uuid>}) when {@code payloadUrl} names a file there, else null.
     */
    private static Path uploadDir(Path ingestHome, String payloadUrl) {
        if (payloadUrl == null || !payloadUrl.startsWith("file:")) {
            return null;
        }
        try {
            Path file = Path.of(URI.create(payloadUrl)).normalize();
            Path uploads = ingestHome.toAbsolutePath().normalize().resolve("uploads");
            if (!file.startsWith(uploads) || file.getNameCount() <= uploads.getNameCount() + 1) {
                return null;
            }
            Path dir = uploads.resolve(file.getName(uploads.getNameCount()));
            // never .incoming, never uploads itself
            return dir.getFileName().toString().startsWith("bid-") ? dir : null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** The batch the upload in {@code dir} became, if it was noted. */
    public static Optional<String> batchOf(Path dir) throws IOException {
        Path mark = dir.resolve(FILE);
        return Files.isRegularFile(mark) ? Optional.of(Files.readString(mark).strip()) : Optional.empty();
    }
}
