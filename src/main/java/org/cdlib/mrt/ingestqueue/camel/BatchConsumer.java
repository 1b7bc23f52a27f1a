package org.cdlib.mrt.ingestqueue.camel;

import java.util.Optional;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.curator.framework.api.CuratorWatcher;
import org.cdlib.mrt.ingestqueue.queue.BatchLock;
import org.cdlib.mrt.ingestqueue.queue.BatchState;
import org.cdlib.mrt.ingestqueue.queue.QueueException;
import org.cdlib.mrt.ingestqueue.queue.StaleLockException;
import org.cdlib.mrt.ingestqueue.queue.StateView;
import org.cdlib.mrt.ingestqueue.queue.StatusReport;
import org.cdlib.mrt.ingestqueue.queue.TransitionEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code zkqueue:batch/<state>}: watches the state's index folder {@code /batches/states/<state>}
 * (an entry moves with every batch status change, in the same transaction), so it never reads
 * batches of other states. The route says where the batch goes with
 * {@link BatchExchange#next}. Steps turn what a depositor must hear about (a corrupt manifest)
 * into a move to reporting themselves; an exception means the queue's own trouble (ZooKeeper,
 * a mail server that is down), so the batch stays and is tried again after {@code retryDelay}:
 * a report is never lost.
 */
final class BatchConsumer extends QueueConsumer<BatchLock> {
    private static final Logger LOG = LoggerFactory.getLogger(BatchConsumer.class);

    private final BatchState state;

    BatchConsumer(ZkQueueEndpoint endpoint, Processor processor) {
        super(endpoint, processor);
        this.state = endpoint.queue().batchState();
    }

    @Override
    protected StateView openView() {
        return store.batchStateView(state);
    }

    @Override
    protected Optional<BatchLock> claim(String bid, String worker) {
        Optional<BatchLock> lock = store.batches().tryLock(bid, worker);
        if (lock.isPresent() && lock.get().batch().state() != state) {
            store.unlock(lock.get());
            return Optional.empty();
        }
        return lock;
    }

    @Override
    protected boolean watchLock(String bid, CuratorWatcher watcher) {
        return store.watchBatchLock(bid, watcher);
    }

    @Override
    protected boolean concerns(TransitionEvent event) {
        return TransitionEvent.BATCH.equals(event.kind()) && state.wire().equals(event.to());
    }

    @Override
    protected void prepare(BatchLock lock, Exchange exchange) {
        exchange.setProperty(BatchExchange.LOCK, lock);
        exchange.getIn().setBody(lock.batch());
        exchange.getIn().setHeader("batchId", lock.bid());
    }

    @Override
    protected boolean applyOutcome(BatchLock lock, Exchange exchange, boolean failed) {
        String bid = lock.bid();
        try {
            if (failed) {
                String message = state.wire() + ": " + messageOf(exchange.getException());
                LOG.error("batch {}: stays in {}, tried again later: {}", bid, state, message);
                store.unlock(lock);
                return true;
            }
            String stay = exchange.getProperty(BatchExchange.STAY, String.class);
            BatchState next = exchange.getProperty(BatchExchange.NEXT, BatchState.class);
            if (stay != null && next == null) {
                store.unlock(lock);
                LOG.debug("batch {}: stays in {}: {}", bid, state, stay);
                retryIn(bid, exchange.getProperty(BatchExchange.STAY_DELAY, 1000L, Long.class));
                return false;
            }
            if (next == null) {
                LOG.error("batch {}: the {} route ended without choosing the next state; it stays", bid, state);
                store.unlock(lock);
                return true;
            }
            store.transition(lock, next, exchange.getProperty(BatchExchange.REASON, String.class),
                    exchange.getProperty(BatchExchange.REPORT, StatusReport.class),
                    exchange.getProperty(BatchExchange.ERROR, String.class));
            if (next == BatchState.PROCESSING) {
                // its jobs may all have ended before the batch left pending
                store.batches().startReportingIfDone(bid);
            }
            return false;
        } catch (StaleLockException e) {
            LOG.warn("batch {}: work in {} abandoned, another host will redo it: {}", bid, state, e.getMessage());
            return false;
        } catch (QueueException e) {
            LOG.error("batch {}: cannot move out of {}: {}", bid, state, e.getMessage());
            release(lock);
            return true;
        }
    }

    @Override
    protected void release(BatchLock lock) {
        try {
            store.unlock(lock);
        } catch (RuntimeException e) {
            LOG.warn("batch {}: cannot release its lock (it goes with the session): {}", lock.bid(), e.getMessage());
        }
    }
}
