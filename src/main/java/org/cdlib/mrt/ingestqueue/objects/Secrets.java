package org.cdlib.mrt.ingestqueue.objects;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * Files that hold secrets the service generates (the admin password, the key that signs file
 * URLs): under {@code <ingest.home>/.secrets/} (mode 0700), each written once with mode 0600,
 * so that hosts sharing the directory share them and a restart keeps them.
 */
public final class Secrets {
    public static final String DIRECTORY = ".secrets";

    private Secrets() {
    }

    public static Path directory(Path ingestHome) {
        return ingestHome.toAbsolutePath().normalize().resolve(DIRECTORY);
    }

    /**
     * Writes {@code text} to {@code file} readable by the owner only; fails with
     * {@link java.nio.file.FileAlreadyExistsException} if another process wrote it first.
     */
    public static void writePrivate(Path file, String text) throws IOException {
        Path dir = file.getParent();
        boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
        if (!Files.isDirectory(dir)) {
            if (posix) {
                Files.createDirectories(
                        dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } else {
                Files.createDirectories(dir);
            }
        }
        Path tmp = dir.resolve("." + file.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
        if (posix) {
            Files.deleteIfExists(tmp);
            Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        Files.writeString(
                tmp,
                text,
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE);
        try {
            // a link, not a move: never replaces what another host wrote meanwhile
            Files.createLink(file, tmp);
        } catch (UnsupportedOperationException e) {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * A signing key: the configured one, else 32 random bytes kept in {@code <ingest.home>/.secrets/<file>},
     * made on first use (every host sharing the home uses the same).
     */
    public static byte[] signingKey(Path ingestHome, String configuredKey, String file) throws IOException {
        if (configuredKey != null && !configuredKey.isBlank()) {
            return configuredKey.strip().getBytes(StandardCharsets.UTF_8);
        }
        Path f = directory(ingestHome).resolve(file);
        if (!Files.exists(f)) {
            byte[] b = new byte[32];
            new SecureRandom().nextBytes(b);
            try {
                writePrivate(f, Base64.getEncoder().encodeToString(b) + "\n");
            } catch (FileAlreadyExistsException e) {
                // another host made it first: use theirs
            }
        }
        return Base64.getDecoder().decode(Files.readString(f, StandardCharsets.UTF_8).strip());
    }
}
