package org.cdlib.mrt.ingestqueue.figures;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.model.QueueTime;

/**
 * What a depositor sees of a batch: its state, its jobs counted, and for each open job its place
 * and when it should be done. Everything is counted in memory from the open states' watched
 * views ({@link OpenStates}) and the batch's runs of job ids, so the answer costs the same for a
 * batch of ten objects and one of a million; only the first {@link #LISTED_JOBS} open jobs are read.
 * <ul>
 * <li>active: a worker holds the job; waiting: open, not held, no worker has it yet.</li>
 * <li>A job's place ({@code position}, 0 while a worker has it) is 1 + the jobs ahead of it
 *     ({@code jobs_ahead}): those before it in its state's run order that no worker holds yet, and
 *     every job in the states it still has to pass.</li>
 * <li>The estimate divides the place by the slowest rate among the states it still has to pass
 *     (jobs leaving each state per minute, last 15 minutes); a state nobody left lately gives no
 *     estimate, and the answer says which. A held job, or a pending one behind a queue or
 *     collection hold, has none either, and the answer says why.</li>
 * </ul>
 */
public final class BatchProgress implements AutoCloseable {
    static final int LISTED_JOBS = 50;
    static final int RATE_MINUTES = 15;
    private final QueueStore store;
    private final Activity activity;
    private final Clock clock;
    private final OpenStates open;

    public BatchProgress(QueueStore store, Activity activity, Clock clock) {
        this.store = store;
        this.activity = activity;
        this.clock = clock;
        this.open = new OpenStates(store);
    }

    /**
     * How long the job at the head of each open state's run order has been in that state, in
     * seconds (a state with no job is left out); one status read per state.
     */
    public Map<String, Long> waitSeconds() {
        Map<String, Long> out = new LinkedHashMap<>();
        open.listed().forEach((s, order) -> {
            try {
                if (!order.isEmpty()) {
                    store.jobs().find(QueuePaths.jidOfRef(order.get(0))).ifPresent(j -> out.put(s.wire(),
                            Duration.between(Objects.requireNonNullElse(QueueTime.parse(j.status().lastModified()),
                                    clock.instant()), clock.instant()).toSeconds()));
                }
            } catch (RuntimeException e) {
                // a damaged head: that state has no sample this minute
            }
        });
        return out;
    }

    /** A node's stamp as ISO-8601, as the API gives it; as stored when it cannot be read. */
    private static String iso(String stamp) {
        Instant at = QueueTime.parse(stamp);
        return at == null ? stamp : at.toString();
    }

    /** Where each open job of the queue stands: its state, and how many jobs are ahead of it. */
    private record Place(JobState state, int ahead, boolean active) {
    }

    /** The batch's jobs per state, counted in memory from the open states' views and the batch's Stat counts. */
    public Map<JobState, Integer> states(Batch b) {
        Map<JobState, Integer> out = new EnumMap<>(JobState.class);
        open.snapshot().forEach((s, refs) -> refs.forEach(ref -> {
            if (b.status().holds(QueuePaths.jidOfRef(ref))) {
                out.merge(s, 1, Integer::sum);
            }
        }));
        if (b.count(BatchRef.COMPLETED) > 0) {
            out.put(JobState.COMPLETED, b.count(BatchRef.COMPLETED));
        }
        if (b.count(BatchRef.FAILED) > 0) {
            out.put(JobState.FAILED, b.count(BatchRef.FAILED));
        }
        return out;
    }

    public Map<String, Object> of(Batch b) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("batch_id", b.id());
        m.put("state", b.state().wire());
        m.put("title", b.submission().ercWhat());
        m.put("submitter", b.submission().submitter());
        m.put("submitted", b.submission().submitted());
        m.put("file_name", b.submission().fileName());
        m.put("last_modified", iso(b.status().lastModified()));

        Map<JobState, List<String>> states = open.snapshot();
        Set<String> workedOn = open.workedOn();
        Map<String, Place> places = places(states, workedOn);
        Map<String, Integer> byState = new LinkedHashMap<>();
        List<String> mine = new ArrayList<>();
        int held = 0;
        int active = 0;
        for (Map.Entry<JobState, List<String>> e : states.entrySet()) {
            for (String ref : e.getValue()) {
                String jid = QueuePaths.jidOfRef(ref);
                if (b.status().holds(jid)) {
                    mine.add(jid);
                    byState.merge(e.getKey().wire(), 1, Integer::sum);
                    held += e.getKey() == JobState.HELD ? 1 : 0;
                    active += e.getKey() != JobState.HELD && workedOn.contains(jid) ? 1 : 0;
                }
            }
        }
        Map<String, Object> counts = new LinkedHashMap<>();
        counts.put("completed", b.count(BatchRef.COMPLETED));
        counts.put("failed", b.count(BatchRef.FAILED));
        counts.put("held", held);
        counts.put("waiting", mine.size() - held - active);
        counts.put("active", active);
        counts.put("total", b.jobCount());
        if (b.status().jobsTotal() != null) {
            counts.put("expected", b.status().jobsTotal());
        }
        counts.put("states", byState);
        m.put("jobs", counts);

        String holdNote = holdNote(b);
        if (holdNote != null && (b.state() == BatchState.PENDING || byState.containsKey(JobState.PENDING.wire()))) {
            m.put("hold_note", holdNote);
        }
        m.put("completed_per_minute", Math.round(activity.completedPerMinute(RATE_MINUTES) * 100) / 100.0);
        int last = -1;
        Estimate worst = null;
        for (String jid : mine) {
            Place p = places.get(jid);
            if (p != null && p.state() != JobState.HELD && position(p) > last) {
                last = position(p);
                worst = estimate(p, holdNote);
            }
        }
        if (worst != null) {
            m.put("last_position", last);
            m.put("estimated_completion", worst.at());
            if (worst.note() != null) {
                m.put("estimate_note", worst.note());
            }
        } else if (held > 0) {
            m.put("estimate_note",
                    "every open job of the batch is held by an operator: no estimate until they are released");
        }
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (Job j : store.jobs().load(mine.subList(0, Math.min(mine.size(), LISTED_JOBS)))) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("job_id", j.id());
            row.put("state", j.state().wire());
            row.put("local_id", j.identifiers().localId());
            Place p = places.get(j.id());
            row.put("active", p != null && p.active());
            if (j.state() == JobState.HELD) {
                row.put("estimate_note", "held by an operator");
            } else if (p != null) {
                Estimate e = estimate(p, holdNote);
                row.put("position", position(p));
                row.put("jobs_ahead", p.ahead());
                row.put("estimated_completion", e.at());
                if (e.note() != null) {
                    row.put("estimate_note", e.note());
                }
            }
            jobs.add(row);
        }
        m.put("open_jobs", jobs);
        if (mine.size() > LISTED_JOBS) {
            m.put("open_jobs_not_listed", mine.size() - LISTED_JOBS);
        }
        return m;
    }

    /**
     * Every open job's place: the jobs before it in its state's run order that no worker holds yet
     * (a held job's folder is not a queue: its jobs have no place), plus every job in the states after it.
     */
    private static Map<String, Place> places(Map<JobState, List<String>> states, Set<String> workedOn) {
        Map<String, Place> out = new HashMap<>();
        int later = 0;
        List<JobState> pipeline = new ArrayList<>(OpenStates.OPEN);
        Collections.reverse(pipeline);
        for (JobState s : pipeline) {
            List<String> refs = states.getOrDefault(s, List.of());
            if (s == JobState.HELD) {
                refs.forEach(r -> out.put(QueuePaths.jidOfRef(r), new Place(s, 0, false)));
                continue;
            }
            int waitingBefore = 0;
            for (String ref : refs) {
                String jid = QueuePaths.jidOfRef(ref);
                boolean active = workedOn.contains(jid);
                out.put(jid, new Place(s, later + (active ? 0 : waitingBefore), active));
                waitingBefore += active ? 0 : 1;
            }
            later += refs.size();
        }
        return out;
    }

    /** A job's place in line: 1 + the jobs ahead of it; 0 while a worker has it. */
    private static int position(Place p) {
        return p.active() ? 0 : p.ahead() + 1;
    }

    private record Estimate(String at, String note) {
    }

    /** When a job with this place should be done, by the slowest state it still has to pass; or why not. */
    private Estimate estimate(Place p, String holdNote) {
        if (p.state() == JobState.PENDING && holdNote != null) {
            return new Estimate(null, holdNote);
        }
        double slowest = Double.MAX_VALUE;
        for (JobState s = p.state(); s != null && s != JobState.COMPLETED; s = s.successor()) {
            double rate = activity.arrivedPerMinute(s.successor() == null ? "completed" : s.successor().wire(),
                    RATE_MINUTES);
            if (rate <= 0) {
                return new Estimate(null, "no job has left " + s.wire() + " in the last " + RATE_MINUTES
                        + " minutes, so there is no rate to estimate from yet");
            }
            slowest = Math.min(slowest, rate);
        }
        double minutes = (p.ahead() + 1) / slowest;
        return new Estimate(clock.instant().plusSeconds(Math.round(minutes * 60)).toString(), null);
    }

    /** Why pending jobs of this batch do not move: the queue's hold or its collection's; null when neither. */
    private String holdNote(Batch b) {
        if (store.holds().isQueueHeld()) {
            return "the queue is on hold: nothing starts until an operator releases it";
        }
        String profile = b.submission().profileName();
        if (profile != null && store.holds().isCollectionHeld(profile)) {
            return "collection " + profile + " is on hold: its jobs wait until an operator releases it";
        }
        return null;
    }

    /** The open states' views close when no batch's progress was asked for a while. */
    public void closeIfIdle() {
        open.closeIfIdle();
    }

    @Override
    public void close() {
        open.close();
    }
}
