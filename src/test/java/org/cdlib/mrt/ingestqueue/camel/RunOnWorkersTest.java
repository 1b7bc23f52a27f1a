package org.cdlib.mrt.ingestqueue.camel;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.cdlib.mrt.ingestqueue.services.Run;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Each item a worker runs has a run of its own, begun and ended by the worker: a cancelled run's
 * interrupt and a deadline its fence left unused end with it, and the next item on the same
 * thread starts clean, whatever its steps do.
 */
class RunOnWorkersTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();

    @Test
    void theNextItemOnTheThreadHasARunOfItsOwn() throws Exception {
        Workers workers = new Workers(1, ZK.store(Files.createTempDirectory("run-on-workers")), id -> id, () -> { });
        ExecutorService pool = Executors.newFixedThreadPool(1);
        try {
            workers.start(pool);
            AtomicReference<Run> first = new AtomicReference<>();
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch never = new CountDownLatch(1); // what the step waits on: only the cancel ends its wait
            assertTrue(workers.reserve());
            assertTrue(workers.run("job-a", () -> {
                first.set(Run.current());
                Run.current().sendBy(System.nanoTime() - 1); // its fence, never followed by a send
                started.countDown();
                try {
                    never.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt(); // as a step restores it, and returns
                }
            }));
            assertTrue(started.await(10, TimeUnit.SECONDS));
            workers.abandonAll();
            await().atMost(Duration.ofSeconds(10)).until(workers::anyFree);
            assertTrue(first.get().cancelled());

            List<Object> seen = new CopyOnWriteArrayList<>();
            assertTrue(workers.reserve());
            assertTrue(workers.run("job-b", () -> {
                seen.add(Thread.currentThread().isInterrupted());
                seen.add(Run.current());
                try {
                    Run.checkSend("POST /add/9999/ark");
                    seen.add("sent");
                } catch (Exception e) {
                    seen.add(e);
                }
            }));
            await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 3);
            assertEquals(false, seen.get(0), "the cancel's interrupt ended with its run");
            assertNotSame(first.get(), seen.get(1));
            assertEquals("sent", seen.get(2), "the first run's deadline ended with it");
        } finally {
            pool.shutdownNow();
        }
    }
}
