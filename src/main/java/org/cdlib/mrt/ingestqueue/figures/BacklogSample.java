package org.cdlib.mrt.ingestqueue.figures;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.model.QueueTime;

/**
 * The charts' minute sample in the README's words: per open state the longest <b>wait</b> of a
 * waiting job (open, not held, no worker has it) and the longest <b>step time</b> of an active job
 * (a worker holds it). Active jobs and their step times come from the work every host publishes
 * (no read per job); a wait needs the job's status, so only the first {@link #WAIT_READS} waiting
 * jobs in each state's run order are read: a bounded few reads a minute, whatever the backlog.
 */
public final class BacklogSample implements AutoCloseable {
    /** Waiting jobs read per state: the next ones in line, where the longest wait is unless priorities differ. */
    static final int WAIT_READS = 5;
    private final QueueStore store;
    private final Clock clock;
    private final OpenStates open;

    public BacklogSample(QueueStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
        this.open = new OpenStates(store);
    }

    /** What a sample adds to the counts: {@code wait_seconds} and {@code step_seconds}, each per state. */
    public record Times(Map<String, Long> waitSeconds, Map<String, Long> stepSeconds) {
    }

    public Times times() {
        Instant now = clock.instant();
        Map<String, String> since = open.workedOnSince();
        Map<String, Long> waits = new LinkedHashMap<>();
        Map<String, Long> steps = new LinkedHashMap<>();
        open.listed().forEach((state, refs) -> {
            if (state == JobState.HELD) {
                return; // a held job neither waits nor is in a step
            }
            List<String> next = new ArrayList<>();
            for (String ref : refs) {
                String jid = QueuePaths.jidOfRef(ref);
                Instant taken = since.containsKey(jid) ? QueueTime.parse(since.get(jid)) : null;
                if (taken != null) {
                    steps.merge(state.wire(), seconds(taken, now), Math::max);
                } else if (!since.containsKey(jid) && next.size() < WAIT_READS) {
                    next.add(jid);
                }
            }
            try {
                for (Job j : store.jobs().load(next)) {
                    Instant entered = QueueTime.parse(j.status().lastModified());
                    if (entered != null) {
                        waits.merge(state.wire(), seconds(entered, now), Math::max);
                    }
                }
            } catch (RuntimeException e) {
                // unreachable now: that state has no wait this minute
            }
        });
        return new Times(waits, steps);
    }

    private static long seconds(Instant from, Instant now) {
        return Math.max(0, Duration.between(from, now).toSeconds());
    }

    @Override
    public void close() {
        open.close();
    }
}
