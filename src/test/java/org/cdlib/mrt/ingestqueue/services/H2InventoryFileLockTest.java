package org.cdlib.mrt.ingestqueue.services;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The local inventory's H2 file is locked by the operating system (no watchdog a paused host loses to). */
class H2InventoryFileLockTest {
    @TempDir
    Path dir;

    @Test
    void fileUrlsGetTheOsLockUnlessTheyChoose() {
        assertEquals("jdbc:h2:file:/x/inv;FILE_LOCK=FS", H2Inventory.withOsFileLock("jdbc:h2:file:/x/inv"));
        assertEquals(
                "jdbc:h2:file:/x/inv;file_lock=NO", H2Inventory.withOsFileLock("jdbc:h2:file:/x/inv;file_lock=NO"));
        assertEquals("jdbc:h2:mem:inv", H2Inventory.withOsFileLock("jdbc:h2:mem:inv"));
        assertEquals(
                "jdbc:h2:file:/x/inv;AUTO_SERVER=TRUE",
                H2Inventory.withOsFileLock("jdbc:h2:file:/x/inv;AUTO_SERVER=TRUE"));
        assertEquals("jdbc:postgresql://db/inv", H2Inventory.withOsFileLock("jdbc:postgresql://db/inv"));
    }

    @Test
    void aFileDatabaseUnderTheOsLockOpensAndReopens() throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("inv").toAbsolutePath() + "/inv";
        try (H2Inventory first = new H2Inventory(url)) {
            assertEquals("ark:/1/a", first.bind("p", "local 1", "ark:/1/a"));
        }
        try (H2Inventory again = new H2Inventory(url)) {
            assertEquals(Optional.of("ark:/1/a"), again.primaryFor("p", "local 1"));
        }
    }
}
