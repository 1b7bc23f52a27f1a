package org.cdlib.mrt.ingestqueue.camel;

import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * What a consumer's parts may ask of it, as small callbacks rather than the consumer itself.
 *
 * @param running     the consumer runs (not stopping)
 * @param suspended   the consumer is suspended or suspending
 * @param mayTakeWork work may be taken now without asking ZooKeeper (running, not suspended, connected, queue not held)
 * @param run         runs a claimed or handed-over item (candidate, lock) through its route on the calling worker
 * @param abort       lets go of an item unchanged (its strategy's abort); never throws
 * @param wake        wakes the consumer's dispatcher
 * @param <L>         the lock type of an item
 */
record ConsumerCalls<L>(BooleanSupplier running, BooleanSupplier suspended, BooleanSupplier mayTakeWork,
                        BiConsumer<String, L> run, Consumer<L> abort, Runnable wake) {
}
