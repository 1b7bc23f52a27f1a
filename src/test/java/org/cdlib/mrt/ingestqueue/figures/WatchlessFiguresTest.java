package org.cdlib.mrt.ingestqueue.figures;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.ZooKeeper;
import org.cdlib.mrt.ingestqueue.api.dashboard.DashboardWatchesTest;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.FolderChanges;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.testing.MovingClock;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The figures a host that serves the API keeps without watching the queue: every host's arrivals
 * per state counted from the state folders' {@code Stat}s, a batch's rate from its endings each
 * time it is shown, and the dashboard's watches kept only while a page is connected.
 */
class WatchlessFiguresTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    @TempDir
    Path dir;

    @Test
    void arrivalsOfEveryHostAreCountedExactlyFromTheFoldersStats() throws Exception {
        QueueStore a = ZK.store(dir.resolve("a"));
        try (CuratorFramework other = QueueTestSupport.client(ZK.server())) {
            QueueStore b = QueueTestSupport.store(other, dir.resolve("b"));
            Activity activity = new Activity(Clock.systemUTC());
            StateArrivals arrivals = new StateArrivals(a, activity, Clock.systemUTC());
            arrivals.count(); // where counting starts: nothing before it is an arrival
            String bid = QueueTestSupport.batchWithJobs(a, 6, 5);
            List<String> jids = a.batches().jobs(bid, BatchRef.PROCESSING);
            for (int i = 0; i < 4; i++) {
                QueueTestSupport.walk(b, jids.get(i), JobState.ESTIMATING); // another host's moves
            }
            QueueTestSupport.walk(a, jids.get(0), JobState.PROVISIONING, JobState.DOWNLOADING);
            QueueTestSupport.walk(b, jids.get(5), JobState.FAILED);
            arrivals.count();
            Map<String, Long> counted = arrived(activity);
            assertEquals(Map.of("pending", 6L, "estimating", 4L, "provisioning", 1L, "downloading", 1L, "failed", 1L),
                    counted);
            arrivals.count(); // nothing moved since: nothing more
            assertEquals(counted, arrived(activity));
            b.close();
        }
    }

    @Test
    void aCountAfterAGapCountsNothingAndTheMinuteIsNotWrittenAsWhole() {
        QueueStore store = ZK.store(dir);
        MovingClock clock = new MovingClock("2026-11-24T10:00:30Z");
        Activity activity = new Activity(clock);
        StateArrivals arrivals = new StateArrivals(store, activity, clock);
        clock.now = Instant.parse("2026-11-24T10:01:01Z");
        arrivals.count();
        QueueTestSupport.batchWithJobs(store, 3, 5);
        // ZooKeeper away for 39 s: what arrived meanwhile is not counted
        clock.now = Instant.parse("2026-11-24T10:01:40Z");
        arrivals.count();
        long m = clock.now.toEpochMilli() / 60_000;
        assertEquals(Map.of(), activity.figures(m).get("arrived"));
        QueueTestSupport.batchWithJobs(store, 2, 5);
        clock.now = Instant.parse("2026-11-24T10:01:45Z");
        arrivals.count();
        assertEquals(Map.of("pending", 2L), activity.figures(m).get("arrived"),
                "counted again from the count after the gap");
        clock.now = Instant.parse("2026-11-24T10:02:05Z");
        assertFalse(activity.watchedWhole(m), "a minute with a gap is not shared as every host's");
    }

    @Test
    void aFoldersChangesAreCountedAcrossTheCountersWrapAndNotAcrossItsRecreation() {
        // 4 changes across 2^31: 3 created, 1 deleted
        assertEquals(3, new FolderChanges(Integer.MIN_VALUE + 1, 5).createdSince(new FolderChanges(
                Integer.MAX_VALUE - 2, 3)));
        assertEquals(0, new FolderChanges(2, 2).createdSince(new FolderChanges(90, 7)), "a folder made anew");
        assertEquals(5, new FolderChanges(7, 3).created(), "5 created, 2 deleted");
    }

    @Test
    void aBatchsRateComesFromItsEndingsEachTimeItIsShown() {
        MovingClock clock = new MovingClock("2026-11-24T10:00:00Z");
        Activity activity = new Activity(clock);
        long created = clock.now.toEpochMilli();
        assertNull(activity.batchRate("bid0000000001", 0, created), "nothing ended yet");
        clock.now = Instant.parse("2026-11-24T10:02:00Z");
        assertEquals(5.0, activity.batchRate("bid0000000001", 10, created), "10 in its first 2 minutes");
        // an old batch first shown now: no rate until it is shown again
        long old = Instant.parse("2026-11-24T09:00:00Z").toEpochMilli();
        assertNull(activity.batchRate("bid0000000002", 500, old));
        clock.now = Instant.parse("2026-11-24T10:03:00Z");
        assertEquals(12.0, activity.batchRate("bid0000000002", 512, old));
        clock.now = Instant.parse("2026-11-24T10:03:30Z");
        assertEquals(16.0, activity.batchRate("bid0000000002", 524, old),
                "24 in the 1.5 minutes since it was first shown");
        clock.now = Instant.parse("2026-11-24T10:20:00Z");
        assertNull(activity.batchRate("bid0000000002", 524, old), "none ended in the window");
    }

    @Test
    void theOpenStatesViewsAreOnOnlyWhileABatchsProgressIsAskedFor() throws Exception {
        QueueStore store = ZK.store(dir);
        ZooKeeper zk = store.client().getZookeeperClient().getZooKeeper();
        OpenStates open = new OpenStates(store, 300);
        try {
            open.listed();
            assertFalse(open.watching(), "the minute's sample lists, it does not watch");
            open.snapshot(); // a batch's progress asked for
            assertTrue(open.watching());
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                open.closeIfIdle();
                return !open.watching() && DashboardWatchesTest.recursiveWatches(zk).isEmpty();
            });
        } finally {
            open.close();
        }
    }

    @Test
    void aSampleTellsTheWaitOfWaitingJobsFromTheStepTimeOfActiveOnes() throws Exception {
        QueueStore store = ZK.store(dir);
        store.hosts().register();
        String bid = QueueTestSupport.batchWithJobs(store, 6, 5);
        List<String> jids = store.batches().jobs(bid, BatchRef.PROCESSING);
        QueueTestSupport.walk(store, jids.get(0), JobState.ESTIMATING);
        QueueTestSupport.walk(store, jids.get(1), JobState.ESTIMATING);
        QueueTestSupport.walk(store, jids.get(2), JobState.ESTIMATING, JobState.PROVISIONING);
        QueueTestSupport.walk(store, jids.get(3), JobState.HELD);
        store.hosts().started(jids.get(0)); // a worker holds these two: active
        store.hosts().started(jids.get(2));
        // a minute and a half on: every job has waited or been in its step about 90 s
        MovingClock clock = new MovingClock(Instant.now().plusSeconds(90).toString());
        try (BacklogSample backlog = new BacklogSample(store, clock)) {
            await().atMost(Duration.ofSeconds(10)).until(() -> backlog.times().stepSeconds().size() == 2);
            BacklogSample.Times t = backlog.times();
            assertEquals(List.of("estimating", "provisioning"), List.copyOf(t.stepSeconds().keySet()));
            // provisioning's only job is active: it has a step time, no wait (the old chart called it a wait)
            assertEquals(List.of("pending", "estimating"), List.copyOf(t.waitSeconds().keySet()));
            for (long seconds : List.of(t.waitSeconds().get("pending"), t.waitSeconds().get("estimating"),
                    t.stepSeconds().get("estimating"), t.stepSeconds().get("provisioning"))) {
                assertTrue(seconds >= 85 && seconds <= 100, t.toString());
            }
        } finally {
            store.hosts().ended(jids.get(0));
            store.hosts().ended(jids.get(2));
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Long> arrived(Activity activity) {
        long m = activity.minuteNow();
        Map<String, Long> out = new TreeMap<>();
        for (long minute = m - 1; minute <= m; minute++) { // the minute may have turned between the counts
            ((Map<String, Long>) activity.figures(minute).get("arrived")).forEach((k, v) -> out.merge(k, v, Long::sum));
        }
        return out;
    }
}
