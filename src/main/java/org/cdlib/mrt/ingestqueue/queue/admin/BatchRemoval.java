package org.cdlib.mrt.ingestqueue.queue.admin;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.errors.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.errors.LockedException;
import org.cdlib.mrt.ingestqueue.queue.errors.NotKeptException;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchStatus;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.model.QueueTime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removing batches: a deletion (each job in its own transaction, found by the batch's run of job
 * ids, then the batch's nodes), the removal of a damaged batch, and cleanup after the retentions,
 * which walks batch numbers upward from the oldest that may exist, a bounded stretch per pass.
 */
final class BatchRemoval {
    private static final Logger LOG = LoggerFactory.getLogger(BatchRemoval.class);
    private final QueueStore store;

    BatchRemoval(QueueStore store) {
        this.store = store;
    }

    /**
     * Deletes every job of the batch (each in its own transaction; found by the batch's run of job
     * ids, never by listing), then the batch's nodes.
     */
    int finishDeletion(String bid, String reason) {
        Batch batch = store.batches().load(bid);
        if (!store.keptBeforeRemoval(batch)) {
            throw new NotKeptException("batch " + bid + " (" + batch.state().wire() + ") stays in ZooKeeper:"
                    + " history cannot take it now (see health); it is removed once history has it");
        }
        List<String> ids = batch.jobIds();
        int jobs = 0;
        for (int from = 0; from < ids.size(); from += 100) {
            jobs += deleteJobs(bid, ids.subList(from, Math.min(ids.size(), from + 100)), reason);
        }
        for (BatchRef ref : BatchRef.values()) {
            if (store.calls().exists(QueuePaths.batchRefs(bid, ref))) {
                // references left by an older layout or a repair
                jobs += deleteJobs(bid, store.batches().jobs(bid, ref), reason);
            }
        }
        store.batches().remove(bid);
        LOG.info("batch {}: removed with {} job(s): {}", bid, jobs, reason);
        return jobs;
    }

    /**
     * Jobs removed at once: each removal is four round trips (exists, lock, read, the transaction), so
     * one after the other the cleanup removed ~10 jobs a second under load while ~100 finished and
     * ZooKeeper grew with the rate (docs/BENCHMARKS.md, "History (issue 44)"); side by side the
     * round trips overlap. Bounded: one pool for every removal of this process.
     */
    static final int PARALLEL_REMOVALS = 16;
    private static final ExecutorService REMOVERS = Executors.newFixedThreadPool(PARALLEL_REMOVALS, r -> {
        Thread t = new Thread(r, "job-removal");
        t.setDaemon(true);
        return t;
    });

    private int deleteJobs(String bid, List<String> jids, String reason) {
        List<Future<Boolean>> removals = new ArrayList<>();
        for (String jid : jids) {
            removals.add(REMOVERS.submit(() -> deleteJob(bid, jid, reason)));
        }
        int n = 0;
        RuntimeException first = null;
        for (Future<Boolean> f : removals) {
            try {
                n += f.get() ? 1 : 0;
            } catch (ExecutionException e) {
                if (first == null) {
                    first = e.getCause() instanceof RuntimeException r ? r
                            : new IllegalStateException(e.getCause());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while removing batch " + bid + "'s jobs", e);
            }
        }
        if (first != null) {
            throw first; // the rest of the chunk was removed; the next cleanup resumes from what is left
        }
        return n;
    }

    /** One job's removal under its lock; false when it is gone already. */
    private boolean deleteJob(String bid, String jid, String reason) {
        if (!store.calls().exists(QueuePaths.job(jid))) {
            return false;
        }
        Optional<HeldJob> lock = store.claims().lockJobNode(jid, "admin");
        if (lock.isEmpty()) {
            throw new LockedException("batch " + bid + ": job " + jid
                    + " is locked; deletion resumes at the next cleanup");
        }
        try {
            Job job = store.jobs().find(jid).orElse(null);
            lock.get().chain(c -> c.withJob(job));
        } catch (CorruptNodeException damaged) {
            lock.get().chain(c -> c.withJob(null));
        }
        store.moves().deleteJobNodes(lock.get(), bid, reason);
        return true;
    }

    /** A batch whose status or submission cannot be read: its listed jobs and its nodes are removed. */
    void deleteDamagedBatch(String bid, String by, CorruptNodeException damage) {
        String reason = "damaged batch deleted by " + by + " (" + damage.getMessage() + ")";
        int jobs = 0;
        for (BatchRef ref : BatchRef.values()) {
            jobs += deleteJobs(bid, store.batches().jobs(bid, ref), reason);
        }
        store.batches().remove(bid);
        LOG.info("batch {}: removed with {} job(s): {}", bid, jobs, reason);
    }


    /** How many batch numbers one cleanup pass reads at most, so a pass stays bounded. */
    static final int CLEANUP_SCAN = 20_000;

    /**
     * Completed → Automatic Cleanup: batches completed longer ago than {@code retention}, and
     * failed ones older than {@code failedRetention}, are removed with their jobs; deletions an
     * earlier run or an operator left half done are finished. Walks batch numbers upward from the
     * oldest that may still exist up to the newest drawn, a bounded stretch per pass, and moves that
     * mark past the numbers that are gone, though never past a batch entered since it read them
     * ({@code Batches.raiseOldestNumber}): a number reserved in a block ahead may be used late.
     */
    CleanupResult cleanup(Instant now, Duration retention, Duration failedRetention) {
        return cleanup(now, retention, failedRetention, () -> true);
    }

    /**
     * As above; {@code goOn} is asked before each stretch of 100 numbers (a singleton's lead): no,
     * and the run ends there.
     */
    CleanupResult cleanup(Instant now, Duration retention, Duration failedRetention, BooleanSupplier goOn) {
        return cleanup(now, retention, failedRetention, Long.MAX_VALUE, goOn);
    }

    /**
     * As above, and the window bounded by count too: while ZooKeeper holds more than {@code keepJobs}
     * finished jobs, completed batches go (oldest first) before their retention ends, so ZooKeeper's
     * size follows the open work, not the rate. Failed batches wait for the operator: only their
     * own retention takes them. A batch history cannot take ends the pass: the rest would wait too.
     */
    CleanupResult cleanup(Instant now, Duration retention, Duration failedRetention, long keepJobs,
                          BooleanSupplier goOn) {
        long excess = keepJobs == Long.MAX_VALUE ? 0 : finishedJobs() - keepJobs;
        long oldest = store.batches().healOldestNumber(); // once: a batch an earlier version's cleanup passed
        long newest = store.batches().drawnNumber(); // numbers not drawn yet are nobody's: the mark stays before them
        long end = Math.min(newest, oldest + CLEANUP_SCAN - 1);
        int batches = 0;
        int jobs = 0;
        long stillThere = -1;
        long stoppedAt = -1;
        for (long from = oldest; from <= end; from += 100) {
            if (!goOn.getAsBoolean()) {
                stoppedAt = from; // the rest is the new leader's: the mark stays before what was not looked at
                LOG.info("cleanup: stopped at batch number {}: this host no longer leads", from);
                break;
            }
            List<String> bids = new ArrayList<>();
            for (long n = from; n <= Math.min(end, from + 99); n++) {
                bids.add(QueuePaths.batchId(n));
            }
            Map<String, BatchStatus> statuses = store.batches().statuses(bids, d -> { });
            for (String bid : bids) {
                BatchStatus s = statuses.get(bid);
                boolean gone = s == null && !store.calls().exists(QueuePaths.batch(bid));
                boolean aged = s != null && expired(s, now, retention, failedRetention);
                boolean over = s != null && !aged && excess > 0 && s.state() == BatchState.COMPLETED;
                if (!gone && (aged || over)) {
                    try {
                        int removed = finishDeletion(bid, s.state() == BatchState.DELETED
                                ? "deletion finished by cleanup"
                                : over ? "cleanup: more than " + keepJobs + " finished jobs in ZooKeeper"
                                : "cleanup after " + (s.state() == BatchState.FAILED ? failedRetention : retention));
                        jobs += removed;
                        excess -= removed;
                        batches++;
                        gone = true;
                    } catch (NotKeptException ex) {
                        LOG.info("cleanup: stopped at batch {}: {}", bid, ex.getMessage());
                        stoppedAt = QueuePaths.batchNumber(bid);
                        from = end + 1; // ends the walk: history takes nothing now
                        break;
                    } catch (QueueException ex) {
                        LOG.warn("cleanup: batch {} left for the next run: {}", bid, ex.getMessage());
                    }
                }
                if (!gone && stillThere < 0) {
                    stillThere = QueuePaths.batchNumber(bid);
                }
            }
        }
        long mark = stillThere >= 0 ? stillThere : stoppedAt >= 0 ? stoppedAt : end + 1;
        if (mark > oldest) {
            // not past a batch entered meanwhile below the mark (a number a block reserved ahead, used late)
            store.batches().raiseOldestNumber(mark);
        }
        return new CleanupResult(batches, jobs);
    }

    /** Completed, failed and deleted jobs ZooKeeper holds: their folders' {@code Stat}, never a listing. */
    private long finishedJobs() {
        Map<JobState, Integer> counts = store.jobs().counts();
        return (long) counts.getOrDefault(JobState.COMPLETED, 0) + counts.getOrDefault(JobState.FAILED, 0)
                + counts.getOrDefault(JobState.DELETED, 0);
    }

    private static boolean expired(BatchStatus s, Instant now, Duration retention, Duration failedRetention) {
        if (s.state() == BatchState.DELETED) {
            return true;
        }
        Duration keep = s.state() == BatchState.COMPLETED ? retention
                : s.state() == BatchState.FAILED ? failedRetention : null;
        Instant at = QueueTime.parse(s.lastModified());
        return keep != null && at != null && at.isBefore(now.minus(keep));
    }
}
