package org.cdlib.mrt.ingestqueue.queue.batches;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.admin.CleanupResult;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.space.IdBlocks;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.cdlib.mrt.ingestqueue.testing.merritt.MrtZk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 44: the oldest-batch mark the cleanup moves up never passes a batch, though batch numbers
 * are drawn in blocks ahead of their use, on several hosts, and Merritt's front end draws its own.
 */
class OldestMarkTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();

    /** A batch of one job, walked to completed and reported. */
    static String completedBatch(QueueStore store) {
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        QueueTestSupport.workTo(store, store.batches().jobs(bid, BatchRef.PROCESSING).get(0), JobState.COMPLETED);
        HeldBatch lock = store.batches().tryLock(bid, "reporter").orElseThrow();
        store.moves().transition(lock, BatchState.COMPLETED, "reported", null, null);
        return bid;
    }

    /** The batches a list finds, walking the number index from the newest number down to the mark. */
    static List<String> listed(QueueStore store) {
        return store.batches().numbers()
                .newest(store.batches().newestNumber(), store.batches().oldestNumber(), 1_000).bids();
    }

    static CleanupResult cleanup(QueueStore store) {
        return new AdminActions(store, Clock.systemUTC()).cleanup(Duration.ZERO);
    }

    @Test
    void aBatchMadeLateFromAHostsReservedBlockStaysAboveTheMarkOtherHostsCleanupMoves() throws Exception {
        QueueStore early = QueueTestSupport.store(ZK.otherClient(), Files.createDirectories(ZK.dir().resolve("a")));
        QueueStore cleaner = ZK.store(Files.createDirectories(ZK.dir().resolve("b")));
        String first = completedBatch(early); // draws this host's block of batch numbers; one used
        String other1 = completedBatch(cleaner);
        String other2 = completedBatch(cleaner);
        assertEquals(new CleanupResult(3, 3), cleanup(cleaner));
        long mark = cleaner.batches().oldestNumber();
        assertTrue(mark > QueuePaths.batchNumber(other2), "the mark passed what is gone: " + mark);

        String late = completedBatch(early); // the next number of the early host's block, below the batches gone
        assertEquals(QueuePaths.batchNumber(first) + 1, QueuePaths.batchNumber(late));
        assertTrue(QueuePaths.batchNumber(late) < QueuePaths.batchNumber(other1));
        assertTrue(cleaner.batches().oldestNumber() <= QueuePaths.batchNumber(late),
                "the creation lowered the mark to its number");
        assertEquals(List.of(late), listed(cleaner), "the list reaches it");
        assertEquals(List.of(late), listed(early));
        assertEquals(new CleanupResult(1, 1), cleanup(cleaner), "the cleanup reaches it");
        assertFalse(cleaner.batches().exists(late));
        assertEquals(List.of(), listed(cleaner));
    }

    @Test
    void aBatchMadeInTheStretchACleanupHasWalkedHoldsTheMarkItWrites() throws Exception {
        QueueStore early = QueueTestSupport.store(ZK.otherClient(), Files.createDirectories(ZK.dir().resolve("a")));
        QueueStore cleaner = ZK.store(Files.createDirectories(ZK.dir().resolve("b")));
        String first = completedBatch(early);
        completedBatch(cleaner);
        // numbers drawn on, as other hosts' blocks move them: the cleanup walks more than one stretch of 100
        IdBlocks.reserve(cleaner.calls(), cleaner.calls().currentHandle(), QueuePaths.BATCHES, 300);
        AtomicInteger stretches = new AtomicInteger();
        List<String> late = new ArrayList<>();
        CleanupResult r = new AdminActions(cleaner, Clock.systemUTC()).cleanup(Duration.ZERO, Duration.ZERO, () -> {
            if (stretches.incrementAndGet() == 2) {
                // the first stretch is read, the mark not yet written: the early host uses its block's next number
                late.add(early.batches().create(QueueTestSupport.submission("demo_content")));
            }
            return true;
        });
        assertEquals(new CleanupResult(2, 2), r);
        assertTrue(stretches.get() > 2, "walked on past the batch made");
        assertEquals(QueuePaths.batchNumber(first) + 1, QueuePaths.batchNumber(late.get(0)));
        assertEquals(QueuePaths.batchNumber(late.get(0)), cleaner.batches().oldestNumber());
        assertEquals(late, listed(cleaner));
    }

    @Test
    void aMerrittBatchTakenBelowAMarkAnEarlierVersionMovedTooFarLowersIt() throws Exception {
        QueueStore store = ZK.store(ZK.dir());
        completedBatch(store);
        assertEquals(List.of(), store.adoptMerrittBatches(), "the intake's cursor is past the numbers drawn");
        // a mark past every number drawn, as the cleanup before issue 44 moved it (up to /batches' cversion)
        long past = store.batches().newestNumber() + 1_000;
        ZK.client().create().orSetData().forPath(QueuePaths.OLDEST_BATCH, QueueJson.text(past));
        MrtZk mrtZk = new MrtZk(ZK.otherClient().getZookeeperClient().getZooKeeper());
        String bid = mrtZk.createBatch("bid-mark", MrtZk.submission("bid-mark", "hello.txt"));
        assertTrue(QueuePaths.batchNumber(bid) < past);
        assertEquals(List.of(bid), store.adoptMerrittBatches());
        assertTrue(store.batches().oldestNumber() <= QueuePaths.batchNumber(bid), "entered: the mark lowered");
        assertTrue(listed(store).contains(bid));
    }

    @Test
    void aBatchAnEarlierVersionsCleanupLeftBelowTheMarkIsReachedByTheFirstCleanupOfAProcess() throws Exception {
        QueueStore store = ZK.store(ZK.dir());
        String below = completedBatch(store);
        ZK.client().setData().forPath(QueuePaths.OLDEST_BATCH, QueueJson.text(QueuePaths.batchNumber(below) + 40));
        assertEquals(List.of(), listed(store), "below the mark: out of reach");
        assertEquals(new CleanupResult(1, 1), cleanup(store));
        assertFalse(store.batches().exists(below));
    }
}
