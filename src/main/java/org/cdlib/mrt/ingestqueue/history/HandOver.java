package org.cdlib.mrt.ingestqueue.history;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.StatusReport;

/**
 * Finished work from ZooKeeper into history: a batch's jobs read in bounded chunks and written a
 * chunk per transaction, then the batch's row, the mark that history holds it whole. Written at
 * the batch's report (before it moves to completed or failed: Merritt's cleanup deletes a
 * completed batch at once) and checked again before any removal ({@link #keep}), which writes it
 * only when what history holds is not the batch as it is now (a batch deleted or reported again
 * since). A hand-over interrupted anywhere is written again whole by the next: every write replaces.
 */
public final class HandOver {
    /** Jobs read and written together: a thousand status reads at most in flight, a transaction of as many rows. */
    static final int CHUNK = 500;
    private final QueueStore store;
    private final HistoryStore history;

    public HandOver(QueueStore store, HistoryStore history) {
        this.store = store;
        this.history = history;
    }

    public HistoryStore history() {
        return history;
    }

    /**
     * At the report: the batch's jobs, then the batch as it ends ({@code ending}, {@code report}).
     * Throws {@link HistoryUnavailableException} when the database cannot take it: the batch is not
     * reported until it can.
     */
    public void atReport(Batch batch, BatchState ending, StatusReport report) {
        int[] ended = writeJobs(batch);
        Batch last = new Batch(batch.id(), batch.submission(), batch.status().moved(ending, null), report,
                batch.counts(), batch.statusVersion(), null, batch.ended(), batch.createdAt());
        history.putBatch(last, ended[0], ended[1]);
        history.status().handedOver(batch.id());
        forgetOpen(batch.id());
    }

    /** History holds the batch: the search index of open work lets it go (else its pass does, later). */
    private void forgetOpen(String bid) {
        try {
            history.open().forget(bid);
        } catch (HistoryUnavailableException e) {
            // the index's pass finds the batch finished and forgets it
        }
    }

    /**
     * A batch Merritt's reporter reports (its jobs made by Merritt's batch consumer), seen in
     * reporting: history takes it as it would end, unless it holds it so already (the batch is
     * looked at again every few minutes until Merritt's reporter moves it).
     */
    public void seenReporting(Batch batch, BatchState ending) {
        Optional<HistoryStore.Mark> mark = history.mark(batch.id());
        if (mark.isPresent() && mark.get().state().equals(ending.wire()) && mark.get().jobs() == batch.jobCount()) {
            return;
        }
        atReport(batch, ending, batch.statusReport());
    }

    /**
     * Before a removal: true when history holds the batch as it is now, written here when it held
     * another state or report of it (or none); false when the database could not be reached, and
     * the batch must stay.
     */
    public boolean keep(Batch batch) {
        try {
            Optional<HistoryStore.Mark> mark = history.mark(batch.id());
            int reports = batch.statusReport() == null ? 0 : batch.statusReport().reports();
            if (mark.isEmpty() || !mark.get().state().equals(batch.state().wire()) || mark.get().reports() != reports) {
                int[] ended = writeJobs(batch);
                history.putBatch(batch, ended[0], ended[1]);
            }
            history.status().handedOver(batch.id());
            forgetOpen(batch.id());
            return true;
        } catch (HistoryUnavailableException e) {
            history.status().waiting(batch.id());
            return false;
        }
    }

    /** Every job of the batch into history; how many completed and failed. */
    private int[] writeJobs(Batch batch) {
        List<String> ids = new ArrayList<>(batch.jobIds());
        ids.addAll(store.batches().othersJobs(batch));
        int completed = 0;
        int failed = 0;
        for (int from = 0; from < ids.size(); from += CHUNK) {
            // a job gone (deleted one by one) or damaged is left out; the rest of the batch goes on
            List<Job> jobs = store.jobs().load(ids.subList(from, Math.min(ids.size(), from + CHUNK)));
            // a completed job's effects are in its status (compacted); the others' are one more node each
            List<String> uncompacted = jobs.stream().filter(j -> j.status().summary() == null).map(Job::id).toList();
            history.putJobs(jobs, uncompacted.isEmpty() ? Map.of() : store.jobs().effects(uncompacted));
            for (Job j : jobs) {
                completed += j.state() == JobState.COMPLETED ? 1 : 0;
                failed += j.state() == JobState.FAILED ? 1 : 0;
            }
        }
        return new int[] {completed, failed};
    }
}
