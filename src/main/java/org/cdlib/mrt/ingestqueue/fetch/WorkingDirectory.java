package org.cdlib.mrt.ingestqueue.fetch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A job's working directory ({@code configuration.working_dir}), which must lie under
 * {@code ingest.home}: {@code producer/} holds the object's files, {@code system/} the files
 * processing writes, and {@code .download/} what downloading keeps between attempts (partial
 * files and the record of completed ones) — outside producer/ and system/, so it never
 * becomes part of the object.
 */
public record WorkingDirectory(Path root) {

    public static WorkingDirectory of(Path ingestHome, String workingDir) throws FetchException {
        if (workingDir == null || workingDir.isBlank()) {
            throw new FetchException("the job has no working_dir");
        }
        Path home = ingestHome.toAbsolutePath().normalize();
        Path dir = Path.of(workingDir).toAbsolutePath().normalize();
        if (!dir.startsWith(home) || dir.equals(home)) {
            throw new FetchException("working directory " + workingDir + " is not under ingest.home " + home);
        }
        try {
            // a symbolic link on the way must not lead outside ingest.home either
            if (Files.exists(dir) && Files.exists(home) && !dir.toRealPath().startsWith(home.toRealPath())) {
                throw new FetchException("working directory " + workingDir + " leads outside ingest.home " + home);
            }
        } catch (IOException e) {
            throw new FetchException("working directory " + workingDir + ": " + Fetcher.describe(e), e);
        }
        return new WorkingDirectory(dir);
    }

    public Path producer() {
        return root.resolve("producer");
    }

    public Path system() {
        return root.resolve("system");
    }

    public Path downloads() {
        return root.resolve(".download");
    }
}
