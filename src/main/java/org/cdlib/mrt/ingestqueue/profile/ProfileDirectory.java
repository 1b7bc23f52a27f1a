package org.cdlib.mrt.ingestqueue.profile;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Profiles read from a directory, one file per profile. */
public class ProfileDirectory implements ProfileRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(ProfileDirectory.class);
    private final Path dir;
    private volatile Map<String, Profile> profiles = Map.of();
    private volatile List<String> signature = List.of();
    private final Set<String> warned = ConcurrentHashMap.newKeySet();
    private ScheduledExecutorService watcher;

    public ProfileDirectory(Path dir) {
        this.dir = dir;
        reload();
    }

    /**
     * Reads every regular, non-hidden file of the directory. Files that are not profiles — a
     * subfolder, a template with {@code ${...}} placeholders, an index or other file with an
     * extension ({@code index.yaml}, {@code README.md}), a file with no {@code ProfileID} line —
     * are skipped with one warning line each (not repeated on reloads); a file that is a profile
     * but invalid fails the whole load, naming the file and the problem.
     */
    public synchronized void reload() {
        signature = signature();
        Map<String, Profile> loaded = new TreeMap<>();
        if (Files.isDirectory(dir)) {
            try (Stream<Path> files = Files.list(dir)) {
                List<Path> list = files.filter(p -> !p.getFileName().toString().startsWith(".")).sorted().toList();
                for (Path p : list) {
                    String skip = notAProfile(p);
                    if (skip != null) {
                        if (warned.add(p.getFileName().toString() + ":" + skip)) {
                            LOG.warn("profiles {}: skipping {}: {}", dir, p.getFileName(), skip);
                        }
                        continue;
                    }
                    Profile profile = Profile.read(p);
                    loaded.put(profile.id(), profile);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot list profiles in " + dir, e);
            }
        }
        profiles = Map.copyOf(loaded);
    }

    /** Why {@code p} is not a profile file, or null when it should be read as one. */
    static String notAProfile(Path p) throws IOException {
        String name = p.getFileName().toString();
        if (Files.isDirectory(p)) {
            return "a folder, not a profile";
        }
        if (!Files.isRegularFile(p)) {
            return "not a regular file";
        }
        String lower = name.toLowerCase(Locale.ROOT);
        if (lower.matches(".*\\.(ya?ml|json|xml|md|html?|bak|orig|swp|tmp|sh|py|rb)") || lower.endsWith("~")
                || lower.startsWith("index.") || lower.startsWith("readme")) {
            return "an index, document or backup file (" + name + "), not a profile";
        }
        if (!Files.isReadable(p)) {
            return "not readable";
        }
        String text;
        try {
            text = Files.readString(p, StandardCharsets.UTF_8);
        } catch (MalformedInputException e) {
            return "not UTF-8 text";
        }
        if (text.contains("${")) {
            return "a template (it holds ${...} placeholders)";
        }
        if (!text.lines().anyMatch(l -> l.strip().startsWith("ProfileID:"))) {
            return "no 'ProfileID:' line";
        }
        return null;
    }

    /**
     * Each invalid profile of {@code dir}, one line naming the file, its line where there is one, and what
     * is wrong; also two files with one ProfileID. Empty when there is no such directory (yet): files that
     * are not profiles are skipped (see {@link #reload()}), not problems.
     */
    public static List<String> problems(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<String> problems = new ArrayList<>();
        Map<String, Path> ids = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.filter(f -> !f.getFileName().toString().startsWith(".")).sorted().toList()) {
                if (notAProfile(p) != null) {
                    continue;
                }
                try {
                    String id = Profile.read(p).id();
                    Path earlier = ids.putIfAbsent(id, p);
                    if (earlier != null) {
                        problems.add(p + ": ProfileID " + id + " is also the ProfileID of " + earlier
                                + "; each profile needs its own");
                    }
                } catch (InvalidProfileException e) {
                    problems.add(dir + File.separator + e.getMessage()); // the message begins with the file's name
                } catch (UncheckedIOException e) {
                    problems.add(e.getMessage());
                }
            }
        }
        return problems;
    }

    /**
     * The profiles a starting service serves from, or an {@link IllegalStateException} saying why
     * it cannot serve: {@code dir} is not a directory or cannot be listed, a profile in it is
     * invalid, or no file in it is a usable profile.
     */
    public static ProfileDirectory forStartup(Path dir) {
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException("ingest.profiles " + dir.toAbsolutePath()
                    + " is not a directory: cannot serve without profiles");
        }
        if (!Files.isReadable(dir) || !Files.isExecutable(dir)) {
            throw new IllegalStateException(
                    "ingest.profiles " + dir.toAbsolutePath() + " cannot be read: cannot serve without profiles");
        }
        ProfileDirectory d;
        try {
            d = new ProfileDirectory(dir);
        } catch (RuntimeException e) {
            throw new IllegalStateException("ingest.profiles " + dir.toAbsolutePath() + ": " + e.getMessage(), e);
        }
        if (d.all().isEmpty()) {
            throw new IllegalStateException("ingest.profiles " + dir.toAbsolutePath()
                    + " holds no usable profile (files that are not profiles are skipped): cannot serve");
        }
        return d;
    }

    /**
     * Re-reads the directory when a file was added, removed or changed. An invalid file is refused
     * with a log line naming it and its problem; the profiles loaded before stay in force.
     * Returns true when new profiles were loaded.
     */
    public synchronized boolean reloadIfChanged() {
        List<String> now = signature();
        if (now.equals(signature)) {
            return false;
        }
        try {
            reload();
            LOG.info("profiles reloaded from {}: {}", dir, profiles.keySet());
            return true;
        } catch (RuntimeException e) {
            signature = now; // say it once per change, not on every check
            LOG.error(
                    "profiles in {} not reloaded: {}; the {} profile(s) loaded before stay in force",
                    dir,
                    e.getMessage(),
                    profiles.size());
            return false;
        }
    }

    /** Checks the directory for changes every {@code period} until {@link #close()}. */
    public synchronized void watch(Duration period) {
        if (watcher == null) {
            watcher = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "profile-reload");
                t.setDaemon(true);
                return t;
            });
            watcher.scheduleWithFixedDelay(this::reloadIfChanged, period.toMillis(), period.toMillis(),
                    TimeUnit.MILLISECONDS);
        }
    }

    public synchronized void close() {
        if (watcher != null) {
            watcher.shutdownNow();
            watcher = null;
        }
    }

    private List<String> signature() {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(Files::isRegularFile)
                    .filter(p -> !p.getFileName().toString().startsWith("."))
                    .sorted()
                    .map(p -> {
                        try {
                            return p.getFileName() + ":" + Files.size(p) + ":"
                                    + Files.getLastModifiedTime(p).toMillis();
                        } catch (IOException e) {
                            return p.getFileName() + ":?";
                        }
                    })
                    .toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    public Path directory() {
        return dir;
    }

    @Override
    public Optional<Profile> find(String name) {
        return name == null ? Optional.empty() : Optional.ofNullable(profiles.get(name));
    }

    @Override
    public Collection<Profile> all() {
        return profiles.values();
    }
}
