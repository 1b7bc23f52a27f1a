package org.cdlib.mrt.ingestqueue.figures;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;

/**
 * What the charts show: jobs that arrived in each state per minute (counted from the state
 * folders' {@code Stat}s, {@link StateArrivals}, so every host's jobs count; arrivals in completed
 * and failed are the charts' endings, and the arrivals in a state's successor are the rate that
 * state is left at), and a sample a minute of
 * the backlog (per state, and active / waiting / held as the tiles count them) with the longest wait and step
 * time per open state ({@link BacklogSample}). Fixed-size
 * rings of {@link #MINUTES}: nothing grows. The minutes are shared through ZooKeeper
 * ({@code ActivityRecords}, written by any host that watched a minute whole), so a restarted
 * instance, or another host behind a load balancer, reads the same charts and rates.
 */
public final class Activity {
    public static final int MINUTES = 360;
    /** The window of the queue's rate ("now"), in minutes. */
    public static final int QUEUE_RATE_MINUTES = 15;
    /** The job states' wire names: the only keys counted (a hostile node or a foreign path adds none). */
    private static final Set<String> STATES = Arrays.stream(JobState.values())
            .map(JobState::wire).collect(Collectors.toUnmodifiableSet());
    /** The open jobs as the tiles count them: a sample's {@code work}. */
    private static final Set<String> WORK = Set.of("active", "waiting", "held");
    private final Clock clock;
    /** Per job state (its wire name), how many jobs arrived in it per minute: the rate each state is left at. */
    private final Map<String, long[]> arrivals = new LinkedHashMap<>();
    private final long[] minuteOf = new long[MINUTES];
    private final List<Map<String, Object>> samples = new ArrayList<>();
    /** The first minute this instance watched whole (its own figures start there). */
    private long watchedFrom;
    /** The first minute it has figures of: earlier when minutes other hosts wrote were read back ({@link #fill}). */
    private long startedMinute;

    public Activity(Clock clock) {
        this.clock = clock;
        this.startedMinute = minute();
        this.watchedFrom = startedMinute + 1;
    }

    public long minuteNow() {
        return minute();
    }

    /** Whether this instance watched the whole of {@code minute} (so it may write the minute for every host). */
    public synchronized boolean watchedWhole(long minute) {
        return minute >= watchedFrom && minute < minute();
    }

    /** One minute's figures as the hosts share them: arrivals per state, and the minute's backlog sample if taken. */
    public synchronized Map<String, Object> figures(long minute) {
        int i = (int) (minute % MINUTES);
        Map<String, Long> arrived = new LinkedHashMap<>();
        if (minuteOf[i] == minute) {
            arrivals.forEach((state, ring) -> {
                if (ring[i] > 0) {
                    arrived.put(state, ring[i]);
                }
            });
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("arrived", arrived);
        samples.stream().filter(x -> Instant.parse((String) x.get("at")).toEpochMilli() / 60_000 == minute).findFirst()
                .ifPresent(x -> out.put("sample", x));
        return out;
    }

    /** Minutes other hosts (or this one before a restart) recorded, for those this instance did not watch. */
    @SuppressWarnings("unchecked")
    public synchronized void fill(Map<Long, JsonNode> minutes) {
        List<Map<String, Object>> earlier = new ArrayList<>();
        for (Map.Entry<Long, JsonNode> e : new TreeMap<>(minutes).entrySet()) {
            long m = e.getKey();
            if (m >= watchedFrom || m <= minute() - MINUTES) {
                continue;
            }
            int i = slot(m);
            e.getValue().path("arrived").fields().forEachRemaining(f -> {
                if (STATES.contains(f.getKey())) {
                    ring(f.getKey())[i] = f.getValue().asLong(); // only states: a hostile node adds no keys
                }
            });
            if (e.getValue().path("sample").path("at").isTextual()) {
                earlier.add(sampleOf(e.getValue().get("sample")));
            }
            startedMinute = Math.min(startedMinute, m);
        }
        samples.addAll(0, earlier);
        while (samples.size() > MINUTES) {
            samples.remove(0);
        }
    }

    /** A sample another host wrote, its known fields only: a hostile or older node adds no keys. */
    private static Map<String, Object> sampleOf(JsonNode n) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("at", n.get("at").asText());
        s.put("jobs", numbers(n.path("jobs"), STATES));
        if (n.has("work")) {
            s.put("work", numbers(n.path("work"), WORK));
        }
        s.put("wait_seconds", numbers(n.path("wait_seconds"), STATES));
        if (n.has("step_seconds")) {
            s.put("step_seconds", numbers(n.path("step_seconds"), STATES));
        }
        return s;
    }

    private static Map<String, Long> numbers(JsonNode n, Set<String> keys) {
        Map<String, Long> out = new LinkedHashMap<>();
        n.fields().forEachRemaining(f -> {
            if (keys.contains(f.getKey()) && f.getValue().canConvertToLong()) {
                out.put(f.getKey(), f.getValue().asLong());
            }
        });
        return out;
    }

    private long minute() {
        return clock.millis() / 60_000;
    }

    private int slot(long m) {
        int i = (int) (m % MINUTES);
        if (minuteOf[i] != m) {
            minuteOf[i] = m;
            arrivals.values().forEach(a -> a[i] = 0);
        }
        return i;
    }

    private long[] ring(String state) {
        return arrivals.computeIfAbsent(state, k -> new long[MINUTES]);
    }

    private long count(String state, int slot) {
        long[] a = arrivals.get(state);
        return a == null ? 0 : a[slot];
    }

    /** A job reference was created in {@code state} (a job state's wire name; anything else is ignored). */
    void arrived(String state) {
        arrived(state, 1);
    }

    /**
     * {@code n} job references were created in {@code state} since the last count (counted in the minute under way).
     */
    synchronized void arrived(String state, long n) {
        if (STATES.contains(state) && n > 0) {
            int i = slot(minute());
            ring(state)[i] += n;
        }
    }

    /**
     * This instance missed some of the arrivals (it could not count for a while): it no longer
     * writes the minutes under way as whole for every host, only those from the next one.
     */
    synchronized void missedSome() {
        watchedFrom = minute() + 1;
    }

    /** How many batches' recent rates are kept (the ones asked about last). */
    static final int RATED_BATCHES = 1000;
    /** The window of an open batch's rate, in minutes: the queue's window. */
    static final int RATE_MINUTES = QUEUE_RATE_MINUTES;
    /** Per batch asked about: its completed count as seen, at most one sample a minute, over the window. */
    private final Map<String, ArrayDeque<long[]>> batchSamples = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, ArrayDeque<long[]>> eldest) {
            return size() > RATED_BATCHES;
        }
    };

    /**
     * The open batch's rate: its jobs completed per minute over the last {@link #RATE_MINUTES} minutes (at least one
     * minute counted), null when none completed in what this instance can tell. {@code completed}: the batch's
     * completed jobs so far (exact from its folder's {@code Stat}), sampled whenever the batch is shown; a batch
     * created within the window started at none, one older is measured from the first time it was shown in the
     * window. A finished batch's figure is its mean rate, not this one (the window would show its last minutes as
     * "now" long after it ended).
     */
    public synchronized Double batchRate(String bid, long completed, long createdAt) {
        long now = clock.millis();
        long window = RATE_MINUTES * 60_000L;
        ArrayDeque<long[]> samples = batchSamples.computeIfAbsent(bid, k -> new ArrayDeque<>());
        while (!samples.isEmpty() && samples.peekFirst()[0] < now - window) {
            samples.pollFirst();
        }
        long[] from = createdAt >= now - window ? new long[] {createdAt, 0} : samples.peekFirst();
        if (samples.isEmpty() || samples.peekLast()[0] / 60_000 < now / 60_000) {
            samples.addLast(new long[] {now, completed});
        }
        if (from == null || completed <= from[1]) {
            return null;
        }
        double seconds = Math.max(60.0, (now - from[0]) / 1000.0);
        return Math.round((completed - from[1]) * 60.0 / seconds * 10) / 10.0;
    }

    /**
     * One minute's sample: the jobs per state, the open jobs counted as the tiles count them ({@code work}: active,
     * waiting, held), and per open state the longest wait and step time in seconds ({@link BacklogSample}).
     */
    public synchronized void sample(Map<String, Integer> jobs, Map<String, Integer> work, BacklogSample.Times times) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("at", clock.instant().toString());
        s.put("jobs", jobs);
        s.put("work", work);
        s.put("wait_seconds", times.waitSeconds());
        s.put("step_seconds", times.stepSeconds());
        samples.add(s);
        if (samples.size() > MINUTES) {
            samples.remove(0);
        }
    }

    /** Jobs completed per minute over the last {@code minutes} full minutes (0 when none were measured). */
    synchronized double completedPerMinute(int minutes) {
        return arrivedPerMinute("completed", minutes);
    }

    /**
     * Jobs that arrived in {@code state} per minute over the last {@code minutes} minutes and the one under way (0:
     * none).
     */
    synchronized double arrivedPerMinute(String state, int minutes) {
        long now = minute();
        long sum = 0;
        int counted = 0;
        for (long m = now - minutes; m < now; m++) {
            if (m < startedMinute) {
                continue;
            }
            counted++;
            int i = (int) (m % MINUTES);
            sum += minuteOf[i] == m ? count(state, i) : 0;
        }
        // the minute under way counts too, so a fresh instance has a rate within a minute
        int i = (int) (now % MINUTES);
        long partial = minuteOf[i] == now ? count(state, i) : 0;
        double seconds = counted * 60.0 + (clock.millis() % 60_000) / 1000.0;
        return seconds < 1 ? 0 : (sum + partial) * 60.0 / seconds;
    }

    /** The charts' data: per minute completed and failed, the samples, oldest first, and the queue's rate. */
    public synchronized Map<String, Object> view(int minutes) {
        int n = Math.max(1, Math.min(minutes, MINUTES));
        long now = minute();
        List<Map<String, Object>> perMinute = new ArrayList<>();
        for (long m = now - n + 1; m <= now; m++) {
            int i = (int) (m % MINUTES);
            boolean known = minuteOf[i] == m;
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("minute", Instant.ofEpochMilli(m * 60_000).toString());
            row.put("completed", known ? count("completed", i) : 0);
            row.put("failed", known ? count("failed", i) : 0);
            perMinute.add(row);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("since", Instant.ofEpochMilli(startedMinute * 60_000).toString());
        out.put("per_minute", perMinute);
        out.put("samples", new ArrayList<>(samples.subList(Math.max(0, samples.size() - n), samples.size())));
        double rate = Math.round(completedPerMinute(QUEUE_RATE_MINUTES) * 100) / 100.0;
        out.put("rate_per_minute", rate);
        out.put("completed_per_minute", rate); // the same figure's earlier name, kept for scripts (openapi.json)
        return out;
    }
}
