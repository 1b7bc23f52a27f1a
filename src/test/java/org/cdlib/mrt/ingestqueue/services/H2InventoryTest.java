package org.cdlib.mrt.ingestqueue.services;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.cdlib.mrt.ingestqueue.objects.ManifestFile;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.profile.ProfileDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The H2 inventory: a version recorded again has the files of its last record; a bound local id keeps its first ARK.
 */
class H2InventoryTest {
    @TempDir
    Path dir;

    @Test
    void aVersionRecordedAgainHasTheFilesOfItsLastRecordAndANewVersionItsOwn() throws Exception {
        Path p = Files.createDirectories(dir.resolve("profiles"));
        Files.writeString(p.resolve("demo_content"), "ProfileID: demo_content\nCollection.1: ark:/99999/fk4c\n");
        Profile profile = new ProfileDirectory(p).require("demo_content");
        try (H2Inventory inv = new H2Inventory("jdbc:h2:file:" + dir.resolve("inv").toAbsolutePath())) {
            assertEquals(
                    0,
                    inv.currentVersion("ark:/99999/fk4h1"),
                    "an object it does not know: 0, as Merritt's /current answers");
            ManifestFile a = new ManifestFile("producer/a.txt", 5, "sha-256", "aa", "text/plain");
            ManifestFile b = new ManifestFile("producer/b.txt", 6, "sha-256", "bb", null);
            inv.add(profile, new StoredVersion("ark:/99999/fk4h1", 1, "m"), List.of("l1"), List.of(a, b));
            inv.add(profile, new StoredVersion("ark:/99999/fk4h1", 1, "m"), List.of("l1"), List.of(a));
            assertEquals(List.of(a), inv.files("ark:/99999/fk4h1"));
            assertEquals(1, inv.currentVersion("ark:/99999/fk4h1"));
            inv.add(profile, new StoredVersion("ark:/99999/fk4h1", 2, "m"), List.of("l1"), List.of(a, b));
            assertEquals(List.of(a, b), inv.files("ark:/99999/fk4h1"));
            assertEquals(2, inv.versions("ark:/99999/fk4h1"));
            assertEquals(2, inv.currentVersion("ark:/99999/fk4h1"));
        }
    }

    @Test
    void aLocalIdBoundTwiceKeepsItsFirstArk() throws Exception {
        try (H2Inventory inv = new H2Inventory("jdbc:h2:mem:bind-" + System.nanoTime())) {
            assertEquals("ark:/99999/fk4first", inv.bind("demo_content", "l1", "ark:/99999/fk4first"));
            assertEquals("ark:/99999/fk4first", inv.bind("demo_content", "l1", "ark:/99999/fk4second"));
            assertEquals("ark:/99999/fk4first", inv.primaryFor("demo_content", "l1").orElseThrow());
        }
    }
}
