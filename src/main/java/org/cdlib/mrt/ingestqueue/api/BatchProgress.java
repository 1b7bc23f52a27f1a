package org.cdlib.mrt.ingestqueue.api;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.queue.Batch;
import org.cdlib.mrt.ingestqueue.queue.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.Job;
import org.cdlib.mrt.ingestqueue.queue.QueueTime;
import org.cdlib.mrt.ingestqueue.queue.JobState;
import org.cdlib.mrt.ingestqueue.queue.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.StateView;

/**
 * What a depositor sees of a batch: its state, its jobs counted, and for each open job its place
 * in the queue and when it should be done. The place is the job's rank in the pending state's run
 * order (priority, then id), from a watched view of that folder (kept small by the open-job cap),
 * so nothing is listed per request; jobs already being worked on have place 0. The estimate
 * divides the place by the completion rate measured over the last 15 minutes ({@link Activity});
 * with no completions measured yet there is no estimate, and the answer says so.
 */
final class BatchProgress implements AutoCloseable {
    static final int LISTED_JOBS = 50;
    private final QueueStore store;
    private final Activity activity;
    private final Clock clock;
    private StateView pending;

    BatchProgress(QueueStore store, Activity activity, Clock clock) {
        this.store = store;
        this.activity = activity;
        this.clock = clock;
    }

    /** The pending jobs in run order; the watched view once it has listed, a listing until then. */
    private synchronized List<String> pendingOrder() {
        if (pending == null) {
            pending = store.jobStateView(JobState.PENDING).start(() -> { });
        }
        return pending.isListed() ? pending.snapshot() : store.jobs().refs(JobState.PENDING);
    }

    /**
     * How long the job at the head of each open state's run order has been in that state, in
     * seconds (a state with no job is left out): pending from the watched view, the others from
     * their folders, which the open-job cap keeps listable; one status read per state.
     */
    Map<String, Long> waitSeconds() {
        Map<String, Long> out = new LinkedHashMap<>();
        for (JobState s : JobState.values()) {
            if (s.batchRef() != BatchRef.PROCESSING) {
                continue;
            }
            try {
                List<String> order = s == JobState.PENDING ? pendingOrder() : store.jobs().refs(s);
                if (!order.isEmpty()) {
                    store.jobs().find(QueuePaths.jidOfRef(order.get(0))).ifPresent(j -> out.put(s.wire(),
                            Duration.between(java.util.Objects.requireNonNullElse(QueueTime.parse(j.status().lastModified()), clock.instant()), clock.instant()).toSeconds()));
                }
            } catch (RuntimeException e) {
                // a damaged head or a folder too large to list: that state has no sample this minute
            }
        }
        return out;
    }

    Map<String, Object> of(Batch b) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("batch_id", b.id());
        m.put("state", b.state().wire());
        m.put("title", b.submission().ercWhat());
        m.put("submitter", b.submission().submitter());
        m.put("submitted", b.submission().submitted());
        m.put("file_name", b.submission().fileName());
        m.put("last_modified", QueueViews.iso(b.status().lastModified()));
        List<String> open = store.batches().jobs(b.id(), BatchRef.PROCESSING);
        Map<JobState, Integer> states = store.jobs().states(open);
        int held = states.getOrDefault(JobState.HELD, 0);
        int waiting = states.getOrDefault(JobState.PENDING, 0);
        Map<String, Object> counts = new LinkedHashMap<>();
        counts.put("completed", b.count(BatchRef.COMPLETED));
        counts.put("failed", b.count(BatchRef.FAILED));
        counts.put("held", held);
        counts.put("waiting", waiting);
        counts.put("active", open.size() - held - waiting);
        counts.put("total", b.jobCount());
        if (b.status().jobsTotal() != null) {
            counts.put("expected", b.status().jobsTotal());
        }
        m.put("jobs", counts);

        Map<String, Integer> rank = new HashMap<>();
        List<String> order = pendingOrder();
        for (int i = 0; i < order.size(); i++) {
            rank.put(QueuePaths.jidOfRef(order.get(i)), i + 1);
        }
        double rate = activity.completedPerMinute(15);
        m.put("completed_per_minute", Math.round(rate * 100) / 100.0);
        int last = 0;
        for (String jid : open) {
            last = Math.max(last, rank.getOrDefault(jid, 0));
        }
        if (!open.isEmpty()) {
            m.put("last_position", last);
            m.put("estimated_completion", eta(last, rate));
        }
        if (!open.isEmpty() && rate <= 0) {
            m.put("estimate_note", "no job has completed in the last 15 minutes, so there is no rate to estimate from yet");
        }
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (Job j : store.jobs().load(open.subList(0, Math.min(open.size(), LISTED_JOBS)))) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("job_id", j.id());
            row.put("state", j.state().wire());
            row.put("local_id", j.identifiers().localId());
            if (j.state() != JobState.HELD) {
                int position = rank.getOrDefault(j.id(), 0);
                row.put("position", position);
                row.put("estimated_completion", eta(position, rate));
            }
            jobs.add(row);
        }
        m.put("open_jobs", jobs);
        if (open.size() > LISTED_JOBS) {
            m.put("open_jobs_not_listed", open.size() - LISTED_JOBS);
        }
        return m;
    }

    /** When a job with {@code position} jobs ahead (0: being worked on) should be done; null without a rate. */
    private String eta(int position, double perMinute) {
        if (perMinute <= 0) {
            return null;
        }
        double minutes = (Math.max(position, 0) + 1) / perMinute;
        return clock.instant().plusSeconds(Math.round(minutes * 60)).toString();
    }

    @Override
    public synchronized void close() {
        if (pending != null) {
            pending.close();
        }
    }
}
