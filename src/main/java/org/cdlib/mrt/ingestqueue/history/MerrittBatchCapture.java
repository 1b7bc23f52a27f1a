package org.cdlib.mrt.ingestqueue.history;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionEvent;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * History for batches Merritt's batch consumer made and Merritt's reporter reports: they never
 * reach our reporting, and Merritt's cleanup deletes them as soon as its reporter completes them.
 * So when one of our workers ends the last open job of such a batch, the batch and its jobs are
 * handed over then, off the worker's thread. Whether a batch is Merritt's is read once and
 * remembered (a bounded map); a batch of ours costs nothing more.
 */
public final class MerrittBatchCapture implements Consumer<TransitionEvent>, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MerrittBatchCapture.class);
    /** Batches whose kind is remembered, at most. */
    static final int REMEMBERED = 10_000;
    private final QueueStore store;
    private final HandOver handOver;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "history-merritt-batches");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, Boolean> merritts = Collections.synchronizedMap(new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > REMEMBERED;
        }
    });

    public MerrittBatchCapture(QueueStore store, HandOver handOver) {
        this.store = store;
        this.handOver = handOver;
    }

    @Override
    public void accept(TransitionEvent e) {
        if (!TransitionEvent.JOB.equals(e.kind()) || e.batchId() == null
                || !(JobState.COMPLETED.wire().equals(e.to()) || JobState.FAILED.wire().equals(e.to()))
                || Boolean.FALSE.equals(merritts.get(e.batchId()))) {
            return;
        }
        worker.execute(() -> capture(e.batchId()));
    }

    private void capture(String bid) {
        try {
            Batch batch = store.batches().load(bid);
            boolean merritt = batch.reportedByMerritt();
            merritts.put(bid, merritt);
            if (!merritt || batch.count(BatchRef.PROCESSING) > 0) {
                return;
            }
            handOver.seenReporting(batch, batch.count(BatchRef.FAILED) == 0 ? BatchState.COMPLETED : BatchState.FAILED);
            LOG.info("batch {}: Merritt's reporter reports it; its {} job(s) are in history", bid, batch.jobCount());
        } catch (QueueException | HistoryUnavailableException ex) {
            // gone already, damaged, or history down: the cleanup's hand-over is the rest of the net
            LOG.debug("batch {}: not captured for history: {}", bid, ex.getMessage());
        }
    }

    @Override
    public void close() {
        worker.shutdownNow();
    }
}
