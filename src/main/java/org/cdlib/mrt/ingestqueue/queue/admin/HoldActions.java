package org.cdlib.mrt.ingestqueue.queue.admin;

import java.util.List;
import java.util.Optional;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.IllegalTransitionException;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;

/**
 * The operator's holds on a collection or the whole queue; a hold already in place (or not) is refused,
 * nothing changed.
 */
public final class HoldActions {
    private final QueueStore store;
    private final JobActions jobs;
    private final BatchActions batches;

    HoldActions(QueueStore store, JobActions jobs, BatchActions batches) {
        this.store = store;
        this.jobs = jobs;
        this.batches = batches;
    }

    public void holdCollection(String profile, String by) {
        if (store.holds().isCollectionHeld(profile)) {
            throw new IllegalTransitionException("collection " + profile + " is already held; nothing changed",
                    List.of());
        }
        store.holds().holdCollection(profile, by);
    }

    public void releaseCollection(String profile, String by) {
        if (!store.holds().releaseCollection(profile)) {
            throw new IllegalTransitionException("collection " + profile + " is not held; nothing changed", List.of());
        }
    }

    /** Releases every held job and held batch of the collection; returns how many. */
    public int releaseCollectionJobs(String profile, String by) {
        if (store.holds().isCollectionHeld(profile)) {
            throw new IllegalTransitionException("collection " + profile + " is still held: its released jobs and "
                    + "batches would go straight back to held. Release the collection first, then its held jobs and "
                    + "batches", List.of());
        }
        int n = 0;
        for (String ref : store.jobs().refs(JobState.HELD)) {
            String jid = QueuePaths.jidOfRef(ref);
            Optional<Job> job = store.jobs().find(jid);
            if (job.isPresent() && profile.equals(job.get().configuration().profileName())) {
                jobs.releaseJob(jid, by);
                n++;
            }
        }
        for (String bid : store.batches().ids(BatchState.HELD)) {
            if (profile.equals(store.batches().load(bid).submission().profileName())) {
                batches.releaseBatch(bid, by);
                n++;
            }
        }
        return n;
    }

    public void holdQueue(String by) {
        if (store.holds().isQueueHeld()) {
            throw new IllegalTransitionException("the queue is already held; nothing changed", List.of());
        }
        store.holds().holdQueue(by);
    }

    public void releaseQueue(String by) {
        if (!store.holds().releaseQueue()) {
            throw new IllegalTransitionException("the queue is not held; nothing changed", List.of());
        }
    }
}
