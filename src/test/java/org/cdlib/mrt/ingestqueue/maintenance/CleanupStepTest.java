package org.cdlib.mrt.ingestqueue.maintenance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.cdlib.mrt.ingestqueue.fetch.UploadMark;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class CleanupStepTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    final Path dir = ZK.dir();

    Path upload(String name, Duration age) throws Exception {
        Path d = Files.createDirectories(dir.resolve("uploads").resolve(name));
        Files.writeString(d.resolve("payload.zip"), "x");
        Files.setLastModifiedTime(d, FileTime.from(Instant.now().minus(age)));
        return d;
    }

    @Test
    void uploadsNoBatchNamesAreRemovedOnceOlderThanTheRetention() throws Exception {
        QueueStore store = ZK.store(dir);
        Path named = upload("named", Duration.ofDays(30));
        Path orphan = upload("orphan", Duration.ofDays(30));
        Path fresh = upload("fresh", Duration.ofMinutes(1));
        String url = named.resolve("payload.zip").toUri().toString();
        String bid = store.batches().create(new BatchSubmission("demo_content", "t", url, null, null,
                null, null, "container", "add", "payload.zip", null, null, null, null, null, "json", null, null, null));
        UploadMark.write(dir, url, bid);
        Path gone = upload("gone", Duration.ofDays(30));
        Files.writeString(gone.resolve(UploadMark.FILE), "bid0000000404"); // its batch was removed
        Files.setLastModifiedTime(gone, FileTime.from(Instant.now().minus(Duration.ofDays(30))));
        CleanupStep step = new CleanupStep(
                new AdminActions(store, Clock.systemUTC()), store, Duration.ofDays(7), Clock.systemUTC());
        assertEquals(2, step.pruneUploads());
        assertFalse(Files.exists(orphan));
        assertFalse(Files.exists(gone));
        assertTrue(Files.exists(named.resolve("payload.zip")), "its batch still names it");
        assertTrue(Files.exists(fresh), "too young: its batch may be being created");
    }
}
