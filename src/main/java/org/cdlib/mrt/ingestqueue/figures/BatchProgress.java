package org.cdlib.mrt.ingestqueue.figures;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
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
 * <li>The estimate ({@link EstimateModel}) rests on the queue's own measurements: every host's step
 *     times and workers per state ({@link StepTimes}), the jobs ahead of the batch in priority order in
 *     each state it still has to pass, and the estimates' own past error ({@link EstimateErrors}). A
 *     state with no measured step, a held job, or a hold on the queue or the batch's collection gives
 *     none, and the answer says why.</li>
 * </ul>
 */
public final class BatchProgress implements AutoCloseable {
    static final int LISTED_JOBS = 50;
    private final QueueStore store;
    private final Clock clock;
    private final OpenStates open;
    private final BatchEstimates estimates;
    private final EstimateErrors errors;

    public BatchProgress(QueueStore store, Clock clock) {
        this(store, clock, () -> StepTimes.shared(store, clock));
    }

    /** {@code steps}: the step times and workers per state (every host's, or a test's). */
    BatchProgress(QueueStore store, Clock clock, Supplier<StepTimes.Shared> steps) {
        this.store = store;
        this.clock = clock;
        this.open = new OpenStates(store);
        this.estimates = new BatchEstimates(clock, steps, new SharedErrors(store, clock));
        this.errors = estimates.errors();
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
        boolean finished = finished(b, mine.isEmpty());
        if (holdNote != null && !finished) {
            m.put("hold_note", holdNote);
        }
        RunOrder line = new RunOrder(states, workedOn);
        Integer priority = priority(states, b);
        if (priority != null && !finished) {
            m.put("priority_note", PriorityNote.of(priority, size(b), b.submission().profileName(),
                    line.higherThan(priority, b)));
        }
        long now = clock.millis();
        if (finished) {
            long end = endOf(b, now);
            estimates.ended(b.id(), end);
            Double mean = meanPerMinute(b, end);
            if (mean != null) {
                m.put("mean_per_minute", mean);
            }
        } else {
            m.put("rate_per_minute", errors.rate(b.id(), b.count(BatchRef.COMPLETED), b.createdAt(), now));
        }
        int last = -1;
        for (String jid : mine) {
            Place p = places.get(jid);
            if (p != null && p.state() != JobState.HELD && position(p) > last) {
                last = position(p);
            }
        }
        if (last >= 0) {
            m.put("last_position", last);
        }
        int notMade = b.status().jobsTotal() == null ? 0 : Math.max(0, b.status().jobsTotal() - b.jobCount());
        RunOrder.Target target = line.target(mine, notMade);
        if (!finished) {
            BatchEstimates.Estimate e;
            if (holdNote != null) {
                e = BatchEstimates.Estimate.none(holdNote);
            } else if (target == null && held > 0) {
                e = BatchEstimates.Estimate.none("every open job of the batch is held by an operator: no estimate "
                        + "until they are released");
            } else if (target == null) {
                e = BatchEstimates.Estimate.none(b.state() == BatchState.PENDING
                        ? "the batch's jobs are not made yet: its estimate starts once they are"
                        : "no job of the batch is waiting or in a step");
            } else {
                e = estimates.estimate(target, b.submission().profileName());
            }
            BatchEstimates.put(m, e);
            if (e.basis() != null) {
                m.put("estimate_basis", e.basis());
                int total = b.status().jobsTotal() != null ? b.status().jobsTotal() : b.jobCount();
                double done = total == 0 ? 0 : (double) (b.count(BatchRef.COMPLETED) + b.count(BatchRef.FAILED))
                        / total;
                errors.made(b.id(), done, now, Instant.parse(e.at()).toEpochMilli());
            }
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
                row.put("position", position(p));
                row.put("jobs_ahead", p.ahead());
                RunOrder.Target one = line.target(List.of(j.id()), 0);
                BatchEstimates.put(row, holdNote != null ? BatchEstimates.Estimate.none(holdNote)
                        : one == null ? BatchEstimates.Estimate.none("not in the queue's run order now")
                        : estimates.estimate(one, b.submission().profileName()));
            }
            jobs.add(row);
        }
        m.put("open_jobs", jobs);
        if (mine.size() > LISTED_JOBS) {
            m.put("open_jobs_not_listed", mine.size() - LISTED_JOBS);
        }
        return m;
    }

    /** Whether the batch's jobs all ended (or it moved past processing). */
    private static boolean finished(Batch b, boolean noOpenJob) {
        return switch (b.state()) {
            case PENDING, HELD -> false;
            case PROCESSING -> noOpenJob && b.status().allJobsCreated() && b.jobCount() > 0;
            default -> true;
        };
    }

    /** When the batch's last job ended: its move out of processing, as its status stamps it; else now. */
    private static long endOf(Batch b, long now) {
        Instant at = b.state() == BatchState.PROCESSING ? null : QueueTime.parse(b.status().lastModified());
        return at == null ? now : Math.min(now, at.toEpochMilli());
    }

    /** A finished batch's mean rate (as below), to its end as its status stamps it. */
    public Double meanPerMinute(Batch b) {
        return meanPerMinute(b, endOf(b, clock.millis()));
    }

    /**
     * A finished batch's mean rate: its completed jobs ÷ the minutes from its first job's first
     * transition (one read of that job's status) to its end; null when it completed none.
     */
    private Double meanPerMinute(Batch b, long end) {
        int completed = b.count(BatchRef.COMPLETED);
        if (completed == 0) {
            return null;
        }
        long start = b.createdAt();
        try {
            if (!b.jobIds().isEmpty()) {
                Job first = store.jobs().find(b.jobIds().get(0)).orElse(null);
                if (first != null && !first.status().history().isEmpty()) {
                    Instant t = QueueTime.parse(first.status().history().get(0).at());
                    start = t == null ? start : t.toEpochMilli();
                }
            }
        } catch (RuntimeException e) {
            // a damaged or deleted first job: from the batch's creation
        }
        double minutes = Math.max(1.0 / 60, (end - start) / 60_000.0);
        return Math.round(completed / minutes * 10) / 10.0;
    }

    /** The batch's size as its priority class counts it: its total once known, else its jobs. */
    private static int size(Batch b) {
        return b.status().jobsTotal() != null ? b.status().jobsTotal() : b.jobCount();
    }

    /** The priority most of the batch's open jobs have (their references say it); null when none is open. */
    private static Integer priority(Map<JobState, List<String>> states, Batch b) {
        Map<Integer, Integer> seen = new HashMap<>();
        states.forEach((s, refs) -> refs.forEach(ref -> {
            if (b.status().holds(QueuePaths.jidOfRef(ref)) && QueuePaths.priorityOfRef(ref) >= 0) {
                seen.merge(QueuePaths.priorityOfRef(ref), 1, Integer::sum);
            }
        }));
        return seen.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(null);
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

    /** Why the jobs of this batch do not move: the queue's hold, its collection's or its own; null when none. */
    private String holdNote(Batch b) {
        if (store.holds().isBatchHeld(b.id())) {
            return "this batch is on hold: its jobs finish the step they are in and start no other until an "
                    + "operator releases it, so there is no estimate";
        }
        if (store.holds().isQueueHeld()) {
            return "the queue is on hold: no job starts a step until an operator releases it, so there is no "
                    + "estimate";
        }
        String profile = b.submission().profileName();
        if (profile != null && store.holds().isCollectionHeld(profile)) {
            return "collection " + profile + " is on hold: its jobs do not start a step until an operator releases "
                    + "it, so there is no estimate";
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
