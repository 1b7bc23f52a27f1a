package org.cdlib.mrt.ingestqueue.queue.batches;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchStatus;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Batches Merritt's ingest front end creates through mrt-zk's {@code Batch.createBatch}, taken
 * into this queue: a sequential {@code /batches/bidN} with its submission and a {@code Pending}
 * status, no {@code states} node (mrt-zk's sign that nobody picked it up) and no entry in our
 * indexes. Each pass reads only the batch numbers drawn since the last one
 * ({@link Batches#drawnNumber}), on any host: the cursor ({@link QueuePaths#BATCH_INTAKE}) is shared and kept in
 * ZooKeeper, so each number is looked at once in the queue's life, in bounded chunks of reads. Every batch a
 * pass finds without an entry in the number index ({@link BatchNumbers}) is entered there (the oldest-batch mark
 * kept at or below it: {@link OldestMark}); a queue made before that index has no cursor yet, and its first
 * pass, from the oldest batch number, enters every batch it holds. A pending Merritt batch is adopted under its
 * lock, in one transaction that checks its status version and creates its {@code states} node (so mrt-zk's
 * {@code acquirePendingBatch} passes it by from then on), its reference folders, its state index entry and its
 * depositor's entry, after which our batch-pending consumer works on it as on our own. The passes are the safety
 * net: {@link BatchWatch} takes a batch the moment its root or status is created ({@link #takeNow}), whatever
 * number it drew. A number whose batch is still being written (no status yet) stops the cursor for a grace
 * ({@link #grace}, from the root's creation time, the server's clock); after it the root is passed over and kept
 * in a bounded list that each pass looks at again, so a front end that died mid-create never stops the intake.
 */
public final class MerrittBatches {
    private static final Logger LOG = LoggerFactory.getLogger(MerrittBatches.class);
    private static final int CHUNK = 500;
    /** Chunks between two saves of the cursor (and one at the end of each pass). */
    private static final int SAVE_EVERY = 4;
    /**
     * Status-less roots passed over that each pass looks at again, at
     * most this many (the oldest dropped: the watch still hears them).
     */
    static final int LATER_MAX = 1_000;
    private final Batches batches;
    private final ZooKeeperCalls zk;
    private volatile long graceMs = 60_000;
    /** Status-less roots the cursor passed over after the grace, looked at again by each pass; guarded by this. */
    private final LinkedHashSet<String> later = new LinkedHashSet<>();

    public MerrittBatches(Batches batches, ZooKeeperCalls zk) {
        this.batches = batches;
        this.zk = zk;
    }

    /**
     * How long a root without a status stops the cursor ({@code
     * ingest.merritt.status-grace}), from the root's creation.
     */
    public void grace(Duration grace) {
        if (grace.isNegative()) {
            throw new IllegalArgumentException("ingest.merritt.status-grace must not be negative, got " + grace);
        }
        this.graceMs = grace.toMillis();
    }

    /** The roots without a status the cursor passed over (tests, the dashboard). */
    public synchronized List<String> passedOver() {
        return List.copyOf(later);
    }

    /** The shared cursor and its version (-1: none yet, a queue made before the number index). */
    private record Cursor(long next, int version) {
    }

    private Cursor cursor() {
        Stat st = new Stat();
        byte[] d;
        try {
            d = zk.client().getData().storingStatIn(st).forPath(QueuePaths.BATCH_INTAKE);
        } catch (KeeperException.NoNodeException e) {
            return new Cursor(batches.oldestNumber(), -1);
        } catch (Exception e) {
            throw ZooKeeperCalls.wrap("read " + QueuePaths.BATCH_INTAKE, e);
        }
        return new Cursor(Math.max(0, QueueJson.readLong(QueuePaths.BATCH_INTAKE, d)), st.getVersion());
    }

    /** Moves the cursor on, if no other host's pass moved it since it was read; false when one did. */
    private boolean save(Cursor read, long next) {
        try {
            if (read.version() < 0) {
                zk.client().create().forPath(QueuePaths.BATCH_INTAKE, QueueJson.text(next));
            } else {
                zk.client()
                        .setData()
                        .withVersion(read.version())
                        .forPath(QueuePaths.BATCH_INTAKE, QueueJson.text(next));
            }
            return true;
        } catch (KeeperException.NodeExistsException
                 | KeeperException.BadVersionException e) {
            return false;
        } catch (Exception e) {
            throw ZooKeeperCalls.wrap("move " + QueuePaths.BATCH_INTAKE, e);
        }
    }

    /** One pass; the batches adopted. */
    public synchronized List<String> adopt() {
        if (zk.exists(QueuePaths.QUEUE_HOLD)) {
            // the queue is paused (ours, or the Admin Tool's): as Merritt's BatchConsumer, nothing taken
            return List.of();
        }
        List<String> adopted = new ArrayList<>();
        for (String bid : List.copyOf(later)) {
            Intake seen = takeNow(bid);
            if (seen != Intake.NO_STATUS_YET) {
                later.remove(bid); // a status came (taken, or someone else's), or the root is gone
                seen.taken(bid, adopted);
            }
        }
        Cursor cursor = cursor();
        long next = cursor.next();
        long newest = batches.drawnNumber(); // not past what mrt-zk would still draw
        int chunks = 0;
        try {
            while (next <= newest) {
                // the roots first: most numbers were never batches
                // (reserved ids, markers); the rest only of those that are
                long to = Math.min(newest, next + CHUNK - 1);
                List<String> roots = new ArrayList<>();
                for (long n = next; n <= to; n++) {
                    roots.add(QueuePaths.batch(QueuePaths.batchId(n)));
                }
                Map<String, OpResult> r = new HashMap<>(zk.readMany(roots));
                List<String> paths = new ArrayList<>();
                for (long n = next; n <= to; n++) {
                    String bid = QueuePaths.batchId(n);
                    if (ZooKeeperCalls.dataOf(r.get(QueuePaths.batch(bid))) != null) {
                        paths.addAll(List.of(QueuePaths.batchStatus(bid), QueuePaths.batchStates(bid),
                                QueuePaths.batchIndex(BatchState.PENDING, bid), QueuePaths.batchNumberEntry(bid)));
                    }
                }
                r.putAll(zk.readMany(paths));
                List<String> unindexed = new ArrayList<>();
                for (long n = next; n <= to; n++) {
                    String bid = QueuePaths.batchId(n);
                    if (ZooKeeperCalls.dataOf(r.get(QueuePaths.batch(bid))) != null
                            && !(r.get(QueuePaths.batchNumberEntry(bid)) instanceof OpResult.GetDataResult)) {
                        unindexed.add(bid);
                    }
                }
                batches.numbers().enterAll(unindexed);
                for (long n = next; n <= to; n++, next = n) {
                    String bid = QueuePaths.batchId(n);
                    if (ZooKeeperCalls.dataOf(r.get(QueuePaths.batch(bid))) == null) {
                        continue; // not a batch (a number of a reservation), or gone
                    }
                    OpResult.GetDataResult status = ZooKeeperCalls.dataOf(r.get(QueuePaths.batchStatus(bid)));
                    if (status == null) {
                        long age = System.currentTimeMillis()
                                - ZooKeeperCalls.dataOf(r.get(QueuePaths.batch(bid)))
                                        .getStat()
                                        .getCtime();
                        if (age < graceMs) {
                            return adopted; // still being created: the next pass looks again
                        }
                        passOver(bid, age);
                        continue;
                    }
                    if (ZooKeeperCalls.dataOf(r.get(QueuePaths.batchStates(bid))) == null
                            && ZooKeeperCalls.dataOf(r.get(QueuePaths.batchIndex(BatchState.PENDING, bid))) == null
                            && pending(bid, status.getData())) {
                        take(bid).ifPresent(adopted::add);
                    }
                }
                if (++chunks % SAVE_EVERY == 0) {
                    if (!save(cursor, next)) {
                        return adopted; // another host's pass is walking these numbers too: it goes on
                    }
                    cursor = new Cursor(next, cursor.version() + 1);
                }
            }
            return adopted;
        } finally {
            if (next != cursor.next()) {
                save(cursor, next);
            }
        }
    }

    /** Under this's lock: a root without a status past the grace, kept for later passes (bounded). */
    private void passOver(String bid, long ageMs) {
        if (later.add(bid)) {
            LOG.warn(
                    "batch {}: a root without a status for {} s (a front end that died while creating it?): passed"
                            + " over by the intake, looked at again by each pass and taken when its status appears",
                    bid,
                    ageMs / 1000);
            if (later.size() > LATER_MAX) {
                String oldest = later.iterator().next();
                later.remove(oldest);
                LOG.warn(
                        "batch {}: dropped from the intake's list of roots without a status (more than {}); the batch"
                                + " watch still takes it when its status is created",
                        oldest,
                        LATER_MAX);
            }
        }
    }

    /** What {@link #takeNow} found. */
    public enum Intake {
        TAKEN, NOT_OURS_TO_TAKE, NO_STATUS_YET, GONE;

        void taken(String bid, List<String> adopted) {
            if (this == TAKEN) {
                adopted.add(bid);
            }
        }
    }

    /**
     * One batch, at once (the batch watch heard its root or its status created): entered in the
     * number index if it is not, and taken if it is a pending Merritt batch nobody picked up yet.
     * Idempotent, on any host: the take is under the batch lock and checks the status version.
     */
    public Intake takeNow(String bid) {
        Map<String, OpResult> r = zk.readMany(List.of(
                QueuePaths.batch(bid),
                QueuePaths.batchStatus(bid),
                QueuePaths.batchStates(bid),
                QueuePaths.batchIndex(BatchState.PENDING, bid),
                QueuePaths.batchNumberEntry(bid)));
        if (ZooKeeperCalls.dataOf(r.get(QueuePaths.batch(bid))) == null) {
            return Intake.GONE;
        }
        if (!(r.get(QueuePaths.batchNumberEntry(bid)) instanceof OpResult.GetDataResult)) {
            batches.numbers().enterAll(List.of(bid));
        }
        OpResult.GetDataResult status = ZooKeeperCalls.dataOf(r.get(QueuePaths.batchStatus(bid)));
        if (status == null) {
            return Intake.NO_STATUS_YET;
        }
        // a paused queue takes nothing (Merritt's BatchConsumer checks the same lock): the first pass
        // after the pause ends takes it, its cursor not having moved past it meanwhile
        if (ZooKeeperCalls.dataOf(r.get(QueuePaths.batchStates(bid))) == null
                && ZooKeeperCalls.dataOf(r.get(QueuePaths.batchIndex(BatchState.PENDING, bid))) == null
                && pending(bid, status.getData()) && !zk.exists(QueuePaths.QUEUE_HOLD) && take(bid).isPresent()) {
            return Intake.TAKEN;
        }
        return Intake.NOT_OURS_TO_TAKE;
    }

    private static boolean pending(String bid, byte[] status) {
        try {
            return QueueJson.read(QueuePaths.batchStatus(bid), status, BatchStatus.class).state() == BatchState.PENDING;
        } catch (RuntimeException e) {
            return false; // damaged: fsck names it
        }
    }

    private Optional<String> take(String bid) {
        Optional<HeldBatch> lock;
        try {
            lock = batches.tryLock(bid, "merritt-intake");
        } catch (QueueException e) {
            LOG.warn("batch {}: a Merritt batch that cannot be read is left alone: {}", bid, e.getMessage());
            return Optional.empty();
        }
        if (lock.isEmpty()) {
            return Optional.empty(); // an mrt-zk host is taking it, or a pass of ours on another host
        }
        try {
            Batch b = lock.get().batch();
            List<Op> ops = new ArrayList<>(List.of(Op.check(QueuePaths.batchStatus(bid), b.statusVersion()),
                    Op.check(QueuePaths.batchLock(bid), -1),
                    ZooKeeperCalls.create(QueuePaths.batchStates(bid), ZooKeeperCalls.EMPTY)));
            for (BatchRef ref : BatchRef.values()) {
                ops.add(ZooKeeperCalls.create(QueuePaths.batchRefs(bid, ref), ZooKeeperCalls.EMPTY));
            }
            ops.add(ZooKeeperCalls.create(QueuePaths.batchIndex(BatchState.PENDING, bid), ZooKeeperCalls.EMPTY));
            // open now, so its depositor's count holds it (the pass entered it in the number index)
            String depositor = QueuePaths.depositorBatches(BatchDepositors.name(b.submission().submitter()));
            zk.createPersistent(depositor, ZooKeeperCalls.EMPTY);
            ops.add(ZooKeeperCalls.create(depositor + "/" + bid, ZooKeeperCalls.EMPTY));
            zk.commitUnlocked("adopt Merritt batch " + bid, ops);
            LOG.info("batch {}: created by Merritt's ingest (profile {}, {} by {}); taken into this queue", bid,
                    b.submission().profileName(), b.submission().fileName(), b.submission().submitter());
            return Optional.of(bid);
        } catch (QueueException e) {
            LOG.info(
                    "batch {}: not taken from Merritt's ingest ({}); looked at again if it is still pending",
                    bid,
                    e.getMessage());
            return Optional.empty();
        } finally {
            batches.unlock(lock.get());
        }
    }
}
