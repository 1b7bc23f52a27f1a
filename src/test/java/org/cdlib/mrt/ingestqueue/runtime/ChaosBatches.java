package org.cdlib.mrt.ingestqueue.runtime;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;

/** The run's batches: the first and the reserve batches submitted so far, their jobs by object. */
final class ChaosBatches {
    final QueueStore store;
    private final ChaosServices services;
    private final ChaosTimeline timeline;
    final List<String> bids = new CopyOnWriteArrayList<>();
    final Map<Integer, String> jids = new ConcurrentHashMap<>();

    ChaosBatches(QueueStore store, ChaosServices services, ChaosTimeline timeline) {
        this.store = store;
        this.services = services;
        this.timeline = timeline;
    }

    boolean reserveLeft() {
        return services.submitted + ChaosTest.RESERVE_OBJECTS <= services.objects.size();
    }

    /** Submits the next {@code n} objects as one batch and waits until its jobs exist. */
    void submit(int n) {
        int from = services.submitted;
        String name = bids.isEmpty() ? "batch.checkm" : "batch-" + bids.size() + ".checkm";
        services.manifests.put(name, ChaosObjects.manifest(services.objects.subList(from, from + n), services.base()));
        services.submitted = from + n;
        String bid = createBatch(name);
        bids.add(bid);
        timeline.note("submitted " + bid + " (objects " + from + " to " + (from + n - 1) + ")");
        await().atMost(Duration.ofSeconds(120)).ignoreExceptions()
                .until(() -> store.batches().load(bid).jobIds().size() == n);
        store.jobs().load(store.batches().load(bid).jobIds()).forEach(j -> jids.put(ChaosLedger.objectOf(j), j.id()));
    }

    /** A batch of the manifest {@code name} the chaos services serve, submitted as a depositor would. */
    String createBatch(String name) {
        return store.batches()
                .create(QueueTestSupport.submission("chaos", "tester", services.base() + "/data/" + name,
                        "single-file-batch-manifest", Instant.now().toString()));
    }

    int completed() {
        try {
            int n = 0;
            for (String bid : bids) {
                n += store.batches().load(bid).count(BatchRef.COMPLETED);
            }
            return n;
        } catch (RuntimeException e) {
            return -1; // the ensemble is electing: ask again
        }
    }

    boolean ended() {
        return bids.stream().allMatch(bid -> {
            BatchState s = state(bid);
            return s == BatchState.COMPLETED || s == BatchState.FAILED;
        });
    }

    String states() {
        return bids.stream().map(bid -> bid + " " + state(bid)).toList().toString();
    }

    List<Job> jobs() {
        List<Job> jobs = new ArrayList<>();
        bids.forEach(bid -> jobs.addAll(store.jobs().load(store.batches().load(bid).jobIds())));
        return jobs;
    }

    /** How many of the run's jobs are in each state, and the locked ones by holder (for a stall's report). */
    String jobsByState() {
        try {
            Map<String, Integer> n = new TreeMap<>();
            for (Job j : jobs()) {
                n.merge(
                        j.state().wire()
                                + (j.lockOwner() == null
                                        ? ""
                                        : " locked by pid " + j.lockOwner().pid()),
                        1,
                        Integer::sum);
            }
            return n.toString();
        } catch (RuntimeException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    private BatchState state(String bid) {
        try {
            return store.batches().load(bid).state();
        } catch (RuntimeException e) {
            return null;
        }
    }
}
