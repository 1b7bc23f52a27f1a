package org.cdlib.mrt.ingestqueue.camel;

import java.time.Duration;
import org.apache.camel.Exchange;
import org.apache.camel.spi.Synchronization;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves a claimed job or batch by the outcome of its exchange once the exchange is done, as
 * camel-file's on-completion commits or rolls back a file: {@code onComplete} commits what the
 * route chose, {@code onFailure} decides from the exception whether the item fails, stays or was
 * lost with its lock. Synchronizations a route adds itself (an {@code onCompletion}) come after
 * it, so they see the item already moved.
 *
 * @param <L> the lock the item is held by
 */
final class QueueOnCompletion<L> implements Synchronization {
    private static final Logger LOG = LoggerFactory.getLogger(QueueOnCompletion.class);

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

    /** Whether the outcome has been applied (it is, once, however the exchange ended). */
    boolean applied() {
        return applied;
    }

    /** Whether the item stayed where it was for the consumer to take it again after its retry delay. */
    boolean retryLater() {
        return retryLater;
    }

    private void apply(Exchange exchange, boolean failed) {
        if (applied) {
            return;
        }
        // the route's own time, without the transition that follows it
        consumer.stepEnded(Duration.ofNanos(System.nanoTime() - started), failed);
        try {
            retryLater = consumer.applyOutcome(lock, exchange, failed);
        } catch (RuntimeException e) {
            // Camel would log and drop what a synchronization throws: the item would be forgotten
            LOG.error("zkqueue {}: {} not moved: {}", consumer.name(), id, e.toString());
            consumer.outcomeFailed(id, lock, exchange, e);
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
