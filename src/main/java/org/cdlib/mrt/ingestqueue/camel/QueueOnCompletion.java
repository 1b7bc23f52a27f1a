package org.cdlib.mrt.ingestqueue.camel;

import java.time.Duration;
import org.apache.camel.Exchange;
import org.apache.camel.spi.Synchronization;
import org.apache.camel.support.UnitOfWorkHelper;

/**
 * One claimed job or batch through its route. It goes on the exchange as the synchronization
 * that moves the item by the outcome once the exchange is done, as camel-file's on-completion
 * commits or rolls back a file: {@code onComplete} commits what the route chose,
 * {@code onFailure} decides from the exception whether the item fails, stays or was lost with
 * its lock. Synchronizations a route adds itself (an {@code onCompletion}) come after it, so
 * they see the item already moved.
 *
 * @param <L> the lock the item is held by
 */
final class QueueOnCompletion<L> implements Synchronization {
    private final QueueConsumer<L> consumer;
    private final String id;
    private final L lock;
    private final long started = System.nanoTime();
    private volatile boolean applied;
    private volatile boolean retryLater;

    QueueOnCompletion(QueueConsumer<L> consumer, String id, L lock) {
        this.consumer = consumer;
        this.id = id;
        this.lock = lock;
    }

    @Override
    public void onComplete(Exchange exchange) {
        apply(exchange, false);
    }

    @Override
    public void onFailure(Exchange exchange) {
        apply(exchange, true);
    }

    /** Runs the route on the item; its outcome is applied once, however the exchange ends. */
    void run() {
        Exchange exchange = consumer.createExchange(false);
        try {
            consumer.prepare(lock, exchange);
            exchange.getExchangeExtension().addOnCompletion(this);
            try {
                consumer.getProcessor().process(exchange);
            } catch (Exception e) {
                exchange.setException(e);
            }
            // the route's unit of work applied the outcome when the exchange was done; one that
            // never got that far left it on the exchange, and it is applied now
            UnitOfWorkHelper.doneSynchronizations(exchange, exchange.getExchangeExtension().handoverCompletions());
        } catch (RuntimeException e) {
            consumer.notMoved(id, lock, exchange, e);
        } finally {
            consumer.releaseExchange(exchange, false);
        }
    }

    /** Whether the item stayed where it was, for the consumer to take it again after its retry delay. */
    boolean retryLater() {
        return !applied || retryLater;
    }

    private void apply(Exchange exchange, boolean failed) {
        if (applied) {
            return;
        }
        // the route's own time, without the transition that follows it
        consumer.stepEnded(id, Duration.ofNanos(System.nanoTime() - started), failed);
        try {
            retryLater = consumer.applyOutcome(lock, exchange, failed);
        } catch (RuntimeException e) {
            // Camel would log and drop what a synchronization throws: the item would be forgotten
            consumer.notMoved(id, lock, exchange, e);
            retryLater = true;
        } finally {
            applied = true;
        }
    }

    @Override
    public String toString() {
        return "zkqueue " + consumer.name() + " outcome of " + id;
    }
}
