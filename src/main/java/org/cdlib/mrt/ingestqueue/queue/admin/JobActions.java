package org.cdlib.mrt.ingestqueue.queue.admin;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.errors.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.errors.LockedException;
import org.cdlib.mrt.ingestqueue.queue.errors.NotFoundException;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.lease.LockBreaks;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.HeldBy;
import org.cdlib.mrt.ingestqueue.queue.model.IllegalTransitionException;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.JobStatus;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.model.Transition;
import org.cdlib.mrt.ingestqueue.queue.model.Transitions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an operator may do to a job, with the design's rules: hold, release, requeue, fail, delete,
 * break its lock. Every action checks the state machine before writing; a refusal writes nothing and
 * says why and what is allowed. An action on a job a worker holds is refused naming the worker.
 */
public final class JobActions {
    private static final Logger LOG = LoggerFactory.getLogger(JobActions.class);
    private final QueueStore store;

    public JobActions(QueueStore store) {
        this.store = store;
    }

    public Job holdJob(String jid, String by) {
        return moveJob(jid, null, s -> JobState.HELD, "held by " + by);
    }

    public Job releaseJob(String jid, String by) {
        return moveJob(jid, JobState.HELD, s -> JobState.resumeAfter(s.lastSuccessful()), "released by " + by);
    }

    /**
     * Releases a job the hold {@code hold} stopped (issue 45) to where it waited or would have gone; false, nothing
     * changed, when it is no longer that hold's (released already, or held again since, by hand or by Merritt's
     * tools). A job a worker or operator has locked now is refused ({@link LockedException}).
     */
    public boolean releaseStopped(String jid, HeldBy hold) {
        HeldJob lock = lockJob(jid);
        try {
            Job job = lock.job();
            HeldBy stopped = job.status().stoppedByHold(job.statusVersion());
            if (stopped == null || !stopped.hold().equals(hold.hold()) || !stopped.of().equals(hold.of())) {
                store.moves().unlock(lock);
                return false;
            }
            store.moves().move(lock, JobState.resumeAfter(job.status().lastSuccessful()),
                    Change.because("released: " + hold + " was lifted"), Transition.By.ADMIN);
            return true;
        } catch (RuntimeException e) {
            unlockQuietly(lock);
            throw e;
        }
    }

    /**
     * Failed jobs are not counted against the open-job windows, so a requeue is refused while the
     * open states hold {@link QueueLimits#MAX_OPEN_JOBS}: they must stay small enough to list.
     */
    public Job requeueJob(String jid, String by) {
        int open = store.jobs().openCount();
        if (open >= QueueLimits.MAX_OPEN_JOBS) {
            throw new IllegalTransitionException("the queue holds " + open + " open jobs, the most it takes ("
                    + QueueLimits.MAX_OPEN_JOBS + "); requeue " + jid + " when some have finished", List.of());
        }
        return moveJob(jid, JobState.FAILED, s -> JobState.resumeAfter(s.lastSuccessful()), "requeued by " + by);
    }

    /** How many times a fail breaks a worker's lock and tries to take the job, before it answers 409. */
    private static final int FAIL_ATTEMPTS = 5;

    /**
     * Forces a job into failed, as Merritt's Admin Tool "Fail" does (issue 42), from any working
     * state (pending … notify). A worker's lock (ours or an mrt-zk host's) is broken first, through the
     * one break path, so its holder's next fence or commit fails as stale and it stops, letting go of
     * what it holds; then the job is moved under an operator's lock in one transaction (references,
     * space counters, object lock). Held, failed, completed and deleted jobs are refused, naming why.
     */
    public Job failJob(String jid, String reason, String by) {
        String message = "failed by " + by + (reason == null || reason.isBlank() ? "" : ": " + reason.strip());
        for (int attempt = 1; ; attempt++) {
            Job seen = store.jobs().find(jid).orElseThrow(() -> new NotFoundException("no job " + jid));
            requireFailable(jid, seen.state());
            Optional<HeldJob> lock = store.claims().tryLockJob(jid, "admin");
            if (lock.isEmpty()) {
                if (attempt >= FAIL_ATTEMPTS) {
                    throw new LockedException("job " + jid + " (" + seen.state() + "): its lock was broken but a "
                            + "worker took it again each time; try again");
                }
                var outcome = store.claims().breaks().breakLock(jid, LockBreaks.By.OPERATOR,
                        null, "to fail the job, by " + by);
                if (outcome.broken()) {
                    LOG.warn("job {}: lock of {} broken to fail it, by {}", jid, outcome.holder(), by);
                }
                continue;
            }
            try {
                Job job = lock.get().job();
                requireFailable(jid, job.state());
                Job failed = store.moves().move(lock.get(), JobState.FAILED, Change.failure(message),
                        Transition.By.ADMIN);
                LOG.info("job {}: failed from {} by {}", jid, job.state(), by);
                return failed;
            } catch (RuntimeException e) {
                unlockQuietly(lock.get());
                throw e;
            }
        }
    }

    private static void requireFailable(String jid, JobState state) {
        String why = switch (state) {
            case COMPLETED -> "it is completed: its object is stored and recorded, nothing is left to stop";
            case DELETED -> "it is deleted";
            case FAILED -> "it has failed already; nothing changed";
            case HELD -> "it is held: no worker runs it (release it, or delete it)";
            default -> null;
        };
        if (why != null) {
            throw new IllegalTransitionException("job " + jid + " cannot be failed: " + why,
                    Transitions.allowedFrom(Transitions.JOB, state));
        }
        Transitions.requireJob(jid, state, JobState.FAILED, Transition.By.ADMIN);
    }

    public void deleteJob(String jid, boolean confirm, String by) {
        HeldJob lock;
        try {
            lock = lockJob(jid);
        } catch (CorruptNodeException damaged) {
            deleteDamagedJob(jid, by, damaged);
            return;
        }
        try {
            Job job = lock.job();
            Transitions.requireJob(jid, job.state(), JobState.DELETED, Transition.By.ADMIN);
            BatchState batch = store.batches().statuses(List.of(job.batchId())).get(job.batchId()).state();
            if (!confirm && batch != BatchState.COMPLETED && batch != BatchState.FAILED) {
                throw new ConfirmRequiredException("job " + jid + " belongs to batch " + job.batchId() + ", which is "
                        + batch + "; its report will not mention the job. Delete with confirm to go ahead.");
            }
            store.moves().deleteJobNodes(lock, job.batchId(), "deleted by " + by);
        } catch (RuntimeException e) {
            unlockQuietly(lock);
            throw e;
        }
    }

    /**
     * Breaks a job's lock whoever holds it (a host that is stuck or paused): the job is free for any
     * worker at once; the old holder's commit then fails as stale and its working-directory writes
     * are fenced. Needs {@code confirm}. Returns who held it.
     */
    public String breakJobLock(String jid, boolean confirm, String by) {
        byte[] owner = store.calls().readOrNull(QueuePaths.jobLock(jid));
        if (owner == null) {
            if (!store.calls().exists(QueuePaths.job(jid))) {
                throw new NotFoundException("no job " + jid);
            }
            throw new IllegalTransitionException("job " + jid + " is not locked", List.of());
        }
        String holder = QueueJson.text(owner);
        if (!confirm) {
            throw new ConfirmRequiredException("job " + jid + " is locked by " + holder + "; breaking the lock lets "
                    + "another worker take the job while that one may still be working on it. Break it with confirm to "
                    + "go ahead.");
        }
        // the one break path: the status's version moves with the break, so the old holder's next write fails as stale
        var outcome = store.claims().breaks().breakLock(jid, LockBreaks.By.OPERATOR, null,
                "unlocked by " + by);
        if (!outcome.broken() && outcome.holder() != null) {
            throw new QueueException("job " + jid + ": lock of " + holder
                    + " not broken: " + outcome.why() + "; try again");
        }
        LOG.warn("job {}: lock of {} broken by {}", jid, holder, by);
        return holder;
    }

    /** A job whose nodes cannot be read: every node it has is removed, whatever its state. */
    private void deleteDamagedJob(String jid, String by, CorruptNodeException damage) {
        HeldJob lock = store.claims().lockJobNode(jid, "admin").orElseThrow(() -> new LockedException("job " + jid
                + " is damaged and locked by a worker; try again when the lock is gone"));
        try {
            byte[] bid = store.calls().readOrNull(QueuePaths.jobNode(jid, "bid"));
            String batch = bid == null || QueuePaths.batchNumber(QueueJson.text(bid)) < 0 ? null : QueueJson.text(bid);
            store.moves().deleteJobNodes(lock, batch,
                    "damaged job deleted by " + by + " (" + damage.getMessage() + ")");
        } catch (RuntimeException e) {
            unlockQuietly(lock);
            throw e;
        }
    }

    /** Moves a job an operator names; {@code from} null means any state the table allows. */
    private Job moveJob(String jid, JobState from, Function<JobStatus, JobState> target, String reason) {
        HeldJob lock = lockJob(jid);
        try {
            Job job = lock.job();
            if (from != null && job.state() != from) {
                throw Refusals.notIn("job " + jid, job.state(), from,
                        Transitions.allowedFrom(Transitions.JOB, job.state()));
            }
            return store.moves().move(lock, target.apply(job.status()), Change.because(reason), Transition.By.ADMIN);
        } catch (RuntimeException e) {
            unlockQuietly(lock);
            throw e;
        }
    }

    private HeldJob lockJob(String jid) {
        Optional<HeldJob> lock = store.claims().tryLockJob(jid, "admin");
        if (lock.isPresent()) {
            return lock.get();
        }
        Job job = store.jobs().find(jid).orElseThrow(() -> new NotFoundException("no job " + jid));
        throw new LockedException("job " + jid + " (" + job.state() + ") is being worked on by "
                + (job.lockOwner() == null ? "another worker" : job.lockOwner()) + "; try again when it has moved");
    }

    private void unlockQuietly(HeldJob lock) {
        try {
            store.moves().unlock(lock);
        } catch (RuntimeException ignored) {
            // the lock goes with the session
        }
    }
}
