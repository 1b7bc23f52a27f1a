package org.cdlib.mrt.ingestqueue.camel;

import java.util.function.UnaryOperator;
import org.apache.camel.Exchange;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.outcome.JobOutcome;

/**
 * What a {@code zkqueue:job/<state>} consumer puts on an exchange, and how a step tells it
 * the outcome ({@link JobOutcome}, decided once). The body is the {@link Job}; the {@link HeldJob}
 * is on the exchange's one property.
 * <ul>
 * <li>The route ends normally: the job moves to its state's successor.</li>
 * <li>The route ends with an exception: the job moves to failed with the exception's message.</li>
 * <li>A step called {@link #stay}: the job stays in its state and its lock is released.</li>
 * <li>A step (the route's error handling) called {@link #fail}: the job moves to failed with that
 * message, though the route ended normally.</li>
 * <li>A step called {@link #moveTo}: the job moves there instead of its successor.</li>
 * </ul>
 * Steps may add a new priority or space estimate with {@link #change}; it is written by the
 * same transaction that moves the job. The consumer applies the outcome once the exchange is
 * done, after the route and before the route's own {@code onCompletion}.
 */
public final class JobExchange {

    private JobExchange() {
    }

    /** Puts a locked job on the exchange (the consumer does; a test calling a step directly too). */
    public static void put(Exchange exchange, HeldJob lock) {
        exchange.setProperty(Taken.PROPERTY, new Taken<HeldJob, JobOutcome>("job " + lock.jid(), lock));
    }

    public static Job job(Exchange exchange) {
        return lock(exchange).job();
    }

    public static HeldJob lock(Exchange exchange) {
        return taken(exchange).lock();
    }

    /** Whether the exchange carries a job (not a batch, not nothing). */
    public static boolean carriesJob(Exchange exchange) {
        Taken<?, ?> t = exchange.getProperty(Taken.PROPERTY, Taken.class);
        return t != null && t.lock() instanceof HeldJob;
    }

    /** Keep the job in its state (provisioning: not enough space yet), with the reason for the log. */
    public static void stay(Exchange exchange, String reason) {
        taken(exchange).decide(new JobOutcome.Stay(reason));
    }

    /**
     * The job fails with {@code message}, an expected failure (a depositor's missing file, a
     * service's refusal) that has been logged in one line: the consumer moves it to failed
     * without a stack trace.
     */
    public static void fail(Exchange exchange, String message) {
        taken(exchange).decide(new JobOutcome.Fail(message));
    }

    /** The route's error handling: the job fails with {@code message}, whatever a step decided before it threw. */
    static void failedBy(Exchange exchange, String message) {
        taken(exchange).overrule(new JobOutcome.Fail(message));
    }

    /**
     * Send the job somewhere other than its successor (pending: to held when its collection is
     * held). The transition table still decides whether that move is allowed.
     */
    public static void moveTo(Exchange exchange, JobState to, String reason) {
        Taken<HeldJob, JobOutcome> t = taken(exchange);
        Change c = t.change();
        Change moved = new Change(reason, c.priority(), c.spaceNeeded(), c.errorMessage(), c.admission());
        t.decide(new JobOutcome.Next(to, moved));
    }

    /** What the route decided; when nothing, the job moves on to its successor with what steps added. */
    public static JobOutcome outcome(Exchange exchange) {
        Taken<HeldJob, JobOutcome> t = taken(exchange);
        JobOutcome o = t.outcome();
        return o != null ? o : new JobOutcome.Next(null, t.change());
    }

    /** The failure a step decided, or null. */
    public static String failure(Exchange exchange) {
        return outcome(exchange) instanceof JobOutcome.Fail f ? f.message() : null;
    }

    /** Why the job stays, or null when it does not. */
    public static String stayReason(Exchange exchange) {
        return outcome(exchange) instanceof JobOutcome.Stay s ? s.reason() : null;
    }

    /** The state a step chose instead of the successor, or null. */
    public static JobState target(Exchange exchange) {
        return outcome(exchange) instanceof JobOutcome.Next n ? n.to() : null;
    }

    /** What the job's move on writes besides its state, as the steps so far made it. */
    public static Change change(Exchange exchange) {
        Taken<HeldJob, JobOutcome> t = taken(exchange);
        return t.outcome() instanceof JobOutcome.Next n ? n.change() : t.change();
    }

    public static void change(Exchange exchange, UnaryOperator<Change> edit) {
        taken(exchange).change(edit);
    }

    private static Taken<HeldJob, JobOutcome> taken(Exchange exchange) {
        return Taken.of(exchange, HeldJob.class, "job");
    }
}
