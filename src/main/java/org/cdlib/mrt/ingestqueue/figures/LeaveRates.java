package org.cdlib.mrt.ingestqueue.figures;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayDeque;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.queue.model.FolderChanges;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;

/**
 * How fast jobs leave each working state while jobs wait in it, against what its workers would let
 * go by their step times: the ceiling on a state's drain that step times and workers alone miss
 * (three services and ZooKeeper on two busy cores do not deliver what their workers would: the
 * commits bound the rate). Each host, every flush of its {@link StepTimes}, gives the state
 * folders' {@code Stat}s ({@link FolderChanges}, one read transaction), the workers every live host
 * has per state and what they would let go a second. An interval between two reads in which a
 * state held more jobs than its workers at both ends and at the read before is saturated (jobs
 * waited, and its workers had been busy a while) unless jobs waited in the state after it too (it
 * was held back); the jobs that left it then (references deleted) count, against those its workers
 * would have let go. As a share, not a rate: a payload server that
 * slowed down and sped up again changes the step times, which the share follows at once. Kept a
 * state: its last {@link #KEPT} saturated intervals of the last {@link #RECENT_MS}, all measured with
 * the workers it has now (hosts came or went: a new measure). Not counted: an interval in which no
 * job left any working state (the queue held, or stalled), and one longer than {@link #GAP_MS}
 * (reads missed). No clock, no ZooKeeper: what it is given, it answers.
 */
final class LeaveRates {
    /** Saturated intervals kept a state (about two minutes of one-second flushes). */
    static final int KEPT = 120;
    static final long RECENT_MS = 10 * 60_000L;
    static final long GAP_MS = 10_000;
    /** A share is given once this much saturated time and these many jobs left were measured: fewer tell nothing. */
    static final long LEAST_MS = 3_000;
    static final long LEAST_LEFT = 10;
    /** The rounds of a state's workers its newest intervals measure (fewer when fewer were kept). */
    static final int ROUNDS = 10;

    /** A saturated interval: its end, the jobs that left, its length, and the jobs its workers would have let go. */
    private record Interval(long end, long left, long ms, double could) {
    }

    private final Map<JobState, ArrayDeque<Interval>> kept = new EnumMap<>(JobState.class);
    private final Map<JobState, Integer> measuredWith = new EnumMap<>(JobState.class);
    /** The last read, and the one before it when it was within {@link #GAP_MS}. */
    private Map<JobState, FolderChanges> last;
    private Map<JobState, FolderChanges> beforeLast;
    private long lastAt;

    /**
     * The folders as read at {@code now}, every live host's workers per state, and the jobs a second
     * they would let go by the step times measured ({@code workers / mean step}).
     */
    synchronized void read(long now, Map<JobState, FolderChanges> folders, Map<JobState, Integer> workers,
            Map<JobState, Double> perSecond) {
        boolean inTime = last != null && now > lastAt && now - lastAt <= GAP_MS;
        if (inTime) {
            Map<JobState, Long> left = new EnumMap<>(JobState.class);
            for (JobState s : RunOrder.PIPELINE) {
                FolderChanges before = last.get(s);
                FolderChanges after = folders.get(s);
                if (before != null && after != null) {
                    left.put(s, after.createdSince(before) - (after.children() - before.children()));
                }
            }
            if (left.values().stream().anyMatch(n -> n > 0)) {
                left.forEach((s, n) -> saturated(s, n, now, folders, workers, perSecond.getOrDefault(s, 0.0)));
            }
        }
        beforeLast = inTime ? last : null;
        last = folders;
        lastAt = now;
    }

    private void saturated(JobState s, long left, long now, Map<JobState, FolderChanges> folders,
            Map<JobState, Integer> workers, double perSecond) {
        int w = workers.getOrDefault(s, 0);
        if (w <= 0 || perSecond <= 0) {
            return;
        }
        if (!Integer.valueOf(w).equals(measuredWith.put(s, w))) {
            kept.remove(s);
        }
        // jobs waited at the read before too: its workers had been busy a while (a state just filling lets few go)
        FolderChanges before = beforeLast == null ? null : beforeLast.get(s);
        if (before != null && before.children() > w && last.get(s).children() > w && folders.get(s).children() > w
                && !heldBack(s, folders, workers)) {
            ArrayDeque<Interval> ring = kept.computeIfAbsent(s, k -> new ArrayDeque<>());
            ring.addLast(new Interval(now, Math.max(0, left), now - lastAt, perSecond * (now - lastAt) / 1000.0));
            if (ring.size() > KEPT) {
                ring.pollFirst();
            }
        }
    }

    /**
     * Whether jobs also wait in the state after {@code s}: then it lets go what that one takes, and
     * its own share says nothing of itself (kept, it would hold it down once the next one is fast again).
     */
    private static boolean heldBack(JobState s, Map<JobState, FolderChanges> folders, Map<JobState, Integer> workers) {
        int i = RunOrder.PIPELINE.indexOf(s);
        if (i < 0 || i + 1 >= RunOrder.PIPELINE.size()) {
            return false;
        }
        JobState next = RunOrder.PIPELINE.get(i + 1);
        FolderChanges f = folders.get(next);
        return f != null && f.children() > workers.getOrDefault(next, 0);
    }

    /**
     * Per state with enough measured: the jobs that left it, the saturated ms and the jobs its
     * workers would have let go then, of its newest intervals, as few as hold {@link #ROUNDS} rounds
     * of its workers (newest first: a queue that speeds up, as hosts warm up or the load drops, shows
     * within seconds), as a host's node carries them.
     */
    synchronized Map<String, List<Long>> figures(long now) {
        Map<String, List<Long>> out = new LinkedHashMap<>();
        kept.forEach((s, ring) -> {
            ring.removeIf(i -> i.end() < now - RECENT_MS);
            long enough = Math.max(LEAST_LEFT, (long) ROUNDS * measuredWith.getOrDefault(s, 0));
            long left = 0;
            long ms = 0;
            double could = 0;
            for (Iterator<Interval> newest = ring.descendingIterator(); newest.hasNext()
                    && (left < enough || ms < LEAST_MS); ) {
                Interval i = newest.next();
                left += i.left();
                ms += i.ms();
                could += i.could();
            }
            if (ms >= LEAST_MS && left >= LEAST_LEFT && could >= 1) {
                out.put(s.wire(), List.of(left, ms, Math.round(could)));
            }
        });
        return out;
    }

    /**
     * Per state, the jobs that left it while saturated ÷ those its workers would have let go, from
     * the hosts' nodes' {@code leave} figures (every host reads the same folders: their counts add up
     * to one longer measure).
     */
    static Map<JobState, Double> shared(List<JsonNode> nodes) {
        Map<JobState, long[]> sums = new EnumMap<>(JobState.class);
        for (JsonNode n : nodes) {
            n.path("leave").fields().forEachRemaining(f -> {
                JobState s = StepTimes.stateOf(f.getKey());
                JsonNode v = f.getValue();
                if (s != null && v.isArray() && v.size() == 3 && v.get(0).asLong() >= 0 && v.get(2).asLong() > 0) {
                    long[] sum = sums.computeIfAbsent(s, k -> new long[2]);
                    sum[0] += v.get(0).asLong();
                    sum[1] += v.get(2).asLong();
                }
            });
        }
        Map<JobState, Double> out = new EnumMap<>(JobState.class);
        sums.forEach((s, sum) -> out.put(s, (double) sum[0] / sum[1]));
        return out;
    }
}
