package org.cdlib.mrt.ingestqueue.api.reads;

import java.util.Optional;
import org.cdlib.mrt.ingestqueue.history.HistoryStore;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.errors.NotFoundException;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.Job;

/**
 * A batch or job by its id, for as long as history keeps it: from ZooKeeper while the queue holds
 * it, else from history (issue 44), the same record either way, so a reader does not see where it
 * came from. A missing id is the queue's {@link NotFoundException} ("no batch …"), word for word;
 * history unreachable is a {@code HistoryUnavailableException} (503: the id may be finished work
 * kept there). Without a history ({@code null}, a test binding no hand-over) it reads ZooKeeper only.
 */
public final class QueueOrHistory {
    private final QueueStore store;
    private final HistoryStore history;

    /** {@code finished}: read from history, ZooKeeper no longer holding it (its open jobs are none). */
    public record Found<T>(T item, boolean finished) {
    }

    public QueueOrHistory(QueueStore store, HistoryStore history) {
        this.store = store;
        this.history = history;
    }

    /** Null when the service keeps no history. */
    public HistoryStore history() {
        return history;
    }

    public Found<Batch> batch(String bid) {
        try {
            return new Found<>(store.batches().load(bid), false);
        } catch (NotFoundException gone) {
            return new Found<>(fromHistory(gone, history == null ? Optional.empty() : history.batch(bid)), true);
        }
    }

    public Found<Job> job(String jid) {
        try {
            return new Found<>(store.jobs().load(jid), false);
        } catch (NotFoundException gone) {
            return new Found<>(fromHistory(gone, history == null ? Optional.empty() : history.job(jid)), true);
        }
    }

    /** The batch's submitter, wherever it is; empty for a batch neither holds (a missing one: nothing to own). */
    public Optional<String> submitter(String bid) {
        try {
            Batch b = batch(bid).item();
            return Optional.of(b.submission() == null || b.submission().submitter() == null ? ""
                    : b.submission().submitter());
        } catch (NotFoundException missing) {
            return Optional.empty();
        }
    }

    private static <T> T fromHistory(NotFoundException gone, Optional<T> kept) {
        return kept.orElseThrow(() -> gone);
    }
}
