package org.cdlib.mrt.ingestqueue.profile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/** Profiles read from a directory, one file per profile. */
public class ProfileDirectory implements ProfileRegistry {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ProfileDirectory.class);
    private final Path dir;
    private volatile Map<String, Profile> profiles = Map.of();
    private volatile List<String> signature = List.of();
    private java.util.concurrent.ScheduledExecutorService watcher;

    public ProfileDirectory(Path dir) {
        this.dir = dir;
        reload();
    }

    /** Reads every regular, non-hidden file of the directory; an invalid one fails the whole load. */
    public synchronized void reload() {
        signature = signature();
        Map<String, Profile> loaded = new TreeMap<>();
        if (Files.isDirectory(dir)) {
            try (Stream<Path> files = Files.list(dir)) {
                List<Path> list = files.filter(Files::isRegularFile)
                        .filter(p -> !p.getFileName().toString().startsWith(".")).sorted().toList();
                for (Path p : list) {
                    Profile profile = Profile.read(p);
                    loaded.put(profile.id(), profile);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot list profiles in " + dir, e);
            }
        }
        profiles = Map.copyOf(loaded);
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
            LOG.error("profiles in {} not reloaded: {}; the {} profile(s) loaded before stay in force", dir, e.getMessage(),
                    profiles.size());
            return false;
        }
    }

    /** Checks the directory for changes every {@code period} until {@link #close()}. */
    public synchronized void watch(java.time.Duration period) {
        if (watcher == null) {
            watcher = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "profile-reload");
                t.setDaemon(true);
                return t;
            });
            watcher.scheduleWithFixedDelay(this::reloadIfChanged, period.toMillis(), period.toMillis(),
                    java.util.concurrent.TimeUnit.MILLISECONDS);
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
            return files.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().startsWith(".")).sorted()
                    .map(p -> {
                        try {
                            return p.getFileName() + ":" + Files.size(p) + ":" + Files.getLastModifiedTime(p).toMillis();
                        } catch (IOException e) {
                            return p.getFileName() + ":?";
                        }
                    }).toList();
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
