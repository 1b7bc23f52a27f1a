package org.cdlib.mrt.ingestqueue.figures;

import java.time.Clock;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.FolderChanges;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every host's job arrivals per state, for {@link Activity}, counted from the state folders'
 * {@code Stat}s ({@link FolderChanges}): one read transaction of a dozen nodes a second, whatever
 * the queue does. Watching the folders instead cost each host that runs the API one event per
 * reference created or deleted, about twenty a job, dashboard open or not. A count that could not
 * be made for longer than {@link #GAP_MS} starts over: those minutes are not written as whole.
 */
public final class StateArrivals {
    private static final Logger LOG = LoggerFactory.getLogger(StateArrivals.class);
    public static final long TICK_MS = 1000;
    static final long GAP_MS = 10_000;
    private final QueueStore store;
    private final Activity activity;
    private final Clock clock;
    private Map<JobState, FolderChanges> last;
    private long lastAt;

    public StateArrivals(QueueStore store, Activity activity, Clock clock) {
        this.store = store;
        this.activity = activity;
        this.clock = clock;
    }

    public synchronized void count() {
        Map<JobState, FolderChanges> now;
        try {
            now = store.jobs().stateChanges();
        } catch (RuntimeException e) {
            LOG.debug("job arrivals not counted this time: {}", e.getMessage());
            return;
        }
        long t = clock.millis();
        if (last != null && t - lastAt <= GAP_MS) {
            now.forEach((s, c) -> {
                FolderChanges before = last.get(s);
                if (before != null) {
                    activity.arrived(s.wire(), c.createdSince(before));
                }
            });
        } else if (last != null) {
            activity.missedSome();
        }
        last = now;
        lastAt = t;
    }
}
