package org.cdlib.mrt.ingestqueue.queue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an operator may do to jobs, batches, collections and the queue, with the design's rules.
 * Every action checks the state machine before writing; a refusal writes nothing and says why
 * and what is allowed. An action on a job or batch a worker holds is refused naming the worker.
 */
public final class AdminActions {
    private static final Logger LOG = LoggerFactory.getLogger(AdminActions.class);
    private final QueueStore store;
    private final Clock clock;

    public AdminActions(QueueStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    /** Deleting a job of a batch still being worked on needs an explicit confirmation. */
    public static final class ConfirmRequiredException extends QueueException {
        public ConfirmRequiredException(String message) {
            super(message);
        }
    }

    public record CleanupResult(int batches, int jobs) {
    }

    // ------------------------------------------------------------------ jobs

    public Job holdJob(String jid, String by) {
        return moveJob(jid, null, s -> JobState.HELD, "held by " + by);
    }

    public Job releaseJob(String jid, String by) {
        return moveJob(jid, JobState.HELD, s -> JobState.resumeAfter(s.lastSuccessful()), "released by " + by);
    }

    public Job requeueJob(String jid, String by) {
        return moveJob(jid, JobState.FAILED, s -> JobState.resumeAfter(s.lastSuccessful()), "requeued by " + by);
    }

    public void deleteJob(String jid, boolean confirm, String by) {
        JobLock lock = lockJob(jid);
        try {
            Job job = lock.job();
            Transitions.requireJob(jid, job.state(), JobState.DELETED);
            BatchState batch = store.batchStatuses(List.of(job.batchId())).get(job.batchId()).state();
            if (!confirm && batch != BatchState.COMPLETED && batch != BatchState.FAILED) {
                throw new ConfirmRequiredException("job " + jid + " belongs to batch " + job.batchId() + ", which is " + batch
                        + "; its report will not mention the job. Delete with confirm to go ahead.");
            }
            store.deleteJobNodes(lock, "deleted by " + by);
        } catch (RuntimeException e) {
            unlockQuietly(lock);
            throw e;
        }
    }

    /** Moves a job an operator names; {@code from} null means any state the table allows. */
    private Job moveJob(String jid, JobState from, java.util.function.Function<JobStatus, JobState> target, String reason) {
        JobLock lock = lockJob(jid);
        try {
            Job job = lock.job();
            if (from != null && job.state() != from) {
                throw notIn("job " + jid, job.state(), from, Transitions.allowedFrom(Transitions.JOB, job.state()));
            }
            return store.move(lock, target.apply(job.status()), Change.because(reason), Transition.By.ADMIN);
        } catch (RuntimeException e) {
            unlockQuietly(lock);
            throw e;
        }
    }

    private JobLock lockJob(String jid) {
        Optional<JobLock> lock = store.tryLockJob(jid, "admin");
        if (lock.isPresent()) {
            return lock.get();
        }
        Job job = store.findJob(jid).orElseThrow(() -> new NotFoundException("no job " + jid));
        throw new LockedException("job " + jid + " (" + job.state() + ") is being worked on by "
                + (job.lockOwner() == null ? "another worker" : job.lockOwner()) + "; try again when it has moved");
    }

    // ------------------------------------------------------------------ batches

    public Batch holdBatch(String bid, String by) {
        return moveBatch(bid, BatchState.HELD, "held by " + by);
    }

    public Batch releaseBatch(String bid, String by) {
        BatchLock lock = lockBatch(bid);
        if (lock.batch().state() != BatchState.HELD) {
            store.unlock(lock);
            throw notIn("batch " + bid, lock.batch().state(), BatchState.HELD,
                    Transitions.allowedFrom(Transitions.BATCH, lock.batch().state()));
        }
        return move(lock, BatchState.PENDING, "released by " + by);
    }

    public Batch updateReporting(String bid, String by) {
        BatchLock lock = lockBatch(bid);
        List<String> open = lock.batch().jobs(BatchRef.PROCESSING);
        if (lock.batch().state() == BatchState.FAILED && !open.isEmpty()) {
            store.unlock(lock);
            throw new IllegalTransitionException("batch " + bid + " still has jobs in progress (" + String.join(", ", open)
                    + "); update the report when they have ended", List.of());
        }
        return move(lock, BatchState.UPDATE_REPORTING, "update report asked by " + by);
    }

    /** A failed or held batch and every job of it. Resumable: cleanup finishes an interrupted deletion. */
    public void deleteBatch(String bid, String by) {
        BatchLock lock = lockBatch(bid);
        Batch batch = lock.batch();
        try {
            Transitions.requireBatch(bid, batch.state(), BatchState.DELETED);
            List<String> open = batch.jobs(BatchRef.PROCESSING);
            for (Job j : store.loadJobs(open)) {
                if (j.state() != JobState.HELD) {
                    throw new IllegalTransitionException("batch " + bid + " still has job " + j.id() + " in " + j.state()
                            + "; hold or let it end first", Transitions.allowedFrom(Transitions.BATCH, batch.state()));
                }
            }
            store.moveBatch(lock, BatchState.DELETED, "deleted by " + by, null, null, Transition.By.ADMIN, false);
        } catch (RuntimeException e) {
            unlockQuietly(lock);
            throw e;
        }
        finishDeletion(bid, "deleted by " + by);
    }

    private Batch moveBatch(String bid, BatchState to, String reason) {
        return move(lockBatch(bid), to, reason);
    }

    private Batch move(BatchLock lock, BatchState to, String reason) {
        try {
            return store.moveBatch(lock, to, reason, null, null, Transition.By.ADMIN, true);
        } catch (RuntimeException e) {
            unlockQuietly(lock);
            throw e;
        }
    }

    private BatchLock lockBatch(String bid) {
        Optional<BatchLock> lock = store.tryLockBatch(bid, "admin");
        if (lock.isPresent()) {
            return lock.get();
        }
        Batch batch = store.loadBatch(bid); // NotFoundException when there is none
        throw new LockedException("batch " + bid + " (" + batch.state() + ") is being worked on by "
                + (batch.lockOwner() == null ? "another worker" : batch.lockOwner()) + "; try again when it has moved");
    }

    /** Deletes every job of the batch (each in its own transaction), then the batch's nodes. */
    private int finishDeletion(String bid, String reason) {
        int jobs = 0;
        Batch batch = store.loadBatch(bid);
        for (BatchRef ref : BatchRef.values()) {
            for (String jid : batch.jobs(ref)) {
                Optional<JobLock> lock = store.tryLockJob(jid, "admin");
                if (lock.isEmpty()) {
                    if (store.findJob(jid).isPresent()) {
                        throw new LockedException("batch " + bid + ": job " + jid + " is locked; deletion resumes at the next cleanup");
                    }
                    continue;
                }
                store.deleteJobNodes(lock.get(), reason);
                jobs++;
            }
        }
        store.deleteBatchNodes(bid);
        LOG.info("batch {}: removed with {} job(s): {}", bid, jobs, reason);
        return jobs;
    }

    // ------------------------------------------------------------------ collections and queue

    public void holdCollection(String profile, String by) {
        store.holdCollection(profile, by);
    }

    public void releaseCollection(String profile, String by) {
        if (!store.releaseCollection(profile)) {
            throw new NotFoundException("collection " + profile + " is not held");
        }
    }

    /** Releases every held job and held batch of the collection; returns how many. */
    public int releaseCollectionJobs(String profile, String by) {
        int n = 0;
        for (String ref : store.jobRefs(JobState.HELD)) {
            String jid = QueuePaths.jidOfRef(ref);
            Optional<Job> job = store.findJob(jid);
            if (job.isPresent() && profile.equals(job.get().configuration().profileName())) {
                releaseJob(jid, by);
                n++;
            }
        }
        for (var e : store.batchStatuses(store.batchIds()).entrySet()) {
            if (e.getValue().state() == BatchState.HELD
                    && profile.equals(store.loadBatch(e.getKey()).submission().profileName())) {
                releaseBatch(e.getKey(), by);
                n++;
            }
        }
        return n;
    }

    public void holdQueue(String by) {
        store.holdQueue(by);
    }

    public void releaseQueue(String by) {
        if (!store.releaseQueue()) {
            throw new NotFoundException("the queue is not held");
        }
    }

    // ------------------------------------------------------------------ cleanup

    /**
     * Completed → Automatic Cleanup: batches completed longer ago than {@code retention} are removed
     * with their jobs; deletions an earlier run or an operator left half done are finished.
     */
    public CleanupResult cleanup(Duration retention) {
        Instant before = clock.instant().minus(retention);
        int batches = 0;
        int jobs = 0;
        for (var e : store.batchStatuses(store.batchIds()).entrySet()) {
            BatchStatus s = e.getValue();
            boolean expired = s.state() == BatchState.COMPLETED && s.lastModified() != null
                    && Instant.parse(s.lastModified()).isBefore(before);
            if (!expired && s.state() != BatchState.DELETED) {
                continue;
            }
            try {
                jobs += finishDeletion(e.getKey(), expired ? "cleanup after " + retention : "deletion finished by cleanup");
                batches++;
            } catch (QueueException ex) {
                LOG.warn("cleanup: batch {} left for the next run: {}", e.getKey(), ex.getMessage());
            }
        }
        return new CleanupResult(batches, jobs);
    }

    private static IllegalTransitionException notIn(String what, Object state, Object expected,
            List<? extends Transition<?>> allowed) {
        return new IllegalTransitionException(what + " is " + state + ", not " + expected + "; allowed from " + state + ": "
                + (allowed.isEmpty() ? "nothing" : allowed.stream().map(t -> t.to() + " (" + t.name() + ")").distinct()
                        .collect(java.util.stream.Collectors.joining(", "))), allowed);
    }

    private void unlockQuietly(JobLock lock) {
        try {
            store.unlock(lock);
        } catch (RuntimeException ignored) {
            // the lock goes with the session
        }
    }

    private void unlockQuietly(BatchLock lock) {
        try {
            store.unlock(lock);
        } catch (RuntimeException ignored) {
            // the lock goes with the session
        }
    }
}
