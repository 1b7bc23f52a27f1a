package org.cdlib.mrt.ingestqueue.queue.model;

/**
 * What a route decided for the job or batch it was given, applied by an {@link OutcomeStrategy}
 * once the route is done. A route decides once: a second decision is a programming error.
 *
 * @param <S> the state type ({@link JobState} or {@link BatchState})
 */
public sealed interface Outcome<S extends Enum<S>> {

    /** Moves on to {@code to} (null: a job state's successor), writing {@code change} in the same transaction. */
    record Next<S extends Enum<S>>(S to, Change change) implements Outcome<S> {
    }

    /**
     * Stays where it is, unlocked, and is taken again after {@code delayMs} (null: the
     * consumer's retry delay). Not an error: {@code reason} is for the log.
     */
    record Stay<S extends Enum<S>>(String reason, Long delayMs) implements Outcome<S> {
    }

    /** A job moves to failed with {@code message}, an expected failure already told in one line. */
    record Fail<S extends Enum<S>>(String message) implements Outcome<S> {
    }

    /** A batch moves to {@code to} with its status report, written by the same transaction. */
    record Report<S extends Enum<S>>(S to, String reason, StatusReport report) implements Outcome<S> {
    }
}
