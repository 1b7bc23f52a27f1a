package org.cdlib.mrt.ingestqueue.figures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.hosts.ActivityMinutes;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Step times per profile (issue 45): measured where steps end, shared in each host's node, and a batch estimated by
 * its own profile's steps where every host together measured enough of them, by all profiles' where not.
 */
class ProfileEstimatesTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    @TempDir
    Path dir;
    final Clock clock = Clock.fixed(Instant.parse("2026-11-24T10:00:30Z"), ZoneOffset.UTC);
    QueueStore store;
    BatchProgress progress;

    @AfterEach
    void close() {
        if (progress != null) {
            progress.close();
        }
        if (store != null) {
            for (String h : List.of(store.hosts().id(), "h2", "h3")) {
                store.activity().dropSteps(h);
            }
        }
    }

    /** {@code n} steps of {@code profile} in every pipeline state: {@code ms} each, downloading {@code slowMs}. */
    static void steps(StepTimes times, String profile, int n, long ms, long slowMs) {
        for (JobState s = JobState.PENDING; s != JobState.COMPLETED; s = s.successor()) {
            for (int i = 0; i < n; i++) {
                times.stepEnded("job/" + s.wire(), "jid", profile,
                        Duration.ofMillis(s == JobState.DOWNLOADING ? slowMs : ms), false);
            }
        }
    }

    /** Every host's step times as written, with 10 workers in every state (no host registers here). */
    BatchProgress progress() {
        Map<JobState, Integer> workers = new EnumMap<>(JobState.class);
        for (JobState s = JobState.PENDING; s != JobState.COMPLETED; s = s.successor()) {
            workers.put(s, 10);
        }
        return new BatchProgress(store, clock, () -> {
            StepTimes.Shared read = StepTimes.shared(store, clock);
            return new StepTimes.Shared(read.times(), workers, 1, Map.of(), Map.of(), read.profiles());
        });
    }

    @Test
    void twoProfilesWithUnequalStepTimesGiveEachBatchItsOwn() {
        store = ZK.store(dir);
        StepTimes times = new StepTimes(store, clock);
        // downloading: 10 s a step for slow_content, 1 s for fast_content; 0.1 s every other state
        steps(times, "slow_content", 6, 100, 10_000);
        steps(times, "fast_content", 3, 100, 1_000);
        times.flush();
        // another host measured fast_content's other three: together enough
        store.activity().writeSteps("h2", Map.of("at", "2026-11-24T10:00:20Z", "profiles",
                Map.of("fast_content", Map.of("downloading", List.of(1000, 1000, 1000)))));
        String slow = QueueTestSupport.batchWithJobs(store, 2, 5, "slow_content");
        String fast = QueueTestSupport.batchWithJobs(store, 2, 5, "fast_content");
        progress = progress();

        // 4 jobs on 10 workers a state: one step each, the slowest from pending on: 7 × 0.1 s and the download
        Map<String, Object> s = progress.of(store.batches().load(slow));
        assertEquals(clock.instant().plusMillis(10_700).toString(), s.get("estimated_completion"), s.toString());
        assertTrue(String.valueOf(s.get("estimate_basis")).startsWith("From 48 measured steps of profile "
                + "slow_content: "), s.toString());
        Map<String, Object> f = progress.of(store.batches().load(fast));
        assertEquals(clock.instant().plusMillis(1_700).toString(), f.get("estimated_completion"), f.toString());
        assertTrue(String.valueOf(f.get("estimate_basis")).startsWith("From 6 measured steps of profile "
                + "fast_content and 63 of all profiles "), "7 of its 8 states had only this host's 3: " + f);
    }

    @Test
    void aProfileWithTooFewStepsInAStateIsEstimatedThereByAllProfiles() {
        store = ZK.store(dir);
        StepTimes times = new StepTimes(store, clock);
        steps(times, "slow_content", 6, 100, 10_000);
        // rare_content: 6 steps of 0.1 s in every state but downloading, where it had 4 of 60 s
        for (JobState s = JobState.PENDING; s != JobState.COMPLETED; s = s.successor()) {
            for (int i = 0; i < (s == JobState.DOWNLOADING ? 4 : 6); i++) {
                times.stepEnded("job/" + s.wire(), "jid", "rare_content",
                        Duration.ofMillis(s == JobState.DOWNLOADING ? 60_000 : 100), false);
            }
        }
        times.flush();
        String rare = QueueTestSupport.batchWithJobs(store, 2, 5, "rare_content");
        String none = QueueTestSupport.batchWithJobs(store, 2, 5, "unseen_content");
        progress = progress();

        StepTimes.Shared read = StepTimes.shared(store, clock);
        List<Long> all = read.times().get(JobState.DOWNLOADING);
        assertEquals(10, all.size(), "all profiles' downloads");
        double download = EstimateModel.Stage.of(JobState.DOWNLOADING, 10, all).mean();
        assertTrue(download > 10 && download < 60, "the newest, rare_content's, weigh most: " + download);
        Map<String, Object> r = progress.of(store.batches().load(rare));
        assertEquals(clock.instant().plusMillis(Math.round((0.7 + download) * 1000)).toString(),
                r.get("estimated_completion"), r.toString());
        assertTrue(String.valueOf(r.get("estimate_basis")).startsWith("From 42 measured steps of profile "
                + "rare_content and 10 of all profiles (in the states where it has fewer than 5)"), r.toString());
        Map<String, Object> n = progress.of(store.batches().load(none));
        assertEquals(r.get("estimated_completion"), n.get("estimated_completion"), "all profiles' figures alike");
        assertTrue(String.valueOf(n.get("estimate_basis")).startsWith("From 94 measured steps of all profiles:"),
                n.toString());
    }

    @Test
    void theNodeStaysWithinItsBoundWithManyProfilesAndForeignEntriesAddNothing() throws Exception {
        store = ZK.store(dir);
        StepTimes times = new StepTimes(store, clock);
        // 20 profiles, each 20 steps a state of six digits (steps of over 100 s): more than any node holds
        for (int p = 0; p < 20; p++) {
            steps(times, "profile_" + p, 20, 123_456, 654_321);
        }
        times.flush();
        byte[] data = ZK.client().getData().forPath(ActivityMinutes.STEPS + "/" + store.hosts().id());
        assertTrue(data.length <= StepTimes.NODE_BYTES && StepTimes.NODE_BYTES == 8192, data.length + " bytes");
        JsonNode node = QueueJson.treeOrNull(data);
        List<String> written = new ArrayList<>();
        node.path("profiles").fieldNames().forEachRemaining(written::add);
        assertEquals("profile_19", written.get(0), "the profile seen last first");
        assertTrue(written.size() >= 3 && written.size() <= ProfileSteps.PROFILES, written.toString());
        assertEquals(StepTimes.KEPT, node.path("steps").path("pending").size(), "every state's ring whole");
        assertEquals(ProfileSteps.KEPT, node.path("profiles").path("profile_19").path("downloading").size());

        // steps under a second, downloads of seconds: the 8 kept profiles fit
        StepTimes usual = new StepTimes(store, clock);
        for (int p = 0; p < 20; p++) {
            steps(usual, "profile_" + p, 20, 234, 6543);
        }
        Map<String, Object> fitted = StepTimes.fitted(usual.figures());
        assertEquals(ProfileSteps.PROFILES, ((Map<?, ?>) fitted.get("profiles")).size());
        assertTrue(QueueJson.write(fitted).length <= StepTimes.NODE_BYTES, QueueJson.write(fitted).length + " B");

        // a foreign host: a name too long, an empty one, no state, no array, no positive whole numbers add nothing
        store.activity().writeSteps("h3", Map.of("at", "2026-11-24T10:00:20Z", "profiles", Map.of(
                "x".repeat(ProfileSteps.NAME_MAX + 1), Map.of("downloading", List.of(5)),
                "", Map.of("downloading", List.of(5)),
                "odd_content", Map.of("downloading", List.of(300, "x", -5, 1.5, 400), "nonsense", List.of(7),
                        "processing", Map.of("a", 5)))));
        StepTimes.Shared read = StepTimes.shared(store, clock);
        assertEquals(List.of(400L, 300L), read.times("odd_content", JobState.DOWNLOADING));
        assertEquals(Map.of(JobState.DOWNLOADING, List.of(400L, 300L)), read.profiles().get("odd_content"));
        assertFalse(read.profiles().containsKey(""));
        assertEquals(written.size() + 1, read.profiles().size(), "this host's written ones and odd_content");
        assertEquals(List.of(), read.times(null, JobState.DOWNLOADING));
    }
}
