package org.cdlib.mrt.ingestqueue.camel;

import java.util.function.BooleanSupplier;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.curator.framework.api.CuratorWatcher;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionEvent;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.outcome.BatchOutcomes;
import org.cdlib.mrt.ingestqueue.queue.outcome.OutcomeStrategy;
import org.cdlib.mrt.ingestqueue.queue.zk.StateView;

/**
 * {@code zkqueue:batch/<state>}: watches the state's index folder {@code /batches/states/<state>}
 * (an entry moves with every batch status change, in the same transaction), so it never reads
 * batches of other states. The route says where the batch goes with {@link BatchExchange#next};
 * the batches' {@link OutcomeStrategy} applies it, and leaves the batch to be tried again after
 * {@code retryDelay} when the route threw or decided nothing: a report is never lost.
 */
final class BatchConsumer extends QueueConsumer<HeldBatch, BatchOutcomes> {

    private final BatchState state;

    BatchConsumer(ZkQueueEndpoint endpoint, Processor processor) {
        super(endpoint, processor);
        this.state = endpoint.queue().batchState();
    }

    @Override
    protected BatchOutcomes strategy(BooleanSupplier handingBack) {
        return OutcomeStrategy.batches(store.batches(), store.moves(), endpoint.queue().batchState());
    }

    @Override
    protected StateView openView() {
        return store.batchStateView(state);
    }

    @Override
    public boolean watchLock(String bid, CuratorWatcher watcher) {
        return store.watchBatchLock(bid, watcher);
    }

    @Override
    public boolean concerns(TransitionEvent event) {
        return TransitionEvent.BATCH.equals(event.kind()) && state.wire().equals(event.to());
    }

    @Override
    protected void prepare(HeldBatch lock, Exchange exchange) {
        BatchExchange.put(exchange, lock);
        exchange.getIn().setBody(lock.batch());
        exchange.getIn().setHeader("batchId", lock.bid());
    }

    @Override
    protected OutcomeStrategy.Applied commit(HeldBatch lock, Exchange exchange) {
        return strategy.commit(lock, BatchExchange.outcome(exchange));
    }
}
