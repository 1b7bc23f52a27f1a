package org.cdlib.mrt.ingestqueue.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image's jar, built the way the Dockerfile's build stage builds it, where no Docker daemon runs:
 * exactly what its {@code COPY} lines copy (less what {@code .dockerignore} keeps out) in a directory
 * of its own, then its {@code mvn … package} line there (offline: the outer build fetched what it
 * needs; the stage's {@code dependency:go-offline} only fetches). The jar must carry what the
 * README says it carries — the bundled routes, profiles and application.properties, the dashboard —
 * and be the jar {@code mvn package} makes here, entry for entry.
 */
class DockerfileJarIT {
    static final Path PACKAGED = Path.of(System.getProperty("ingest.jar", "target/ingest-queue.jar"));

    @TempDir
    Path build;

    /** The build stage's lines: from its FROM … AS build to the next FROM. */
    static List<String> buildStage() throws IOException {
        List<String> out = new ArrayList<>();
        boolean in = false;
        for (String line : Files.readAllLines(Path.of("Dockerfile"))) {
            if (line.startsWith("FROM ")) {
                in = line.endsWith(" AS build");
            } else if (in && !line.isBlank() && !line.startsWith("#")) {
                out.add(line.strip());
            }
        }
        return out;
    }

    @Test
    void theImagesJarCarriesTheRoutesProfilesPropertiesAndDashboardAndIsTheJarMvnPackageMakes() throws Exception {
        List<String> stage = buildStage();
        assertTrue(stage.contains("WORKDIR /src"), stage.toString());
        List<PathMatcher> ignored = dockerignore();
        List<String> copied = new ArrayList<>();
        for (String line : stage) {
            if (line.startsWith("COPY ")) {
                String[] words = line.split("\\s+");
                assertEquals(3, words.length, "COPY <source> <destination>: " + line);
                copy(Path.of(words[1]), words[2], ignored);
                copied.add(words[1].replaceAll("/$", ""));
            }
        }
        assertEquals(Set.of("pom.xml", "src", "routes", "profiles", "application.properties"), Set.copyOf(copied),
                "the inputs of mvn package");

        List<String> mvn = stage.stream().filter(l -> l.startsWith("RUN mvn ") && l.contains(" package")).toList();
        assertEquals(1, mvn.size(), stage.toString());
        List<String> command = new ArrayList<>(List.of(mavenCommand(), "-o"));
        command.addAll(Arrays.asList(mvn.get(0).substring("RUN mvn ".length()).split("\\s+")));
        Path log = build.resolve("mvn.log");
        Process p = new ProcessBuilder(command).directory(build.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        boolean ended = p.waitFor(10, TimeUnit.MINUTES);
        if (!ended) {
            p.destroyForcibly();
        }
        assertTrue(ended && p.exitValue() == 0, String.join(" ", command) + ":\n" + Files.readString(log));

        Path jar = build.resolve("target/ingest-queue.jar");
        Set<String> entries = entries(jar);
        for (Path dir : List.of(Path.of("routes"), Path.of("profiles"))) {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    String name = dir + "/" + f.getFileName();
                    assertTrue(entries.contains(name), "the jar carries " + name);
                    assertEquals(Files.readString(f), read(jar, name), name + " as in the project");
                }
            }
        }
        assertEquals(Files.readString(Path.of("application.properties")), read(jar, "application.properties"));
        for (String e : List.of("dashboard/index.html", "dashboard/favicon.svg", "logback.xml",
                "org/cdlib/mrt/ingestqueue/Main.class")) {
            assertTrue(entries.contains(e), "the jar carries " + e);
        }
        try (JarFile j = new JarFile(jar.toFile())) {
            assertEquals("org.cdlib.mrt.ingestqueue.Main", j.getManifest().getMainAttributes().getValue("Main-Class"));
        }
        assertFalse(entries.stream().anyMatch(e -> e.contains(".secrets") || e.startsWith("data/")), "no queue data");
        if (Files.isRegularFile(PACKAGED)) { // after mvn package, as in verify
            assertEquals(entries(PACKAGED), entries, "the image's jar is the one mvn package makes");
        }
    }

    /** COPY's meaning: a folder's contents into the destination folder, a file into it (or as it, when named). */
    void copy(Path source, String destination, List<PathMatcher> ignored) throws IOException {
        Path to = build.resolve(destination);
        if (Files.isDirectory(source)) {
            try (Stream<Path> files = Files.walk(source)) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    if (!ignored(f, ignored)) {
                        Path target = to.resolve(source.relativize(f).toString());
                        Files.createDirectories(target.getParent());
                        Files.copy(f, target);
                    }
                }
            }
        } else {
            Path target = destination.endsWith("/") ? to.resolve(source.getFileName().toString()) : to;
            Files.createDirectories(target.getParent());
            Files.copy(source, target);
        }
    }

    static List<PathMatcher> dockerignore() throws IOException {
        List<PathMatcher> out = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(".dockerignore"))) {
            String pattern = line.strip().replaceAll("/$", "");
            if (!pattern.isEmpty() && !pattern.startsWith("#")) {
                out.add(FileSystems.getDefault().getPathMatcher("glob:" + pattern));
            }
        }
        return out;
    }

    /** Ignored when the path or a folder above it matches a pattern. */
    static boolean ignored(Path file, List<PathMatcher> patterns) {
        for (Path p = file; p != null; p = p.getParent()) {
            for (PathMatcher m : patterns) {
                if (m.matches(p)) {
                    return true;
                }
            }
        }
        return false;
    }

    static String mavenCommand() {
        String home = System.getProperty("maven.home");
        return home != null && Files.isExecutable(Path.of(home, "bin", "mvn")) ? Path.of(home, "bin", "mvn").toString()
                : "mvn";
    }

    static Set<String> entries(Path jar) throws IOException {
        try (JarFile j = new JarFile(jar.toFile())) {
            Set<String> names = new TreeSet<>();
            j.stream().map(ZipEntry::getName).filter(n -> !n.endsWith("/")).forEach(names::add);
            return names;
        }
    }

    static String read(Path jar, String name) throws IOException {
        try (JarFile j = new JarFile(jar.toFile())) {
            ZipEntry e = j.getEntry(name);
            assertTrue(e != null, "no " + name + " in " + jar);
            try (InputStream in = j.getInputStream(e)) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        }
    }
}
