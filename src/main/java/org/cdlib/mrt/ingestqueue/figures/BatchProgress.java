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
    /** How long every host's step times, once read, serve the answers (a page asks every few seconds). */
    static final long STEPS_FRESH_MS = 1000;
    private static final List<JobState> PIPELINE = OpenStates.OPEN.stream().filter(JobState::isWorking).toList();
    private final QueueStore store;
    private final Clock clock;
    private final OpenStates open;
    private final Supplier<StepTimes.Shared> steps;
    private final EstimateErrors errors = new EstimateErrors();
    private StepTimes.Shared stepsRead;
    private long stepsReadAt;

    public BatchProgress(QueueStore store, Clock clock) {
        this(store, clock, () -> StepTimes.shared(store, clock));
    }

    /** {@code steps}: the step times and workers per state (every host's, or a test's). */
    BatchProgress(QueueStore store, Clock clock, Supplier<StepTimes.Shared> steps) {
        this.store = store;
        this.clock = clock;
        this.open = new OpenStates(store);
        this.steps = steps;
    }

    /** The estimates' measured error (the benchmark prints it). */
    public EstimateErrors errors() {
        return errors;
    }

    private synchronized StepTimes.Shared steps() {
        if (stepsRead == null || clock.millis() - stepsReadAt > STEPS_FRESH_MS || clock.millis() < stepsReadAt) {
            stepsRead = steps.get();
            stepsReadAt = clock.millis();
        }
        return stepsRead;
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
        boolean finished = finished(b, mine.isEmpty());
        if (holdNote != null && !finished) {
            m.put("hold_note", holdNote);
        }
        Line line = new Line(states, workedOn);
        Integer priority = priority(states, b);
        if (priority != null && !finished) {
            m.put("priority_note", PriorityNote.of(priority, size(b), b.submission().profileName(),
                    line.higherThan(priority, b)));
        }
        long now = clock.millis();
        if (finished) {
            long end = endOf(b, now);
            errors.ended(b.id(), end);
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
        Target target = line.target(mine, notMade);
        if (!finished) {
            Estimate e;
            if (holdNote != null) {
                e = Estimate.none(holdNote);
            } else if (target == null && held > 0) {
                e = Estimate.none("every open job of the batch is held by an operator: no estimate until they "
                        + "are released");
            } else if (target == null) {
                e = Estimate.none(b.state() == BatchState.PENDING
                        ? "the batch's jobs are not made yet: its estimate starts once they are"
                        : "no job of the batch is waiting or in a step");
            } else {
                e = estimate(target);
            }
            put(m, e);
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
                Target one = line.target(List.of(j.id()), 0);
                put(row, holdNote != null ? Estimate.none(holdNote)
                        : one == null ? Estimate.none("not in the queue's run order now") : estimate(one));
            }
            jobs.add(row);
        }
        m.put("open_jobs", jobs);
        if (mine.size() > LISTED_JOBS) {
            m.put("open_jobs_not_listed", mine.size() - LISTED_JOBS);
        }
        return m;
    }

    private static void put(Map<String, Object> m, Estimate e) {
        if (e.at() != null) {
            m.put("estimated_completion", e.at());
            m.put("estimate_range", Map.of("earliest", e.earliest(), "latest", e.latest()));
        }
        if (e.note() != null) {
            m.put("estimate_note", e.note());
        }
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
     * The jobs that pass a state before a job (or a batch's last job) is through it: the open states
     * in pipeline order, each one's references sorted in run order (priority, then job id), and
     * the ones a worker holds.
     */
    private static final class Line {
        private final List<List<String>> sorted = new ArrayList<>();
        private final List<List<String>> active = new ArrayList<>();
        private final Map<String, String> refOf = new HashMap<>();
        private final Map<String, Integer> stateOf = new HashMap<>();

        Line(Map<JobState, List<String>> states, Set<String> workedOn) {
            for (int i = 0; i < PIPELINE.size(); i++) {
                List<String> refs = new ArrayList<>(states.getOrDefault(PIPELINE.get(i), List.of()));
                Collections.sort(refs);
                sorted.add(refs);
                List<String> held = new ArrayList<>();
                for (String ref : refs) {
                    String jid = QueuePaths.jidOfRef(ref);
                    refOf.put(jid, ref);
                    stateOf.put(jid, i);
                    if (workedOn.contains(jid)) {
                        held.add(ref);
                    }
                }
                active.add(held);
            }
        }

        /** Open jobs of other batches whose priority goes before {@code priority}. */
        int higherThan(int priority, Batch b) {
            int n = 0;
            for (List<String> refs : sorted) {
                for (String ref : refs) {
                    int p = QueuePaths.priorityOfRef(ref);
                    n += p >= 0 && p < priority && !b.status().holds(QueuePaths.jidOfRef(ref)) ? 1 : 0;
                }
            }
            return n;
        }

        /**
         * What the model needs for these jobs (and {@code notMade} more, not created yet, that will
         * start in pending last in line): from the earliest state one of them is in, per state the
         * jobs that pass it before their last one: in that earliest state, those up to the last of them
         * in run order and the ones after it a worker holds; in each later state, every job there now
         * (it is there first) and those counted in the states before. Null when none of them is in the
         * pipeline (held or gone).
         */
        Target target(List<String> jids, int notMade) {
            int from = notMade > 0 ? 0 : Integer.MAX_VALUE;
            String last = null;
            for (String jid : jids) {
                Integer i = stateOf.get(jid);
                if (i != null) {
                    from = Math.min(from, i);
                    String ref = refOf.get(jid);
                    last = last == null || ref.compareTo(last) > 0 ? ref : last;
                }
            }
            if (from == Integer.MAX_VALUE) {
                return null;
            }
            int[] inOrder = new int[PIPELINE.size()];
            int[] after = new int[PIPELINE.size()];
            for (int i = from; i < PIPELINE.size(); i++) {
                List<String> busy = active.get(i);
                // those before the last in run order, and the ones after it a worker holds now
                inOrder[i] = upTo(sorted.get(i), last) + busy.size() - upTo(busy, last) + (i == 0 ? notMade : 0);
                // waiting after it in run order: passed by it, unless a worker takes them before it arrives
                after[i] = i == from ? 0 : sorted.get(i).size() - upTo(sorted.get(i), last) - busy.size()
                        + upTo(busy, last);
            }
            return new Target(from, inOrder, after);
        }
    }

    /** How many of the sorted references go before {@code last} or are it (none when it is null). */
    private static int upTo(List<String> sorted, String last) {
        if (last == null) {
            return 0;
        }
        int i = Collections.binarySearch(sorted, last);
        return i >= 0 ? i + 1 : -i - 1;
    }

    /**
     * From the earliest state on, per state: the jobs that pass it before the last of these in run order
     * (and the ones after it in a worker's hands), and those waiting after it in run order.
     */
    private record Target(int from, int[] inOrder, int[] after) {
    }

    private record Estimate(String at, String earliest, String latest, String note, String basis) {
        static Estimate none(String note) {
            return new Estimate(null, null, null, note, null);
        }
    }

    /** The model's estimate for these jobs, from every host's step times and workers. */
    private Estimate estimate(Target t) {
        StepTimes.Shared shared = steps();
        List<EstimateModel.Stage> stages = new ArrayList<>();
        int samples = 0;
        for (int i = t.from(); i < PIPELINE.size(); i++) {
            JobState s = PIPELINE.get(i);
            List<Long> times = shared.times().get(s);
            stages.add(EstimateModel.Stage.of(s, shared.workers().getOrDefault(s, 0), times));
            samples += times == null ? 0 : times.size();
        }
        // what passes each state before the last job: what is ahead of it in run order, there and in the states
        // before; and of the jobs waiting there after it in run order, those the state's workers take in the
        // time its first jobs need to get there (after that they go first)
        double[] through = new double[stages.size()];
        double arrives = 0;
        double before = 0;
        for (int i = 0; i < stages.size(); i++) {
            EstimateModel.Stage s = stages.get(i);
            double taken = s.mean() > 0 ? Math.min(t.after()[t.from() + i], s.workers() * arrives / s.mean()) : 0;
            double here = t.inOrder()[t.from() + i] + taken;
            through[i] = before + here;
            before += here;
            arrives += s.mean();
        }
        EstimateErrors.Spread spread = errors.spread();
        EstimateModel.Result r = EstimateModel.estimate(stages, through, spread);
        if (r.note() != null) {
            return Estimate.none(r.note());
        }
        Instant now = clock.instant();
        return new Estimate(at(now, r.seconds()), at(now, r.earliest()), at(now, r.latest()), null,
                EstimateModel.basis(r, samples, spread));
    }

    private static String at(Instant now, double seconds) {
        return now.plusMillis(Math.round(seconds * 1000)).toString();
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

    /** Why pending jobs of this batch do not move: the queue's hold or its collection's; null when neither. */
    private String holdNote(Batch b) {
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
