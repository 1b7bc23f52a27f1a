package org.cdlib.mrt.ingestqueue.camel;

import java.util.function.BiConsumer;
import org.apache.camel.Exchange;
import org.apache.camel.spi.Synchronization;

/**
 * The synchronization that applies a claimed item's outcome once its exchange is done, as
 * camel-file's on-completion commits or rolls back a file: {@code onComplete} with the route's
 * decision, {@code onFailure} with its exception. Synchronizations a route adds itself (an
 * {@code onCompletion}) come after it, so they see the item already moved.
 */
final class QueueOnCompletion implements Synchronization {
    private final String description;
    private final BiConsumer<Exchange, Boolean> apply;
    private volatile boolean applied;

    /** @param apply applies the outcome: the exchange, and whether it failed; called at most once */
    QueueOnCompletion(String description, BiConsumer<Exchange, Boolean> apply) {
        this.description = description;
        this.apply = apply;
    }

    @Override
    public void onComplete(Exchange exchange) {
        apply(exchange, false);
    }

    @Override
    public void onFailure(Exchange exchange) {
        apply(exchange, true);
    }

    /** Whether the outcome was applied (a route that never got that far left it on the exchange). */
    boolean applied() {
        return applied;
    }

    private synchronized void apply(Exchange exchange, boolean failed) {
        if (!applied) {
            applied = true;
            apply.accept(exchange, failed);
        }
    }

    @Override
    public String toString() {
        return description;
    }
}
