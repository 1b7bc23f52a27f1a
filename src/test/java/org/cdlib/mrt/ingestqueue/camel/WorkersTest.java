package org.cdlib.mrt.ingestqueue.camel;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A worker whose run is cancelled (its session lost) is given back when its thread returns, not
 * at the cancel: no more runs than workers are ever under way, while the item itself may be
 * claimed again at once.
 */
class WorkersTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();

    @Test
    void aCancelledRunKeepsItsWorkerUntilItsThreadReturns() throws Exception {
        AtomicInteger freed = new AtomicInteger();
        Workers workers =
                new Workers(1, ZK.store(Files.createTempDirectory("workers-test")), id -> id, freed::incrementAndGet);
        ExecutorService pool = Executors.newFixedThreadPool(1);
        try {
            workers.start(pool);
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch mayReturn = new CountDownLatch(1);
            assertTrue(workers.reserve());
            assertTrue(workers.run("job-a", () -> {
                started.countDown();
                // a step that does not heed the interrupt at once (a blocking call finishing its write)
                while (true) {
                    try {
                        if (mayReturn.await(30, TimeUnit.SECONDS)) {
                            return;
                        }
                    } catch (InterruptedException e) {
                        // keeps going until told to return
                    }
                }
            }));
            assertTrue(started.await(10, TimeUnit.SECONDS));

            workers.abandonAll();
            assertEquals(List.of(), workers.inHand(), "the item is no longer in hand: it may be claimed again");
            assertFalse(workers.taken("job-a"));
            assertFalse(workers.anyFree(), "its thread still runs: the worker is not free yet");
            assertEquals(0, freed.get());

            mayReturn.countDown();
            await().atMost(Duration.ofSeconds(10)).until(workers::anyFree);
            assertEquals(1, freed.get(), "given back once, when the thread returned");
        } finally {
            pool.shutdownNow();
        }
    }
}
