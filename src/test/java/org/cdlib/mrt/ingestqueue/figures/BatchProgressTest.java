package org.cdlib.mrt.ingestqueue.figures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A batch's figures and estimates with a known backlog and known rates: two batches, jobs held,
 * worked on (a host's published work), waiting in pending and ahead of them in processing;
 * rates measured by the activity's arrivals at a fixed moment.
 */
class BatchProgressTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    @TempDir
    Path dir;
    // 30 s into a minute: a rate is the arrivals of those 30 s, times 2 per minute
    final Clock clock = Clock.fixed(Instant.parse("2026-11-24T10:00:30Z"), ZoneOffset.UTC);
    BatchProgress progress;

    @AfterEach
    void close() {
        if (progress != null) {
            progress.close();
        }
    }

    void work(QueueStore store, String jid, JobState to) {
        for (JobState s = store.jobs().load(jid).state(); s != to; s = s.successor()) {
            HeldJob lock = store.claims().claim(s, store.jobs().load(jid).refName(), "w").orElseThrow();
            store.moves().transition(lock, s.successor(), Change.because("step succeeded"));
        }
    }

    @Test
    void figuresAndEstimatesFollowTheBacklogAndTheSlowestRateAhead() throws Exception {
        QueueStore store = ZK.store(dir);
        String a = QueueTestSupport.batchWithJobs(store, 6, 5);
        String b = QueueTestSupport.batchWithJobs(store, 4, 5);
        List<String> aj = store.batches().jobs(a, BatchRef.PROCESSING);
        List<String> bj = store.batches().jobs(b, BatchRef.PROCESSING);
        new AdminActions(store, Clock.systemUTC()).holdJob(aj.get(0), "op");
        work(store, aj.get(1), JobState.PROCESSING);
        work(store, bj.get(0), JobState.PROCESSING);
        work(store, bj.get(1), JobState.PROCESSING);
        // a host works on A's job in processing (what Hosts publishes)
        ZK.client().create().creatingParentsIfNeeded().forPath(QueuePaths.HOSTS + "/h1",
                ("{\"id\":\"h1\",\"host\":\"x\",\"pid\":1,"
                + "\"started\":\"2026-11-24T10:00:00Z\",\"updated\":\"2026-11-24T10:00:00Z\",\"work\":[{\"job_id\":\""
                + aj.get(1)
                + "\",\"since\":\"2026-11-24T10:00:00Z\"}],\"leads\":[]}").getBytes());

        // every state: 1 s a step, 2 workers; processing: 6 s a step, the slowest
        progress = new BatchProgress(store, clock, () -> shared(1000, 6000, 2));

        Map<String, Object> p = progress.of(store.batches().load(a));
        @SuppressWarnings("unchecked")
        Map<String, Object> jobs = (Map<String, Object>) p.get("jobs");
        assertEquals(1, jobs.get("held"));
        assertEquals(1, jobs.get("active"), "being worked on: the one a host holds");
        assertEquals(4, jobs.get("waiting"), "waiting for a worker: A's four pending jobs");
        assertEquals(Map.of("held", 1, "processing", 1, "pending", 4), jobs.get("states"));
        // A's last pending job: the three jobs in processing (B's two, A's one) and A's first three pending are ahead
        // of it (B's pending jobs are behind it in run order): 6 ahead, seventh in line
        assertEquals(7, p.get("last_position"));
        // processing is the bottleneck: A's 4 pending jobs and its 1 in a worker's hands pass it, and of B's 2
        // waiting there after them in run order, those its 2 workers take in the 4 s A's first job needs to get
        // there (4 × 2 / 6 s): 6.33 jobs on 2 workers, 3.17 steps of 6 s, then storing, recording and notify: 3 s
        assertEquals(clock.instant().plusSeconds(22).toString(), p.get("estimated_completion"));
        // no error measured yet: ±25%; the earliest at most one pass from processing on (9 s) before the middle
        assertEquals(Map.of("earliest", clock.instant().plusSeconds(13).toString(),
                "latest", clock.instant().plusMillis(27_500).toString()), p.get("estimate_range"));
        assertTrue(String.valueOf(p.get("estimate_basis")).contains("processing is the slowest state"), p.toString());
        assertNull(p.get("completed_per_minute"), "the queue's rate is not the batch's");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> rows = (List<Map<String, Object>>) p.get("open_jobs");
        Map<String, Map<String, Object>> byJob = new HashMap<>();
        rows.forEach(r -> byJob.put((String) r.get("job_id"), r));
        assertEquals("held by an operator", byJob.get(aj.get(0)).get("estimate_note"));
        assertNull(byJob.get(aj.get(0)).get("estimated_completion"));
        assertEquals(0, byJob.get(aj.get(1)).get("position"), "in a worker's hands");
        assertEquals(true, byJob.get(aj.get(1)).get("active"));
        assertEquals(4, byJob.get(aj.get(2)).get("position"), "behind the three jobs in processing");
        assertEquals(3, byJob.get(aj.get(2)).get("jobs_ahead"));
        assertTrue(byJob.get(aj.get(2)).containsKey("estimate_range"), byJob.get(aj.get(2)).toString());

        // the queue on hold: no estimate, and the page says why
        store.holds().holdQueue("op");
        Map<String, Object> held = progress.of(store.batches().load(a));
        assertTrue(String.valueOf(held.get("hold_note")).contains("the queue is on hold"), held.toString());
        assertNull(held.get("estimated_completion"));
        assertTrue(String.valueOf(held.get("estimate_note")).contains("the queue is on hold"), held.toString());
        store.holds().releaseQueue();

        // no step of storing measured yet: no estimate, said so
        progress.close();
        progress = new BatchProgress(store, clock, () -> new StepTimes.Shared(Map.of(JobState.PENDING,
                List.of(1000L)), Map.of(JobState.PENDING, 2), 1));
        Map<String, Object> none = progress.of(store.batches().load(a));
        assertNull(none.get("estimated_completion"));
        assertTrue(String.valueOf(none.get("estimate_note")).startsWith("no step of estimating has been measured"),
                none.toString());
    }

    /** Every pipeline state {@code ms} a step (processing {@code slowMs}), {@code workers} workers each. */
    static StepTimes.Shared shared(long ms, long slowMs, int workers) {
        Map<JobState, List<Long>> times = new EnumMap<>(JobState.class);
        Map<JobState, Integer> w = new EnumMap<>(JobState.class);
        for (JobState s = JobState.PENDING; s != JobState.COMPLETED; s = s.successor()) {
            times.put(s, List.of(s == JobState.PROCESSING ? slowMs : ms));
            w.put(s, workers);
        }
        return new StepTimes.Shared(times, w, 1);
    }

    @Test
    void priorityHoldAndMeanRateAreSaid() throws Exception {
        QueueStore store = ZK.store(dir);
        progress = new BatchProgress(store, Clock.systemUTC(), () -> shared(500, 500, 4));
        String big = QueueTestSupport.batchWithJobs(store, 12, 7);
        String small = QueueTestSupport.batchWithJobs(store, 3, 5); // submitted later, a higher priority
        Map<String, Object> p = progress.of(store.batches().load(big));
        String note = String.valueOf(p.get("priority_note"));
        assertTrue(note.startsWith("Priority 07"), note);
        assertTrue(note.contains("3 jobs of higher priority are in the queue and go first"), note);
        assertTrue(String.valueOf(progress.of(store.batches().load(small)).get("priority_note"))
                .contains("no job of higher priority"));
        assertTrue(p.containsKey("estimate_range") && p.containsKey("rate_per_minute"), p.toString());

        store.holds().holdCollection("demo_content", "op");
        Map<String, Object> held = progress.of(store.batches().load(big));
        assertTrue(String.valueOf(held.get("hold_note")).startsWith("collection demo_content is on hold"),
                held.toString());
        assertNull(held.get("estimated_completion"));
        store.holds().releaseCollection("demo_content");

        store.holds().holdBatch(big, "op"); // a running batch's hold (its node; the batch stays processing)
        Awaitility.await("the batch's hold is heard").atMost(Duration.ofSeconds(30))
                .until(() -> store.holds().isBatchHeld(big));
        Map<String, Object> paused = progress.of(store.batches().load(big));
        assertTrue(String.valueOf(paused.get("hold_note")).startsWith("this batch is on hold"), paused.toString());
        assertNull(paused.get("estimated_completion"));
        assertTrue(store.holds().releaseBatch(big, "op"));

        for (String jid : store.batches().jobs(small, BatchRef.PROCESSING)) {
            work(store, jid, JobState.COMPLETED);
        }
        Map<String, Object> done = progress.of(store.batches().load(small));
        assertTrue(done.get("mean_per_minute") instanceof Double d && d > 0, done.toString());
        assertNull(done.get("rate_per_minute"));
        assertNull(done.get("estimated_completion"));
        assertNull(done.get("priority_note"), "a finished batch waits for nothing");
    }
}
