package org.cdlib.mrt.ingestqueue.camel;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.cdlib.mrt.ingestqueue.services.H2Inventory;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A run cancelled on a lost session is interrupted; H2 reads its database through one file
 * channel, which an interrupt inside it closes for every connection. The chaos test saw a host
 * paused past its session fail every later recording with "The database has been closed". The
 * inventory's calls hold a cancel's interrupt until they return, and refuse to start on a thread
 * already interrupted, so the other runs of the host keep their inventory.
 */
class AbandonedInventoryCallTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();

    /** Local ids of 1,000 characters fill H2's pages: 20,000 of them are far more than its cache keeps. */
    private static final String PAD = "x".repeat(1000);

    private String url;

    /** A database larger than H2's cache, opened afresh, so that a lookup reads the file. */
    @BeforeEach
    void database() throws Exception {
        Path dir = Files.createTempDirectory("abandoned-inventory");
        url = "jdbc:h2:file:" + dir.resolve("inv").toAbsolutePath();
        new H2Inventory(url).close();
        try (Connection c = DriverManager.getConnection(url, "sa", "");
                PreparedStatement p =
                        c.prepareStatement("INSERT INTO local_ids (profile, local_id, ark) VALUES (?, ?, ?)")) {
            for (int i = 0; i < 20_000; i++) {
                p.setString(1, "profile");
                p.setString(2, i + PAD);
                p.setString(3, "ark:/99999/fk" + i);
                p.addBatch();
                if (i % 1000 == 999) {
                    p.executeBatch();
                }
            }
        }
        url += ";CACHE_SIZE=1024";
    }

    @Test
    void aRunInterruptedBeforeItsCallLeavesTheInventoryToTheOthers() throws Exception {
        try (H2Inventory inventory = new H2Inventory(url)) {
            AtomicReference<Throwable> refused = new AtomicReference<>();
            runOnWorker(workers -> { }, () -> {
                Thread.currentThread().interrupt(); // cancelled between two of its calls
                try {
                    inventory.primaryFor("profile", 7 + PAD);
                } catch (Throwable t) {
                    refused.set(t);
                }
            });
            assertEveryLookupAnswers(inventory);
            assertInstanceOf(CancellationException.class, refused.get(), "the call is refused before it starts");
        }
    }

    @Test
    void aRunCancelledInsideItsCallsLeavesTheInventoryToTheOthers() throws Exception {
        interruptedInsideItsCalls(workers -> workers.abandonAll()); // the session is lost while the run is inside
    }

    /**
     * A stop past its timeout interrupts what still runs: the runs inside the inventory too, when their call returns.
     */
    @Test
    void aStopThatInterruptsItsRunsLeavesTheInventoryToTheOthers() throws Exception {
        interruptedInsideItsCalls(workers -> {
            try {
                assertFalse(workers.finish(0), "still running when the stop's time is up");
                workers.interrupt(30_000);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
    }

    /**
     * A run looks local ids up until it is interrupted by {@code
     * interrupt}, which comes while it is inside the inventory.
     */
    private void interruptedInsideItsCalls(Consumer<Workers> interrupt) throws Exception {
        try (H2Inventory inventory = new H2Inventory(url)) {
            AtomicInteger calls = new AtomicInteger();
            AtomicReference<Throwable> ended = new AtomicReference<>();
            runOnWorker(workers -> {
                await().atMost(Duration.ofSeconds(30)).until(() -> calls.get() >= 50);
                interrupt.accept(workers);
            }, () -> {
                try {
                    for (int i = 0; !Thread.currentThread().isInterrupted(); i = (i + 7919) % 20_000) {
                        inventory.primaryFor("profile", i + PAD);
                        calls.incrementAndGet();
                    }
                } catch (Throwable t) {
                    ended.set(t);
                }
            });
            assertEveryLookupAnswers(inventory);
            assertTrue(ended.get() == null || ended.get() instanceof CancellationException,
                    "the run ends at the interrupt, between calls: " + ended.get());
        }
    }

    /** Runs {@code body} on a worker, does {@code meanwhile} and waits for the worker's thread to return. */
    private static void runOnWorker(Consumer<Workers> meanwhile, Runnable body) throws Exception {
        Workers workers = new Workers(1, ZK.store(Files.createTempDirectory("workers")), id -> id, () -> { });
        ExecutorService pool = Executors.newFixedThreadPool(1);
        try {
            workers.start(pool);
            assertTrue(workers.reserve());
            assertTrue(workers.run("job-a", body));
            meanwhile.accept(workers);
            await().atMost(Duration.ofSeconds(30)).until(workers::anyFree);
        } finally {
            pool.shutdown();
            assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        }
    }

    /** Lookups from another thread, spread over the file, all answer, and a binding is written. */
    private static void assertEveryLookupAnswers(H2Inventory inventory) throws Exception {
        assertEquals("ark:/99999/fknew", inventory.bind("profile", "new", "ark:/99999/fknew"));
        List<Optional<String>> found = new ArrayList<>();
        for (int i = 0; i < 20_000; i += 997) {
            found.add(inventory.primaryFor("profile", i + PAD));
        }
        assertEquals(21, found.size());
        for (int k = 0; k < found.size(); k++) {
            assertEquals(Optional.of("ark:/99999/fk" + k * 997), found.get(k));
        }
    }
}
