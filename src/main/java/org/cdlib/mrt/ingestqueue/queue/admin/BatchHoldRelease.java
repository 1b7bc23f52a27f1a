package org.cdlib.mrt.ingestqueue.queue.admin;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.errors.NotFoundException;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchStatus;
import org.cdlib.mrt.ingestqueue.queue.model.HeldBy;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Releases the jobs a batch's hold stopped, once the hold is lifted (issue 45). The hold's removal is the truth:
 * the transaction that deleted it left {@code /locks/batch-releases/BID}, and any host's pass (the release's own
 * host at once, every host on its timer) releases that batch's stopped jobs in chunks of {@link #CHUNK}, each to
 * where it waited or would have gone, and removes the entry when none is left. A job an operator held by hand, or
 * held again since, is not the hold's ({@code held_by} and its status version: {@link HeldBy}) and stays held.
 */
public final class BatchHoldRelease {
    private static final Logger LOG = LoggerFactory.getLogger(BatchHoldRelease.class);
    /** Jobs read at once: one bounded read of their statuses. */
    static final int CHUNK = 100;
    /** Jobs released by one pass at most; the rest are the next pass's. */
    static final int PER_PASS = 1_000;

    /** The states in which a batch's jobs may still run: a hold on any other has nothing left to stop. */
    private static final Set<BatchState> RUNNING = EnumSet.of(BatchState.PENDING, BatchState.HELD,
            BatchState.PROCESSING);

    private final QueueStore store;
    private final JobActions jobs;
    private final AtomicBoolean queued = new AtomicBoolean();
    private ExecutorService background; // guarded by this

    BatchHoldRelease(QueueStore store, JobActions jobs) {
        this.store = store;
        this.jobs = jobs;
    }

    /** A pass soon, on a thread of its own (after a release here); passes asked meanwhile are one. */
    void soon() {
        if (!queued.compareAndSet(false, true)) {
            return;
        }
        try {
            executor().execute(() -> {
                queued.set(false);
                try {
                    while (pass() >= PER_PASS) {
                        // a large release goes on in passes of PER_PASS until it is done
                    }
                } catch (RuntimeException e) {
                    LOG.warn("held jobs of released batches: pass failed ({}); the timer's next pass goes on",
                            e.getMessage());
                }
            });
        } catch (RejectedExecutionException e) {
            queued.set(false);
        }
    }

    private synchronized ExecutorService executor() {
        if (background == null) {
            background = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "batch-hold-release");
                t.setDaemon(true);
                return t;
            });
        }
        return background;
    }

    /**
     * One pass: the stopped jobs of every released batch, at most {@link #PER_PASS}; a batch held again keeps them
     * (its new hold's release frees them); holds left on batches that ended or went are dropped. Returns how many
     * jobs it released.
     */
    public int pass() {
        dropEndedHolds();
        int released = 0;
        for (String bid : store.holds().batchReleases()) {
            if (released >= PER_PASS) {
                break;
            }
            if (store.holds().isBatchHeld(bid)) {
                store.holds().batchReleased(bid); // held again: its stopped jobs wait for that hold's release
                continue;
            }
            try {
                released += release(bid, PER_PASS - released);
            } catch (NotFoundException gone) {
                store.holds().batchReleased(bid);
            }
        }
        return released;
    }

    /** The batch's stopped jobs released, at most {@code budget}; its entry removed when none is left. */
    private int release(String bid, int budget) {
        List<String> open = store.batches().jobs(bid, BatchRef.PROCESSING); // a batch's open jobs: a bounded folder
        HeldBy hold = HeldBy.batch(bid);
        int released = 0;
        boolean left = false;
        for (int i = 0; i < open.size() && released < budget; i += CHUNK) {
            List<String> chunk = open.subList(i, Math.min(open.size(), i + CHUNK));
            Map<String, JobState> states = store.jobs().run(chunk).states();
            List<String> held = chunk.stream().filter(j -> states.get(j) == JobState.HELD).toList();
            for (Job job : store.jobs().load(held)) {
                HeldBy by = job.status().stoppedByHold(job.statusVersion());
                if (by == null || !HeldBy.BATCH.equals(by.hold()) || !bid.equals(by.of())) {
                    continue; // held by hand, or by its collection's hold: not this release's
                }
                try {
                    if (jobs.releaseStopped(job.id(), hold)) {
                        released++;
                    }
                } catch (QueueException e) { // locked now, or the queue's trouble
                    left = true; // the next pass tries it again
                    LOG.debug("job {}: not released now: {}", job.id(), e.getMessage());
                }
            }
            left |= released >= budget && i + CHUNK < open.size();
        }
        if (!left && released < budget) {
            store.holds().batchReleased(bid);
            LOG.info("batch {}: the jobs its hold stopped are released ({} by this pass)", bid, released);
        }
        return released;
    }

    /** Holds left on batches that are no longer open (their jobs all ended while held, or they were removed). */
    private void dropEndedHolds() {
        List<String> held = new ArrayList<>(store.holds().heldBatches());
        if (held.isEmpty()) {
            return;
        }
        Map<String, BatchStatus> statuses = store.batches().statuses(held);
        for (String bid : held) {
            BatchStatus s = statuses.get(bid);
            boolean gone = s == null && !store.calls().exists(QueuePaths.batch(bid));
            if (gone || s != null && s.status() != null && !RUNNING.contains(s.state())) {
                store.holds().dropBatchHold(bid);
            }
        }
    }
}
