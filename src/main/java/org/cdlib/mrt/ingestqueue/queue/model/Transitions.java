package org.cdlib.mrt.ingestqueue.queue.model;

import static org.cdlib.mrt.ingestqueue.queue.model.JobState.*;
import static org.cdlib.mrt.ingestqueue.queue.model.Transition.By.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Every allowed job and batch transition of the design, in one table each. Anything not in
 * a table is refused with {@link IllegalTransitionException} before anything is written.
 */
public final class Transitions {

    public static final List<Transition<JobState>> JOB = jobTable();
    public static final List<Transition<BatchState>> BATCH = batchTable();

    private Transitions() {
    }

    private static List<Transition<JobState>> jobTable() {
        List<Transition<JobState>> t = new ArrayList<>();
        for (JobState s : JobState.values()) {
            if (s.isWorking()) {
                t.add(new Transition<>(s, s.successor(), WORKER, "step succeeded"));
                t.add(new Transition<>(s, FAILED, WORKER, "step failed"));
                t.add(new Transition<>(s, HELD, ADMIN, "hold"));
                t.add(new Transition<>(HELD, s, ADMIN, "release"));
                // Merritt's Admin Tool "Fail" (issue 42): forced from any working state, a worker's hold broken
                t.add(new Transition<>(s, FAILED, ADMIN, "fail"));
            }
        }
        t.add(new Transition<>(PENDING, HELD, WORKER, "collection or queue hold"));
        // issue 45: a hold on its batch or collection stops a waiting job when a worker would take it, and an active
        // one at the end of its step (held, to resume at its next state)
        for (JobState s : JobState.values()) {
            if (s.isWorking() && s != PENDING) {
                t.add(new Transition<>(s, HELD, WORKER, "batch or collection hold"));
            }
        }
        // mrt-zk's states.yml: a failed job may be requeued to any
        // step (its Admin Tool picks the one after the last success)
        for (JobState to :
                List.of(PENDING, ESTIMATING, PROVISIONING, DOWNLOADING, PROCESSING, STORING, RECORDING, NOTIFY)) {
            t.add(new Transition<>(FAILED, to, ADMIN, "requeue"));
        }
        t.add(new Transition<>(FAILED, DELETED, ADMIN, "delete"));
        t.add(new Transition<>(HELD, DELETED, ADMIN, "delete"));
        t.add(new Transition<>(COMPLETED, DELETED, AUTOMATIC, "cleanup"));
        return List.copyOf(t);
    }

    private static List<Transition<BatchState>> batchTable() {
        BatchState pending = BatchState.PENDING, held = BatchState.HELD,
                processing = BatchState.PROCESSING, reporting = BatchState.REPORTING,
                completed = BatchState.COMPLETED, failed = BatchState.FAILED,
                updateReporting = BatchState.UPDATE_REPORTING, deleted = BatchState.DELETED;
        return List.of(
                new Transition<>(pending, held, WORKER, "collection or queue hold"),
                new Transition<>(pending, processing, WORKER, "jobs created"),
                new Transition<>(pending, reporting, WORKER, "no jobs to run"),
                new Transition<>(pending, held, ADMIN, "hold"),
                new Transition<>(held, pending, ADMIN, "release"),
                new Transition<>(processing, reporting, AUTOMATIC, "last job ended"),
                new Transition<>(reporting, completed, WORKER, "reported, nothing failed"),
                new Transition<>(reporting, failed, WORKER, "reported, jobs failed"),
                new Transition<>(failed, updateReporting, ADMIN, "update report"),
                new Transition<>(updateReporting, completed, WORKER, "reported, nothing failed"),
                new Transition<>(updateReporting, failed, WORKER, "reported, jobs failed"),
                new Transition<>(failed, deleted, ADMIN, "delete"),
                new Transition<>(held, deleted, ADMIN, "delete"),
                new Transition<>(completed, deleted, AUTOMATIC, "cleanup"));
    }

    public static Optional<Transition<JobState>> job(JobState from, JobState to) {
        return find(JOB, from, to);
    }

    public static Optional<Transition<BatchState>> batch(BatchState from, BatchState to) {
        return find(BATCH, from, to);
    }

    /** The transition, or an {@link IllegalTransitionException} naming what is allowed. */
    public static Transition<JobState> requireJob(String jid, JobState from, JobState to) {
        return job(from, to).orElseThrow(() -> new IllegalTransitionException(
                "job " + jid, from, to, allowedFrom(JOB, from)));
    }

    public static Transition<BatchState> requireBatch(String bid, BatchState from, BatchState to) {
        return batch(from, to).orElseThrow(() -> new IllegalTransitionException(
                "batch " + bid, from, to, allowedFrom(BATCH, from)));
    }

    /** The transition as {@code by} may make it; refused, naming who may, when the table gives it to another actor. */
    public static Transition<JobState> requireJob(String jid, JobState from, JobState to, Transition.By by) {
        requireJob(jid, from, to);
        return requireBy(JOB, "job " + jid, from, to, by);
    }

    public static Transition<BatchState> requireBatch(String bid, BatchState from, BatchState to, Transition.By by) {
        requireBatch(bid, from, to);
        return requireBy(BATCH, "batch " + bid, from, to, by);
    }

    private static <S extends Enum<S>> Transition<S> requireBy(List<Transition<S>> table, String what, S from, S to,
                                                              Transition.By by) {
        List<Transition<S>> rows = table.stream().filter(t -> t.from() == from && t.to() == to).toList();
        return rows.stream()
                .filter(t -> t.by() == by)
                .findFirst()
                .orElseThrow(() -> new IllegalTransitionException(
                        what + ": " + from + " -> " + to + " is made by "
                                + rows.stream()
                                        .map(t -> actor(t.by()) + " (" + t.name() + ")")
                                        .distinct()
                                        .collect(Collectors.joining(" or "))
                                + ", not by " + actor(by),
                        table.stream()
                                .filter(t -> t.from() == from && t.by() == by)
                                .toList()));
    }

    public static String actor(Transition.By by) {
        return switch (by) {
            case WORKER -> "a worker";
            case ADMIN -> "an operator";
            case AUTOMATIC -> "the queue itself";
        };
    }

    public static <S extends Enum<S>> List<Transition<S>> allowedFrom(List<Transition<S>> table, S from) {
        return table.stream().filter(t -> t.from() == from).toList();
    }

    private static <S extends Enum<S>> Optional<Transition<S>> find(List<Transition<S>> table, S from, S to) {
        return table.stream().filter(t -> t.from() == from && t.to() == to).findFirst();
    }
}
