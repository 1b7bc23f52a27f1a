package org.cdlib.mrt.ingestqueue.services;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ocfl.api.model.FileDetails;
import io.ocfl.api.model.ObjectVersionId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm;
import org.cdlib.mrt.ingestqueue.objects.StorageManifest;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.profile.ProfileDirectory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Local storage takes the producer files by a hard link moved into the version, their SHA-512 from the storage
 * manifest's read: no copy, no second read, and the working directory keeps every file for a store retried later.
 */
class OcflHandOffTest {
    @TempDir
    Path dir;
    Path wd;
    OcflStorage storage;
    Profile profile;
    byte[] big = new byte[300_000];

    @BeforeEach
    void setUp() throws Exception {
        wd = dir.resolve("queue/bid/jid");
        Files.createDirectories(wd.resolve("producer/sub"));
        Files.createDirectories(wd.resolve("system"));
        new Random(5).nextBytes(big);
        Files.write(wd.resolve("producer/sub/big.bin"), big);
        Files.writeString(wd.resolve("producer/a.txt"), "hello");
        Files.writeString(wd.resolve("system/mrt-erc.txt"), "erc:\nwho: A\n");
        storage = new OcflStorage(dir.resolve("storage"));
        Path p = Files.createDirectories(dir.resolve("profiles"));
        Files.writeString(p.resolve("demo_content"), "ProfileID: demo_content\nCollection.1: ark:/99999/fk4c\n");
        profile = new ProfileDirectory(p).require("demo_content");
    }

    private Map<String, String> digests() throws Exception {
        return StorageManifest.build(wd, (f, name) -> name, 0, storage.contentDigest()).alsoDigests();
    }

    private Path stored(String ark, int version, String name) {
        FileDetails f = storage.repository().describeVersion(ObjectVersionId.version(ark, version)).getFile(name);
        return dir.resolve("storage/objects").resolve(f.getStorageRelativePath());
    }

    @Test
    void producerFilesAreLinkedInNotCopiedAndTheWorkingDirectoryKeepsThem() throws Exception {
        StoredVersion v = storage.store(profile, "ark:/1/a", wd, "", null, false, List.of(), digests());

        assertEquals(1, v.version());
        Path kept = stored("ark:/1/a", 1, "producer/sub/big.bin");
        assertTrue(Files.isSameFile(kept, wd.resolve("producer/sub/big.bin")), "the downloaded file itself, no copy");
        assertArrayEquals(big, Files.readAllBytes(wd.resolve("producer/sub/big.bin")));
        assertFalse(Files.isSameFile(stored("ark:/1/a", 1, "system/mrt-erc.txt"), wd.resolve("system/mrt-erc.txt")),
                "system files are copied: storing rewrites its manifest on every attempt");
        assertEquals(digests().get("producer/sub/big.bin"),
                storage.versionFiles("ark:/1/a", 1).stream().filter(f -> f.name().equals("producer/sub/big.bin"))
                        .findFirst().orElseThrow().digestValue());
        assertTrue(storage.repository().validateObject("ark:/1/a", true).getErrors().isEmpty());
        try (Stream<Path> left = Files.list(dir.resolve("storage/work"))) {
            assertEquals(List.of(), left.toList(), "no hand-off left behind");
        }
    }

    @Test
    void aStoreRetriedAfterTheFirstFoundEveryFileStill() throws Exception {
        Map<String, String> digests = digests();
        storage.store(profile, "ark:/1/b", wd, "", null, false, List.of(), digests);
        // its answer lost and not resolved: the working directory is as the download left it, so a second add
        // stores the same files again (storing's effect record prevents this; here the files are what is checked)
        StoredVersion again = storage.store(profile, "ark:/1/b", wd, "", null, false, List.of(), digests());

        assertEquals(2, again.version());
        assertArrayEquals(big, Files.readAllBytes(stored("ark:/1/b", 2, "producer/sub/big.bin")));
        assertEquals(3, storage.versionFiles("ark:/1/b", 2).size());
    }

    @Test
    void aStoreFailedAfterSomeFilesWereHandedOverLeavesTheWorkingDirectoryWholeAndNoHandOff() throws Exception {
        // version 1 has a file producer/sub; an update carrying it forward cannot add producer/sub/big.bin, which
        // ocfl-java refuses after producer/a.txt was handed over
        Path other = dir.resolve("queue/bid/jid0");
        Files.createDirectories(other.resolve("producer"));
        Files.writeString(other.resolve("producer/sub"), "a file");
        storage.store(profile, "ark:/1/c", other, "", null, false, List.of(), Map.of());
        ServiceException e = assertThrows(ServiceException.class, () -> storage.store(profile, "ark:/1/c", wd, "",
                null, true, List.of(), digests()));
        assertTrue(e.getMessage().contains("producer/sub/big.bin conflicts"), e.getMessage()); // after a.txt

        assertArrayEquals(big, Files.readAllBytes(wd.resolve("producer/sub/big.bin")));
        assertEquals("hello", Files.readString(wd.resolve("producer/a.txt")));
        assertEquals(1, storage.currentVersion(profile, "ark:/1/c"));
        try (Stream<Path> left = Files.list(dir.resolve("storage/work"))) {
            assertEquals(List.of(), left.toList());
        }
    }

    @Test
    void aFileWithNoDigestGivenIsCopiedAndDigestedByOcfl() throws Exception {
        Map<String, String> some = new HashMap<>(digests());
        some.remove("producer/sub/big.bin");
        storage.store(profile, "ark:/1/d", wd, "", null, false, List.of(), some);

        assertFalse(Files.isSameFile(stored("ark:/1/d", 1, "producer/sub/big.bin"),
                wd.resolve("producer/sub/big.bin")));
        assertTrue(Files.isSameFile(stored("ark:/1/d", 1, "producer/a.txt"), wd.resolve("producer/a.txt")));
        assertTrue(storage.repository().validateObject("ark:/1/d", true).getErrors().isEmpty());
        assertEquals(DigestAlgorithm.SHA512, storage.contentDigest());
    }
}
