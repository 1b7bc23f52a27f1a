package org.cdlib.mrt.ingestqueue.figures;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cdlib.mrt.ingestqueue.camel.StepObserver;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.hosts.ActivityMinutes;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How long each job state's step takes, measured where steps end ({@link StepObserver}), and the
 * workers each state has, shared by every host: each host keeps its last {@link #KEPT} step times
 * a state (a fixed ring) and writes them with its workers to its own node under
 * {@code /activity/steps} every {@link #FLUSH_MS} when they changed ({@link #flush}). The
 * estimates read every host's ({@link #shared}): the steps of all hosts count, and a restarted
 * host's are still there. Only steps that succeeded are kept: a failed one ends early or late.
 * Beside them, a worker's time a job beyond its step (the claim, the move's commit), from the
 * workers' busy time: what a worker is taken for is the step and that. And how fast jobs left
 * each state while jobs waited in it ({@link LeaveRates}), from the state folders' counts.
 * <p>
 * And per profile (issue 45, {@link ProfileSteps}): the last step times a state of each of the
 * profiles seen last, in the same node (kept under {@link #NODE_BYTES}: the
 * profiles seen longest ago are left out of it when it would not fit), so a batch is estimated by
 * its own profile's steps where enough were measured ({@link BatchEstimates}).
 */
public final class StepTimes implements StepObserver {
    private static final Logger LOG = LoggerFactory.getLogger(StepTimes.class);
    /** Step times kept a state on each host (newest): 48 of up to six digits for every state take under 3 KB. */
    static final int KEPT = 48;
    public static final long FLUSH_MS = 1000;
    /** A host's times older than this are used only when no host has newer ones. */
    static final Duration RECENT = Duration.ofMinutes(60);
    /** How often the live hosts' workers are read again, for the leave rates' saturation. */
    static final long WORKERS_READ_MS = 5000;
    /** The most a host's node holds: its states' step times (~3 KB at most) and its profiles' beside them. */
    static final int NODE_BYTES = QueueLimits.nodeBytes(ActivityMinutes.STEPS + "/host");
    private static final String JOB_QUEUE = "job/";
    private final QueueStore store;
    private final Clock clock;
    private final Map<JobState, ArrayDeque<Long>> times = new EnumMap<>(JobState.class);
    private final ProfileSteps profiles = new ProfileSteps();
    /** Per state since the last flush: steps ended and their time (ms); the workers' busy time (ns) at it. */
    private final Map<JobState, long[]> sinceFlush = new EnumMap<>(JobState.class);
    private final Map<JobState, Long> busyAtFlush = new EnumMap<>(JobState.class);
    /** Per state: a worker's time a job beyond its step (the claim, the move's commit), ms, weighted to the newest. */
    private final Map<JobState, Double> overhead = new EnumMap<>(JobState.class);
    private Map<String, Object> written;
    private final LeaveRates leaves = new LeaveRates();
    private Map<JobState, Integer> liveWorkers = Map.of();
    /** Jobs a second the live workers would let go each state, by every host's step times. */
    private Map<JobState, Double> workersLetGo = Map.of();
    /** When the live hosts' workers were read; -1: never. */
    private long liveWorkersAt = -1;

    public StepTimes(QueueStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    @Override
    public void stepEnded(String queue, Duration took, boolean failed) {
        stepEnded(queue, null, null, took, failed);
    }

    @Override
    public void stepEnded(String queue, String id, String profile, Duration took, boolean failed) {
        if (failed || !queue.startsWith(JOB_QUEUE)) {
            return;
        }
        JobState s = stateOf(queue.substring(JOB_QUEUE.length()));
        if (s == null) {
            return;
        }
        synchronized (this) {
            ArrayDeque<Long> ring = times.computeIfAbsent(s, k -> new ArrayDeque<>());
            if (ring.size() == KEPT) {
                ring.pollFirst();
            }
            ring.addLast(Math.max(1, took.toMillis()));
            profiles.add(profile, s, took.toMillis());
            long[] n = sinceFlush.computeIfAbsent(s, k -> new long[2]);
            n[0]++;
            n[1] += took.toMillis();
        }
    }

    /** A working state by its wire name; null for anything else (a foreign or damaged key adds nothing). */
    static JobState stateOf(String name) {
        try {
            JobState s = JobState.fromWire(name);
            return s.isWorking() ? s : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** This host's figures as written: its step times (ms) and workers per state, and when. */
    synchronized Map<String, Object> figures() {
        Map<String, Object> steps = new LinkedHashMap<>();
        times.forEach((s, ring) -> steps.put(s.wire(), new ArrayList<>(ring)));
        Map<String, Integer> workers = new LinkedHashMap<>();
        store.health().workers().forEach((queue, w) -> {
            JobState s = queue.startsWith(JOB_QUEUE) ? stateOf(queue.substring(JOB_QUEUE.length())) : null;
            if (s != null) {
                workers.put(s.wire(), w.capacity());
                measureOverhead(s, w.busyNanos().getAsLong());
            }
        });
        Map<String, Long> extra = new LinkedHashMap<>();
        overhead.forEach((s, ms) -> extra.put(s.wire(), Math.round(ms)));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("steps", steps);
        out.put("workers", workers);
        out.put("overhead", extra);
        out.put("leave", leaves.figures(clock.millis()));
        out.put("profiles", profiles.figures());
        return out;
    }

    /**
     * The node as written: when it would be over {@link #NODE_BYTES}, the profiles seen longest ago are
     * left out until it fits (they stay kept here).
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> fitted(Map<String, Object> node) {
        Map<String, Object> out = new LinkedHashMap<>(node);
        Map<String, Object> profiles = new LinkedHashMap<>((Map<String, Object>) out.getOrDefault("profiles",
                Map.of()));
        out.put("profiles", profiles);
        List<String> names = new ArrayList<>(profiles.keySet());
        while (!names.isEmpty() && QueueJson.write(out).length > NODE_BYTES) {
            profiles.remove(names.remove(names.size() - 1));
        }
        return out;
    }

    /**
     * A worker's time per job beyond the step, from its busy time (taken to freed: the claim and the
     * move's commit included) against the steps' own since the last flush; each flush's figure
     * counts for a quarter of the kept one.
     */
    private void measureOverhead(JobState s, long busyNanos) {
        Long before = busyAtFlush.put(s, busyNanos);
        long[] n = sinceFlush.remove(s);
        if (before == null || n == null || n[0] == 0) {
            return;
        }
        double perJob = Math.max(0, (busyNanos - before) / 1e6 / n[0] - (double) n[1] / n[0]);
        overhead.merge(s, perJob, (old, now) -> 0.75 * old + 0.25 * now);
    }

    /**
     * Writes this host's figures when they changed since the last write, and deletes the nodes of
     * hosts that wrote nothing for {@link ActivityMinutes#KEPT_MINUTES}.
     */
    public void flush() {
        try {
            readFolders();
            Map<String, Object> now = figures();
            if (now.equals(written)) {
                return;
            }
            Map<String, Object> node = new LinkedHashMap<>(now);
            node.put("at", clock.instant().toString());
            store.activity().writeSteps(store.hosts().id(), fitted(node));
            written = now;
            Instant old = clock.instant().minus(Duration.ofMinutes(ActivityMinutes.KEPT_MINUTES));
            store.activity().readSteps().forEach((host, n) -> {
                if (at(n).isBefore(old)) {
                    store.activity().dropSteps(host);
                }
            });
        } catch (RuntimeException e) {
            LOG.debug("step times not written this time: {}", e.getMessage());
        }
    }

    /**
     * The state folders' counts now (one read transaction), with every live host's workers (read
     * again every {@link #WORKERS_READ_MS}), for the leave rates ({@link LeaveRates}).
     */
    private void readFolders() {
        long now = clock.millis();
        if (liveWorkersAt < 0 || now - liveWorkersAt >= WORKERS_READ_MS || now < liveWorkersAt) {
            Shared all = shared(store, clock);
            liveWorkers = all.workers();
            workersLetGo = new EnumMap<>(JobState.class);
            all.workers().forEach((s, w) -> {
                EstimateModel.Stage stage = EstimateModel.Stage.of(s, w, all.times().get(s))
                        .plus(all.overhead().getOrDefault(s, 0L) / 1000.0);
                if (stage.mean() > 0) {
                    workersLetGo.put(s, w / stage.mean());
                }
            });
            liveWorkersAt = now;
        }
        leaves.read(now, store.jobs().stateChanges(), liveWorkers, workersLetGo);
    }

    /** When a host wrote its node; the epoch when it cannot be read (older than any). */
    static Instant at(JsonNode n) {
        try {
            return Instant.parse(n.path("at").asText());
        } catch (RuntimeException e) {
            return Instant.EPOCH;
        }
    }

    /**
     * What every host measured: step times per state (ms, newest first) and the live hosts' workers; and per
     * profile, its step times per state (ms, newest first).
     */
    public record Shared(Map<JobState, List<Long>> times, Map<JobState, Integer> workers, int hosts,
                         Map<JobState, Long> overhead, Map<JobState, Double> leaveShares,
                         Map<String, Map<JobState, List<Long>>> profiles) {
        public Shared(Map<JobState, List<Long>> times, Map<JobState, Integer> workers, int hosts) {
            this(times, workers, hosts, Map.of(), Map.of(), Map.of());
        }

        /** A profile's step times in a state (ms, newest first); empty when none was measured. */
        public List<Long> times(String profile, JobState s) {
            return profile == null ? List.of() : profiles.getOrDefault(profile, Map.of()).getOrDefault(s, List.of());
        }
    }

    /**
     * Every host's step times (those written within {@link #RECENT}, or all when none is that
     * recent) and the workers of the hosts alive and not drained; a live host that wrote none yet
     * counts with the workers of the first one that did.
     */
    public static Shared shared(QueueStore store, Clock clock) {
        Map<String, JsonNode> nodes = store.activity().readSteps();
        Set<String> live = new HashSet<>();
        for (Map<String, Object> h : store.hosts().list()) {
            if (Boolean.TRUE.equals(h.get("alive")) && !Boolean.TRUE.equals(h.get("drained"))) {
                live.add((String) h.get("id"));
            }
        }
        Instant recent = clock.instant().minus(RECENT);
        boolean anyRecent = nodes.values().stream().anyMatch(n -> !at(n).isBefore(recent));
        Map<JobState, List<List<Long>>> byHost = new EnumMap<>(JobState.class);
        Map<String, Map<JobState, List<List<Long>>>> profilesByHost = new HashMap<>();
        Map<JobState, Integer> workers = new EnumMap<>(JobState.class);
        Map<JobState, Integer> typical = new EnumMap<>(JobState.class);
        Map<JobState, long[]> extra = new EnumMap<>(JobState.class);
        int counted = 0;
        List<JsonNode> leaving = new ArrayList<>();
        Instant leftRecent = clock.instant().minusMillis(LeaveRates.RECENT_MS);
        for (Map.Entry<String, JsonNode> e : nodes.entrySet()) {
            JsonNode n = e.getValue();
            if (!at(n).isBefore(leftRecent)) {
                leaving.add(n);
            }
            if (!anyRecent || !at(n).isBefore(recent)) {
                n.path("steps").fields().forEachRemaining(f -> {
                    JobState s = stateOf(f.getKey());
                    if (s != null && f.getValue().isArray()) {
                        List<Long> host = new ArrayList<>();
                        f.getValue().forEach(v -> host.add(0, Math.max(1, v.asLong()))); // newest first
                        byHost.computeIfAbsent(s, k -> new ArrayList<>()).add(host);
                    }
                });
                ProfileSteps.read(n, profilesByHost);
            }
            n.path("overhead").fields().forEachRemaining(f -> {
                JobState s = stateOf(f.getKey());
                if (s != null && f.getValue().asLong() >= 0) {
                    long[] sum = extra.computeIfAbsent(s, k -> new long[2]);
                    sum[0]++;
                    sum[1] += f.getValue().asLong();
                }
            });
            boolean isLive = live.contains(e.getKey());
            counted += isLive ? 1 : 0;
            n.path("workers").fields().forEachRemaining(f -> {
                JobState s = stateOf(f.getKey());
                if (s != null && f.getValue().asInt() > 0) {
                    typical.putIfAbsent(s, f.getValue().asInt());
                    if (isLive) {
                        workers.merge(s, f.getValue().asInt(), Integer::sum);
                    }
                }
            });
        }
        int unwritten = live.size() - counted;
        if (unwritten > 0) {
            typical.forEach((s, w) -> workers.merge(s, w * unwritten, Integer::sum));
        }
        Map<JobState, List<Long>> times = new EnumMap<>(JobState.class);
        byHost.forEach((s, hosts) -> times.put(s, interleaved(hosts)));
        Map<JobState, Long> overheads = new EnumMap<>(JobState.class);
        extra.forEach((s, sum) -> overheads.put(s, sum[1] / sum[0]));
        return new Shared(times, workers, live.size(), overheads, LeaveRates.shared(leaving),
                ProfileSteps.merged(profilesByHost));
    }

    /** The hosts' step times newest first: each host's newest, then each one's next, and so on. */
    static List<Long> interleaved(List<List<Long>> hosts) {
        List<Long> out = new ArrayList<>();
        int longest = hosts.stream().mapToInt(List::size).max().orElse(0);
        for (int rank = 0; rank < longest; rank++) {
            for (List<Long> h : hosts) {
                if (rank < h.size()) {
                    out.add(h.get(rank));
                }
            }
        }
        return out;
    }
}
