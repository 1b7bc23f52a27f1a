package org.cdlib.mrt.ingestqueue.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Profiles are validated when loaded and re-read when a file changes; a bad file never replaces good ones. */
class ProfileReloadTest {
    @TempDir
    Path dir;

    private void write(String name, String text, int secondsAgo) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, text);
        Files.setLastModifiedTime(f, FileTime.from(Instant.now().minusSeconds(secondsAgo)));
    }

    @Test
    void aChangedFileIsReloadedAndAnInvalidOneIsRefusedKeepingTheOldProfiles() throws Exception {
        write("a", "ProfileID: a\nCollection.1: ark:/1/c\nStorageNode: 1\nPriority: 04\n", 100);
        ProfileDirectory profiles = new ProfileDirectory(dir);
        assertEquals(4, profiles.require("a").priority());
        assertFalse(profiles.reloadIfChanged(), "nothing changed");

        write("a", "ProfileID: a\nCollection.1: ark:/1/c\nStorageNode: 1\nPriority: 02\n", 50);
        write("b", "ProfileID: b\nCollection.1: ark:/1/d\nStorageNode: 1\n", 50);
        assertTrue(profiles.reloadIfChanged());
        assertEquals(2, profiles.require("a").priority());
        assertTrue(profiles.find("b").isPresent());

        write("b", "ProfileID: b\nCollection.1: not-an-ark\nStorageNode: 1\n", 10);
        assertFalse(profiles.reloadIfChanged(), "an invalid profile is refused");
        assertEquals("ark:/1/d", profiles.require("b").collections().get(0), "the last good version stays");
        ProfileRegistry.UnknownProfileException e = assertThrows(ProfileRegistry.UnknownProfileException.class,
                () -> profiles.require("c"));
        assertEquals("unknown profile 'c'", e.getMessage());
    }

    @Test
    void anInvalidProfileAtStartNamesTheFileAndTheProblem() throws Exception {
        write("broken", "ProfileID: broken\nCollection.1: ark:/1/c\nStorageNode: seven\n", 0);
        RuntimeException e = assertThrows(RuntimeException.class, () -> new ProfileDirectory(dir));
        assertTrue(e.getMessage().contains("broken") && e.getMessage().contains("StorageNode"), e.getMessage());
    }
}
