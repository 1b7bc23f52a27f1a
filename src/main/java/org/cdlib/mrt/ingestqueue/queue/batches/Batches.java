package org.cdlib.mrt.ingestqueue.queue.batches;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.zookeeper.ZooKeeper;
import org.cdlib.mrt.ingestqueue.queue.lease.BatchLock;
import org.cdlib.mrt.ingestqueue.queue.lease.EphemeralLocks;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchStatus;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.model.Damaged;
import org.cdlib.mrt.ingestqueue.queue.model.LockOwner;
import org.cdlib.mrt.ingestqueue.queue.model.NewJob;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.model.StatusReport;
import org.cdlib.mrt.ingestqueue.queue.model.Transition;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * The queue's batches: creating and locking them, reading them and their folders, and creating
 * their jobs. A batch's state changes go through the moves
 * ({@code QueueStore.moves()}), beside the jobs'.
 */
public final class Batches {
    private final ZooKeeperCalls zk;
    private final EphemeralLocks locks;
    private final BatchTransactions records;
    private final BatchReads reads;
    private final JobCreation creation;
    private final Consumer<Damaged> damaged;
    private volatile int maxOpen = 10_000;
    private volatile int maxOpenPerDepositor = Integer.MAX_VALUE;

    public Batches(ZooKeeperCalls zk, EphemeralLocks locks, BatchTransactions records, JobCreation creation,
            Consumer<Damaged> damaged) {
        this.zk = zk;
        this.locks = locks;
        this.records = records;
        this.reads = records.reads;
        this.creation = creation;
        this.damaged = damaged;
    }

    /** Open batches (pending to reporting) beyond which submissions are refused with {@link QueueFullException}. */
    public void maxOpen(int max) {
        this.maxOpen = max;
    }

    /**
     * Open batches of one depositor (the submitter the batch names) beyond which that depositor's
     * submissions are refused with {@link org.cdlib.mrt.ingestqueue.queue.errors.DepositorLimitException};
     * at most {@link QueueLimits#LISTED_CHILDREN}, so a depositor's folder can always be listed.
     */
    public void maxOpenPerDepositor(int max) {
        if (max < 1 || max > QueueLimits.LISTED_CHILDREN) {
            throw new IllegalArgumentException("ingest.queue.max-open-batches-per-depositor must be 1 to "
                    + QueueLimits.LISTED_CHILDREN + ", got " + max);
        }
        this.maxOpenPerDepositor = max;
    }

    /**
     * Creates a batch (refused with {@link QueueFullException} when the open batches are at their
     * cap, with {@link org.cdlib.mrt.ingestqueue.queue.errors.DepositorLimitException} when its depositor's are).
     */
    public String create(BatchSubmission submission) {
        return records.create(submission, maxOpen, maxOpenPerDepositor);
    }

    /** The index of the batches that exist, by number: what lists walk, newest first. */
    public BatchNumbers numbers() {
        return records.numbers;
    }

    /** Takes {@code /batches/BID/lock} if nobody holds it and loads the batch; never blocks. */
    public Optional<HeldBatch> tryLock(String bid, String worker) {
        LockOwner owner = locks.owner(worker);
        Optional<ZooKeeper> handle = locks.take(QueuePaths.batchLock(bid), owner);
        if (handle.isEmpty()) {
            return Optional.empty();
        }
        BatchLock lock = new BatchLock(bid, owner, handle.get());
        try {
            return Optional.of(new HeldBatch(lock, reads.load(bid)));
        } catch (RuntimeException e) {
            locks.release(lock);
            throw e;
        }
    }

    public void unlock(HeldBatch lock) {
        locks.release(lock.lease());
    }

    public JobCreation creation() {
        return creation;
    }

    /** Whether a batch of this id exists (a malformed id does not). */
    public boolean exists(String bid) {
        return QueuePaths.batchNumber(bid) >= 0 && zk.exists(QueuePaths.batch(bid));
    }

    /** The batch a Merritt batch id ({@code bid-<uuid>}, mrt-zk's {@code /batch-uuids}) names, if it lives. */
    public Optional<String> byMerrittId(String batchUuid) {
        if (batchUuid == null || !batchUuid.matches("[A-Za-z0-9_.-]{1,200}") || batchUuid.startsWith(".")) {
            return Optional.empty();
        }
        byte[] bid = zk.readOrNull(QueuePaths.batchUuid(batchUuid));
        return bid == null ? Optional.empty()
                : Optional.of(new String(bid, StandardCharsets.UTF_8)).filter(this::exists);
    }

    public Batch load(String bid) {
        return reads.load(bid);
    }

    /** The batches of an open state (pending, held, processing, reporting, update-reporting), oldest first. */
    public List<String> ids(BatchState state) {
        return reads.ids(state);
    }

    /** Statuses of many batches; a vanished batch is left out, a damaged one noted and left out. */
    public Map<String, BatchStatus> statuses(List<String> bids) {
        return reads.statuses(bids, damaged);
    }

    public Map<String, BatchStatus> statuses(List<String> bids, Consumer<Damaged> onDamaged) {
        return reads.statuses(bids, onDamaged);
    }

    public Map<BatchState, Integer> counts() {
        return reads.counts();
    }

    /**
     * An upper bound of the batch numbers drawn (from {@code /batches}' {@code cversion}), and the
     * lowest that may still exist: the range walks go over.
     */
    public long newestNumber() {
        return reads.newestNumber();
    }

    /** The highest batch number drawn so far, exactly (-1: none); the next drawn, by anyone, is above it. */
    public long drawnNumber() {
        return reads.drawnNumber();
    }

    public long oldestNumber() {
        return reads.oldestNumber();
    }

    /**
     * Moves the oldest-batch mark up to {@code n} (a cleanup found no batch below it), or only as far as
     * the lowest batch entered below {@code n} since ({@link OldestMark#raise}); never down. The mark left.
     */
    public long raiseOldestNumber(long n) {
        return OldestMark.raise(zk, records.numbers, n);
    }

    /**
     * Brings the oldest-batch mark down to a batch below it that the number index holds (one an earlier
     * version's cleanup passed), once in this process's life (its first cleanup): a bounded walk of the
     * index's bucket counts ({@link OldestMark#healBelow}). The mark left.
     */
    public long healOldestNumber() {
        if (markHealed) {
            return oldestNumber();
        }
        long mark = OldestMark.healBelow(zk, records.numbers);
        markHealed = true; // not before: a walk a lost connection broke is made again at the next cleanup
        return mark;
    }

    private volatile boolean markHealed;

    /** The job ids listed under one category of a batch; refused when the category is too large to list. */
    public List<String> jobs(String bid, BatchRef ref) {
        return zk.children(QueuePaths.batchRefs(bid, ref)).stream().sorted().toList();
    }

    /**
     * Jobs another writer added to the batch (mrt-zk's {@code Job.createJob}: Merritt's batch consumer,
     * or a neighbour adding to one of ours): not in the batch's runs of ids, only in its reference
     * folders. Listed only when those hold more jobs than the batch created (each listing bounded);
     * ours alone never do, so our own batches cost no read here (issue 42).
     */
    public List<String> othersJobs(Batch batch) {
        int referenced = batch.jobCount(); // the reference folders' children, counted when the batch was read
        if (referenced <= batch.status().jobsCreated()) {
            return List.of();
        }
        Set<String> ours = new HashSet<>(batch.jobIds());
        List<String> extra = new ArrayList<>();
        for (BatchRef ref : BatchRef.values()) {
            jobs(batch.id(), ref).stream().filter(j -> !ours.contains(j)).forEach(extra::add);
        }
        return extra;
    }

    /** Processing → reporting when no job of the batch is open; true when this call moved it. */
    public boolean startReportingIfDone(String bid) {
        return records.startReportingIfDone(bid);
    }

    /**
     * Moves a locked batch as an operator or the system does (a worker's move is
     * {@code Moves.transition}, through {@code QueueStore.moves()}).
     */
    public Batch move(HeldBatch lock, BatchState to, String reason, StatusReport report, String errorMessage,
               Transition.By by, boolean releaseLock) {
        return records.move(lock, to, reason, report, errorMessage, by, releaseLock);
    }

    public void remove(String bid) {
        records.remove(bid);
        synchronized (removedHere) {
            removedHere.put(bid, Boolean.TRUE);
        }
    }

    /**
     * Whether this process removed the batch (its entries went in the same transactions): the batch
     * watch need not look at the deletion it hears. The last 10,000 removals are remembered.
     */
    public boolean removedHere(String bid) {
        synchronized (removedHere) {
            return removedHere.containsKey(bid);
        }
    }

    private final Map<String, Boolean> removedHere = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > 10_000;
        }
    };

    /**
     * Creates the batch's jobs from the whole list, after the ones a crashed earlier run created,
     * whatever the queue holds (tests, benchmarks, tools; the service creates through
     * {@link #createMoreJobs(HeldBatch, List, int, int)}). Still passes the open-jobs gate, so a
     * capped creator racing with it counts its jobs.
     */
    public List<String> createJobs(HeldBatch lock, List<NewJob> all) {
        int done = lock.batch().status().jobsCreated();
        return creation.create(
                lock, all.subList(Math.min(done, all.size()), all.size()), all.size(), Integer.MAX_VALUE);
    }

    /** Creates the next jobs of a batch of {@code total}: {@code next} follow the ones it already has. No cap. */
    public List<String> createMoreJobs(HeldBatch lock, List<NewJob> next, int total) {
        return creation.create(lock, next, total, Integer.MAX_VALUE);
    }

    /**
     * As {@link #createMoreJobs(HeldBatch, List, int)}, creating only the first of {@code next} that
     * fit while the queue holds at most {@code maxOpen} open jobs ({@code ingest.queue.max-open-jobs}),
     * fenced across hosts ({@link CapGate}); the rest is left for a later call. Returns the ids created.
     */
    public List<String> createMoreJobs(HeldBatch lock, List<NewJob> next, int total, int maxOpen) {
        return creation.create(lock, next, total, maxOpen);
    }
}
