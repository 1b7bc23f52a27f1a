package org.cdlib.mrt.ingestqueue.objects;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
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
    void noWrittenManifestIsNone() throws Exception {
        assertTrue(StorageManifest.written(wd).isEmpty());
    }

    @Test
    void cellsDecodeOnlyTheirEscapes() {
        assertEquals("a%7c b|c", StorageManifest.uncell("a%257c%20b%7cc"));
    }
}
