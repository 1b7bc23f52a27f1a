package org.cdlib.mrt.ingestqueue.queue.outcome;

import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.cdlib.mrt.ingestqueue.queue.batches.Batches;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.errors.StaleLockException;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A batch's cycle: claimed while in the consumer's state; a batch step says where the batch goes
 * ({@link BatchOutcome.Next}, with the error a refused submission reports, or
 * {@link BatchOutcome.Report}, with the status report), or that it stays for a while
 * ({@link BatchOutcome.Stay}). Steps turn what a depositor must hear about into a
 * move to reporting themselves; an exception is the queue's own trouble (ZooKeeper, a mail server
 * that is down), and so is a route that decided nothing: the batch stays, unlocked, and is tried
 * again after the consumer's retry delay, so a report is never lost. Whether the batch's jobs all
 * ended already is the store's to decide when the batch enters processing.
 */
public final class BatchOutcomes extends OutcomeStrategy<HeldBatch, BatchOutcome> {
    // the lines keep the logger name operators knew them by, from when the consumer applied them
    private static final Logger LOG = LoggerFactory.getLogger("org.cdlib.mrt.ingestqueue.camel.BatchConsumer");

    private final Batches batches;
    private final BatchState state;

    BatchOutcomes(Batches batches, Moves moves, BatchState state) {
        super(moves);
        this.batches = batches;
        this.state = state;
    }

    /** Locks each batch if nobody else has it, one after another, and keeps it if it is still in this state. */
    @Override
    public List<Supplier<Optional<HeldBatch>>> begin(List<String> bids, String worker) {
        return bids.stream().map(bid -> (Supplier<Optional<HeldBatch>>) () -> claim(bid, worker)).toList();
    }

    private Optional<HeldBatch> claim(String bid, String worker) {
        Optional<HeldBatch> lock = batches.tryLock(bid, worker);
        if (lock.isPresent() && lock.get().batch().state() != state) {
            moves.unlock(lock.get());
            return Optional.empty();
        }
        return lock;
    }

    @Override
    public Applied commit(HeldBatch lock, BatchOutcome outcome) {
        String bid = lock.bid();
        try {
            if (outcome instanceof BatchOutcome.Stay s) {
                moves.unlock(lock);
                LOG.debug("batch {}: stays in {}: {}", bid, state, s.reason());
                return Applied.retryIn(s.delayMs());
            }
            if (outcome instanceof BatchOutcome.Next n && n.to() != null) {
                moves.transition(lock, n.to(), n.change().reason(), null, n.change().errorMessage());
                return Applied.NOTHING;
            }
            if (outcome instanceof BatchOutcome.Report r) {
                moves.transition(lock, r.to(), r.reason(), r.report(), null);
                return Applied.NOTHING;
            }
            LOG.error(outcome == null ? "batch {}: the {} route ended without choosing the next state; it stays"
                    : "batch {}: the {} route ended with " + outcome + ", which a batch cannot; it stays", bid, state);
            moves.unlock(lock);
            return Applied.RETRY;
        } catch (RuntimeException e) {
            return queueTrouble(lock, e);
        }
    }

    @Override
    public Applied rollback(HeldBatch lock, Throwable failure, String message) {
        try {
            LOG.error("batch {}: stays in {}, tried again later: {}", lock.bid(), state, state.wire() + ": " + message);
            moves.unlock(lock);
            return Applied.RETRY;
        } catch (RuntimeException e) {
            return queueTrouble(lock, e);
        }
    }

    private Applied queueTrouble(HeldBatch lock, RuntimeException e) {
        if (e instanceof StaleLockException) {
            LOG.warn("batch {}: work in {} abandoned, another host will redo it: {}", lock.bid(), state,
                    e.getMessage());
            return Applied.NOTHING;
        }
        if (e instanceof QueueException) {
            LOG.error("batch {}: cannot move out of {}: {}", lock.bid(), state, e.getMessage());
            abort(lock);
            return Applied.RETRY;
        }
        throw e;
    }

    @Override
    public void abort(HeldBatch lock) {
        try {
            moves.unlock(lock);
        } catch (RuntimeException e) {
            LOG.warn("batch {}: cannot release its lock (it goes with the session): {}", lock.bid(), e.getMessage());
        }
    }
}
