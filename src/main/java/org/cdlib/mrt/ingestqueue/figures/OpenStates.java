package org.cdlib.mrt.ingestqueue.figures;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.hosts.Hosts;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.zk.StateView;

/**
 * The open job states as this instance sees them: a watched view of each state's folder (kept
 * small by the open-job cap), so a batch's figures are counted in memory, whatever the batch's
 * size, with no read per job; and the jobs being worked on, from the work every host publishes
 * (a job a worker holds), at most a couple of seconds old. The views start when a batch's
 * progress is first asked for and close after {@link #IDLE_MS} without one: each brings two events
 * a job, which a host nobody asks has no use for.
 */
public final class OpenStates implements AutoCloseable {
    public static final List<JobState> OPEN = Arrays.stream(JobState.values())
            .filter(s -> s.batchRef() == BatchRef.PROCESSING).toList();
    static final long IDLE_MS = 120_000;
    private final QueueStore store;
    private final long idleMs;
    private final Map<JobState, StateView> views = new EnumMap<>(JobState.class);
    private long lastAsked;

    OpenStates(QueueStore store) {
        this(store, IDLE_MS);
    }

    /** {@code idleMs}: how long the views stay after the last progress asked for. */
    OpenStates(QueueStore store, long idleMs) {
        this.store = store;
        this.idleMs = idleMs;
    }

    /**
     * Each open state's references (PP-JID) in run order; the watched view once it has listed, a listing until then.
     */
    synchronized Map<JobState, List<String>> snapshot() {
        lastAsked = System.currentTimeMillis();
        Map<JobState, List<String>> out = new EnumMap<>(JobState.class);
        for (JobState s : OPEN) {
            var view = views.computeIfAbsent(s, k -> store.jobStateView(k).start(() -> { }));
            out.put(s, view.isListed() ? view.snapshot() : listing(s));
        }
        return out;
    }

    /** The same, without starting the views: theirs if they are on, else one listing of each state. */
    synchronized Map<JobState, List<String>> listed() {
        Map<JobState, List<String>> out = new EnumMap<>(JobState.class);
        for (JobState s : OPEN) {
            var view = views.get(s);
            out.put(s, view != null && view.isListed() ? view.snapshot() : listing(s));
        }
        return out;
    }

    /** Closes the views when no progress was asked for in {@link #IDLE_MS}. */
    synchronized void closeIfIdle() {
        if (!views.isEmpty() && System.currentTimeMillis() - lastAsked > idleMs) {
            close();
        }
    }

    boolean watching() {
        return !views.isEmpty();
    }

    private List<String> listing(JobState s) {
        try {
            return store.jobs().refs(s);
        } catch (RuntimeException e) {
            return new ArrayList<>(); // too large to list or unreachable: counted as empty until the view has listed
        }
    }

    /**
     * The open jobs as the README's glossary counts them, from the state folders' counts and every host's published
     * work: {@code active}, a worker holds them; {@code waiting}, open, not held, no worker has them (pending or
     * between steps); {@code held}. What the tiles, {@code /api/queue}, the charts' samples and the metrics show.
     */
    public static Map<String, Integer> work(QueueStore store, Map<String, Integer> jobs) {
        int working = 0;
        for (Map<String, Object> h : store.hosts().list()) {
            working += h.get("work") instanceof List<?> w ? w.size() : 0;
        }
        int open = 0;
        for (JobState s : OPEN) {
            open += s == JobState.HELD ? 0 : jobs.getOrDefault(s.wire(), 0);
        }
        Map<String, Integer> out = new LinkedHashMap<>();
        out.put("active", Math.min(working, open));
        out.put("waiting", Math.max(0, open - working));
        out.put("held", jobs.getOrDefault(JobState.HELD.wire(), 0));
        return out;
    }

    /** The jobs a worker of some host holds now. */
    Set<String> workedOn() {
        return new HashSet<>(workedOnSince().keySet());
    }

    /** The jobs a worker of some host holds now, each with when its worker took it (ISO, as the host published). */
    Map<String, String> workedOnSince() {
        Map<String, String> out = new HashMap<>();
        for (Map<String, Object> h : store.hosts().list()) {
            if (h.get("work") instanceof List<?> work) {
                for (Object w : work) {
                    if (w instanceof Hosts.Work item) {
                        out.put(item.jobId(), item.since());
                    }
                }
            }
        }
        return out;
    }

    @Override
    public synchronized void close() {
        views.values().forEach(StateView::close);
        views.clear();
    }
}
