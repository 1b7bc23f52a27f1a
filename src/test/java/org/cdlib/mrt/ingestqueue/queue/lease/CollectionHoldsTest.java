package org.cdlib.mrt.ingestqueue.queue.lease;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A collection's hold is asked once and then kept under its watch: the pending step of every job
 * costs no request while nothing changes, and a hold placed by this process or another is seen.
 */
class CollectionHoldsTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();

    @TempDir
    Path dir;

    @Test
    void askedOnceThenKeptUntilAHoldChanges() throws Exception {
        QueueStore here = ZK.store(dir.resolve("a"));
        QueueStore other = ZK.store(dir.resolve("b")); // another host's view of the same queue
        assertFalse(here.holds().isCollectionHeld("demo_content"));
        long before = here.operations();
        for (int i = 0; i < 100; i++) {
            assertFalse(here.holds().isCollectionHeld("demo_content"));
        }
        assertEquals(0, here.operations() - before, "no request while the answer stands");

        here.holds().holdCollection("demo_content", "operator");
        assertTrue(here.holds().isCollectionHeld("demo_content"), "this process knows its own hold at once");
        assertTrue(other.holds().isCollectionHeld("demo_content"));
        assertFalse(other.holds().isCollectionHeld("other_collection"));

        here.holds().releaseCollection("demo_content");
        await().atMost(Duration.ofSeconds(10)).until(() -> !other.holds().isCollectionHeld("demo_content"));
        other.holds().holdCollection("demo_content", "operator");
        await().atMost(Duration.ofSeconds(10)).until(() -> here.holds().isCollectionHeld("demo_content"));
    }
}
