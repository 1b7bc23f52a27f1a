package org.cdlib.mrt.ingestqueue.camel;

import java.util.function.UnaryOperator;
import org.apache.camel.Exchange;
import org.cdlib.mrt.ingestqueue.queue.Change;
import org.cdlib.mrt.ingestqueue.queue.Job;
import org.cdlib.mrt.ingestqueue.queue.JobLock;
import org.cdlib.mrt.ingestqueue.queue.JobState;

/**
 * What a {@code zkqueue:job/<state>} consumer puts on an exchange, and how a step tells it
 * the outcome. The body is the {@link Job}; the {@link JobLock} is a property.
 * <ul>
 * <li>The route ends normally: the job moves to its state's successor.</li>
 * <li>The route ends with an exception: the job moves to failed with the exception's message.</li>
 * <li>A step called {@link #stay}: the job stays in its state and its lock is released.</li>
 * <li>A step (the route's error handling) called {@link #fail}: the job moves to failed with that
 * message, though the route ended normally.</li>
 * </ul>
 * A step may add a new priority or space estimate with {@link #change}; it is written by the
 * same transaction that moves the job. The consumer applies the outcome once the exchange is
 * done, after the route and before the route's own {@code onCompletion}.
 */
public final class JobExchange {
    public static final String LOCK = "ingestqueue.jobLock";
    public static final String STAY = "ingestqueue.stay";
    public static final String CHANGE = "ingestqueue.change";
    public static final String TARGET = "ingestqueue.target";
    public static final String FAILURE = "ingestqueue.failure";

    private JobExchange() {
    }

    public static Job job(Exchange exchange) {
        return lock(exchange).job();
    }

    public static JobLock lock(Exchange exchange) {
        JobLock lock = exchange.getProperty(LOCK, JobLock.class);
        if (lock == null) {
            throw new IllegalStateException("no job on this exchange: the route must start from a zkqueue:job consumer");
        }
        return lock;
    }

    /** Keep the job in its state (provisioning: not enough space yet), with the reason for the log. */
    public static void stay(Exchange exchange, String reason) {
        exchange.setProperty(STAY, reason);
    }

    /**
     * The job fails with {@code message}, an expected failure (a depositor's missing file, a
     * service's refusal) that the route's error handling has already logged in one line: the
     * consumer moves it to failed without a stack trace.
     */
    public static void fail(Exchange exchange, String message) {
        exchange.setProperty(FAILURE, message);
    }

    public static String failure(Exchange exchange) {
        return exchange.getProperty(FAILURE, String.class);
    }

    public static String stayReason(Exchange exchange) {
        return exchange.getProperty(STAY, String.class);
    }

    /**
     * Send the job somewhere other than its successor (pending: to held when its collection is
     * held). The transition table still decides whether that move is allowed.
     */
    public static void moveTo(Exchange exchange, JobState to, String reason) {
        exchange.setProperty(TARGET, to);
        change(exchange, c -> new Change(reason, c.priority(), c.spaceNeeded(), c.errorMessage(), c.admission()));
    }

    public static JobState target(Exchange exchange) {
        return exchange.getProperty(TARGET, JobState.class);
    }

    public static Change change(Exchange exchange) {
        Change c = exchange.getProperty(CHANGE, Change.class);
        return c != null ? c : Change.because("step succeeded");
    }

    public static void change(Exchange exchange, UnaryOperator<Change> edit) {
        exchange.setProperty(CHANGE, edit.apply(change(exchange)));
    }
}
