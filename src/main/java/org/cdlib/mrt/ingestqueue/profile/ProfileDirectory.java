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
    private final Path dir;
    private volatile Map<String, Profile> profiles = Map.of();

    public ProfileDirectory(Path dir) {
        this.dir = dir;
        reload();
    }

    /** Reads every regular, non-hidden file of the directory; an invalid one fails the whole load. */
    public synchronized void reload() {
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
