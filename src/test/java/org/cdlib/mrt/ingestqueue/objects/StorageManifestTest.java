package org.cdlib.mrt.ingestqueue.objects;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
import org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Recording lists the files from the manifest storing wrote, exactly as building it again would. */
class StorageManifestTest {
    @TempDir
    Path wd;

    @Test
    void theWrittenManifestListsWhatBuildingItAgainLists() throws Exception {
        Files.createDirectories(wd.resolve("producer/sub dir"));
        Files.writeString(wd.resolve("producer/a 100% | b.txt"), "hello");
        Files.writeString(wd.resolve("producer/sub dir/%7c.bin"), "x".repeat(70_000));
        Files.createDirectories(wd.resolve("system"));
        Files.writeString(wd.resolve("system/mrt-erc.txt"), "erc:\nwho: A\n");
        StorageManifest built = StorageManifest.build(wd, (f, name) -> "http://files/" + name);
        Files.writeString(wd.resolve("system").resolve(StorageManifest.NAME), built.text());

        assertEquals(built.files(), StorageManifest.written(wd).orElseThrow());
        assertEquals(3, built.files().size());
        assertEquals("producer/a 100% | b.txt", built.files().get(0).name());
    }

    @Test
    void anotherDigestComesFromTheSameReadAndChangesNothingElse() throws Exception {
        Files.createDirectories(wd.resolve("producer"));
        byte[] big = new byte[600_000]; // several reads' worth
        new Random(3).nextBytes(big);
        Files.write(wd.resolve("producer/big.bin"), big);
        Files.writeString(wd.resolve("producer/small.txt"), "hello");
        StorageManifest plain = StorageManifest.build(wd, (f, name) -> name, 0);
        StorageManifest both = StorageManifest.build(wd, (f, name) -> name, 0, DigestAlgorithm.SHA512);

        assertEquals(plain.files(), both.files());
        assertTrue(plain.alsoDigests().isEmpty());
        assertEquals(2, both.alsoDigests().size());
        assertEquals(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-512").digest(big)),
                both.alsoDigests().get("producer/big.bin"));
        assertEquals(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(big)),
                both.files().get(0).digestValue());
    }

    @Test
    void noWrittenManifestIsNone() throws Exception {
        assertTrue(StorageManifest.written(wd).isEmpty());
    }

    @Test
    void cellsDecodeOnlyTheirEscapes() {
        assertEquals("a%7c b|c", StorageManifest.uncell("a%257c%20b%7cc"));
    }
}
