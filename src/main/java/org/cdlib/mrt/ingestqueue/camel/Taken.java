package org.cdlib.mrt.ingestqueue.camel;

import java.util.function.UnaryOperator;
import org.apache.camel.Exchange;
import org.cdlib.mrt.ingestqueue.queue.model.Change;

/**
 * The job or batch a consumer put on an exchange (its one property), and what its route
 * decided for it. A route decides once; the route's error handling alone may overrule what a
 * step decided before it threw.
 *
 * @param <L> the lock the item is held by
 * @param <O> what its route may decide for it ({@code JobOutcome} or {@code BatchOutcome})
 */
final class Taken<L, O> {
    static final String PROPERTY = "ingestqueue.taken";

    private final String what;
    private final L lock;
    private O outcome;
    /** What a job's move on writes besides its state; steps add to it as the route goes. */
    private Change change = Change.because("step succeeded");
    /** A batch's: this run created its first jobs, so the depositor's "queued" mail goes out. */
    private boolean jobsQueued;

    Taken(String what, L lock) {
        this.what = what;
        this.lock = lock;
    }

    /** The item on {@code exchange}, or a clear error when the route did not start from a consumer of this kind. */
    @SuppressWarnings("unchecked")
    static <L, O> Taken<L, O> of(Exchange exchange, Class<L> lockType, String kind) {
        Taken<?, ?> t = exchange.getProperty(PROPERTY, Taken.class);
        if (t == null || !lockType.isInstance(t.lock)) {
            throw new IllegalStateException("no " + kind + " on this exchange: the route must start from a zkqueue:"
                    + kind + " consumer");
        }
        return (Taken<L, O>) t;
    }

    L lock() {
        return lock;
    }

    synchronized O outcome() {
        return outcome;
    }

    synchronized void decide(O decided) {
        if (outcome != null) {
            throw new IllegalStateException(what + ": its route decided " + outcome + " and then " + decided
                    + "; a route decides once (a programming error in its steps)");
        }
        outcome = decided;
    }

    /** The route's error handling: what a step decided before the exception no longer holds. */
    synchronized void overrule(O decided) {
        outcome = decided;
    }

    synchronized Change change() {
        return change;
    }

    synchronized void change(UnaryOperator<Change> edit) {
        change = edit.apply(change);
    }

    synchronized boolean jobsQueued() {
        return jobsQueued;
    }

    synchronized void jobsQueued(boolean queued) {
        jobsQueued = queued;
    }
}
