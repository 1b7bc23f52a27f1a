package org.cdlib.mrt.ingestqueue.figures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.hosts.ActivityMinutes;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.MovingClock;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The charts' minutes and the steps' times are shared through ZooKeeper: they survive a restart and read the same
 * on any host.
 */
class SharedActivityTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    @TempDir
    Path dir;

    @Test
    void aMinuteOneHostWatchedIsReadBackByAnotherAfterARestart() throws Exception {
        QueueStore store = ZK.store(dir);
        MovingClock clock = new MovingClock("2026-11-24T10:00:30Z");
        Activity a = new Activity(clock);
        long m1 = Instant.parse("2026-11-24T10:01:00Z").toEpochMilli() / 60_000;
        assertFalse(a.watchedWhole(m1 - 1), "the minute it started in is not whole");
        clock.now = Instant.parse("2026-11-24T10:01:20Z");
        for (int i = 0; i < 5; i++) {
            a.arrived("completed");
        }
        a.arrived("storing");
        a.arrived("nonsense");
        a.sample(Map.of("pending", 7), Map.of("active", 0, "waiting", 7, "held", 0),
                new BacklogSample.Times(Map.of("pending", 12L), Map.of()));
        clock.now = Instant.parse("2026-11-24T10:02:10Z");
        assertTrue(a.watchedWhole(m1));
        store.activity().write(m1, a.figures(m1));

        // another host wrote the same minute from a partial view: the first one stays
        store.activity().write(m1, Map.of("arrived", Map.of("completed", 1)));
        assertEquals(5, store.activity().read(m1, m1).get(m1).path("arrived").path("completed").asInt());

        // restarted, or another host behind the balancer
        Activity b = new Activity(new MovingClock("2026-11-24T10:02:15Z"));
        b.fill(store.activity().read(m1 - Activity.MINUTES, m1 + 1));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> rows = (List<Map<String, Object>>) b.view(3).get("per_minute");
        assertEquals(5L, ((Number) rows.get(1).get("completed")).longValue(), rows.toString());
        assertTrue(b.completedPerMinute(15) > 0, "a rate right after the restart");
        assertTrue(b.arrivedPerMinute("storing", 15) > 0);
        assertEquals(0.0, b.arrivedPerMinute("nonsense", 15));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> samples = (List<Map<String, Object>>) b.view(3).get("samples");
        assertEquals(1, samples.size());
        assertEquals(Map.of("pending", 7L), samples.get(0).get("jobs"));
        assertEquals(Map.of("active", 0L, "waiting", 7L, "held", 0L), samples.get(0).get("work"));
        assertEquals(Map.of("pending", 12L), samples.get(0).get("wait_seconds"));

        // a hostile node adds no keys; minutes older than the kept ones go
        ZK.client().create().forPath(QueuePaths.ACTIVITY + "/" + (m1 - 1),
                ("{\"arrived\":{\"x1\":1,\"x2\":2},\"sample\":{\"at\":\"2026-11-24T10:00:10Z\",\"x3\":[1],"
                + "\"jobs\":{\"x4\":1,\"pending\":\"many\",\"held\":2},\"work\":{\"x5\":1}}}").getBytes());
        Activity c = new Activity(new MovingClock("2026-11-24T10:02:15Z"));
        c.fill(store.activity().read(m1 - 5, m1));
        assertEquals(0.0, c.arrivedPerMinute("x1", 15));
        @SuppressWarnings("unchecked")
        Map<String, Object> hostile = ((List<Map<String, Object>>) c.view(5).get("samples")).get(0);
        assertEquals(Map.of("at", "2026-11-24T10:00:10Z", "jobs", Map.of("held", 2L), "work", Map.of(),
                "wait_seconds", Map.of()), hostile);
        store.activity().write(m1 + ActivityMinutes.KEPT_MINUTES + 2, Map.of("arrived", Map.of()));
        assertNull(ZK.client().checkExists().forPath(QueuePaths.ACTIVITY + "/" + m1), "older than the kept minutes");
    }

    /** Every host's step times are read by any host; the workers are those of the live, undrained hosts. */
    @Test
    void everyHostsStepsCountAndOnlyLiveHostsWorkersDo() throws Exception {
        QueueStore store = ZK.store(dir);
        MovingClock clock = new MovingClock("2026-11-24T10:00:30Z");
        StepTimes mine = new StepTimes(store, clock);
        mine.stepEnded("job/downloading", Duration.ofMillis(300), false);
        mine.stepEnded("job/downloading", Duration.ofMillis(500), false);
        mine.stepEnded("job/downloading", Duration.ofMillis(9000), true); // failed: not a step's time
        mine.stepEnded("batch/pending", Duration.ofMillis(100), false); // a batch's, not a job state's
        mine.flush();
        // another host, alive with 4 downloading workers, and a third one gone (its steps still count)
        store.activity().writeSteps("h2", Map.of("at", "2026-11-24T10:00:20Z", "steps", Map.of("downloading",
                List.of(700, 900)), "workers", Map.of("downloading", 4)));
        store.activity().writeSteps("gone", Map.of("at", "2026-11-24T09:50:00Z", "steps", Map.of("processing",
                List.of(50)), "workers", Map.of("processing", 8)));
        ZK.client().create().creatingParentsIfNeeded().forPath(QueuePaths.HOSTS + "/h2", ("{\"id\":\"h2\","
                + "\"host\":\"x\",\"pid\":1,\"started\":\"2026-11-24T10:00:00Z\","
                + "\"updated\":\"2026-11-24T10:00:00Z\",\"work\":[],\"leads\":[]}").getBytes());

        StepTimes.Shared shared = StepTimes.shared(store, clock);
        // the hosts interleaved, each one's newest first
        List<Long> downloading = shared.times().get(JobState.DOWNLOADING);
        assertEquals(List.of(500L, 300L), downloading.stream().filter(t -> t < 700).toList());
        assertEquals(List.of(900L, 700L), downloading.stream().filter(t -> t >= 700).toList());
        assertEquals(List.of(500L, 900L), downloading.subList(0, 2).stream().sorted().toList());
        assertEquals(List.of(50L), shared.times().get(JobState.PROCESSING));
        assertEquals(Map.of(JobState.DOWNLOADING, 4), shared.workers(),
                "only h2 is alive (this store registered none)");

        store.hosts().drain("h2", "op");
        assertEquals(Map.of(), StepTimes.shared(store, clock).workers(), "a drained host takes no work");
    }

    /**
     * How fast jobs left a state while more waited in it than its workers, measured by each host from the folders'
     * counts as it flushes, and read by any host.
     */
    @Test
    void aStatesLeaveRateWhileJobsWaitedIsMeasuredFromItsFolder() throws Exception {
        QueueStore store = ZK.store(dir);
        MovingClock clock = new MovingClock("2026-11-24T10:00:30Z");
        store.activity().writeSteps("h3", Map.of("at", "2026-11-24T10:00:20Z", "steps", Map.of("downloading",
                List.of(250, 250)), "workers", Map.of("downloading", 2)));
        ZK.client().create().creatingParentsIfNeeded().forPath(QueuePaths.HOSTS + "/h3", ("{\"id\":\"h3\","
                + "\"host\":\"x\",\"pid\":1,\"started\":\"2026-11-24T10:00:00Z\","
                + "\"updated\":\"2026-11-24T10:00:00Z\",\"work\":[],\"leads\":[]}").getBytes());
        String downloading = QueuePaths.jobState(JobState.DOWNLOADING);
        for (int i = 0; i < 30; i++) {
            ZK.client().create().creatingParentsIfNeeded().forPath(downloading + "/05-jid" + (100 + i));
        }
        StepTimes mine = new StepTimes(store, clock);
        try {
            measureLeaves(store, clock, mine, downloading);
        } finally {
            // the other tests' hosts are their own
            store.activity().dropSteps(store.hosts().id());
            store.activity().dropSteps("h3");
            ZK.client().delete().forPath(QueuePaths.HOSTS + "/h3");
        }
    }

    private static void measureLeaves(QueueStore store, MovingClock clock, StepTimes mine, String downloading)
            throws Exception {
        mine.flush();
        assertEquals(Map.of(), StepTimes.shared(store, clock).leaveShares(), "nothing measured yet");
        // 4 a second leave it for 4 seconds, 30 to 14 waiting for 2 workers; the first second is not counted
        for (int t = 0; t < 4; t++) {
            for (int i = 0; i < 4; i++) {
                ZK.client().delete().forPath(downloading + "/05-jid" + (100 + t * 4 + i));
            }
            clock.now = clock.now.plusSeconds(1);
            mine.flush();
        }
        // its 2 workers of 0.25 s would have let 8 a second go: half of it did
        assertEquals(Map.of(JobState.DOWNLOADING, 0.5), StepTimes.shared(store, clock).leaveShares());
    }

    /** The errors of the estimates each host checked count on every host; a damaged or old node adds nothing. */
    @Test
    void everyHostsCheckedEstimatesWidenEveryHostsRange() throws Exception {
        QueueStore store = ZK.store(dir);
        MovingClock clock = new MovingClock("2026-11-24T10:00:30Z");
        SharedErrors shared = new SharedErrors(store, clock);
        EstimateErrors mine = new EstimateErrors();
        try {
            // this host checked 5 estimates: 20% late each
            for (int b = 0; b < 5; b++) {
                mine.made("b" + b, 0.5, 0, 100_000);
                assertTrue(mine.ended("b" + b, 120_000));
            }
            assertFalse(mine.ended("b0", 130_000), "checked once");
            shared.publish(mine);
            assertEquals(Collections.nCopies(5, 0.2),
                    SharedErrors.errorsOf(store.activity().readErrors().get(store.hosts().id())));
            // another host checked 15, 10% early; a third wrote nonsense; a fourth wrote 7 hours ago
            List<Integer> early = Collections.nCopies(15, -10);
            store.activity().writeErrors("h5", Map.of("at", "2026-11-24T10:00:00Z", "errors", early));
            store.activity().writeErrors("h6", Map.of("at", "2026-11-24T10:00:00Z", "errors", List.of("x", -500, 1.5)));
            store.activity().writeErrors("h7", Map.of("at", "2026-11-24T03:00:00Z", "errors", early));
            assertNull(mine.spread(), "5 checked here: too few");
            shared.readIfDue(mine);
            EstimateErrors.Spread spread = mine.spread();
            assertEquals(20, spread.count(), "5 here and 15 on h5");
            assertEquals(-0.1, spread.median(), 1e-9);
            assertEquals(0.2, spread.high(), 1e-9);
            assertFalse(store.activity().readErrors().containsKey("h7"), "a node 7 hours old is deleted");
        } finally {
            for (String h : List.of(store.hosts().id(), "h5", "h6", "h7")) {
                store.activity().dropErrors(h);
            }
        }
    }
}
