package org.cdlib.mrt.ingestqueue.runtime;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A JVM of a test's own, with the limits the README and the Dockerfile give a single host. */
final class Jvms {
    private Jvms() {
    }

    /** Runs {@code java <limits> <args>} in {@code dir}, its output and errors into {@code log}. */
    static Process start(Path dir, Path log, List<String> args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-XX:MaxMetaspaceSize=128m",
                "-Djute.maxbuffer=524288"));
        command.addAll(args);
        return new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
    }
}
