package org.cdlib.mrt.ingestqueue.queue.batches;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * The index of the batches that exist, by number ({@link QueuePaths#BATCH_NUMBERS}). Batch
 * numbers are sparse: {@code /batches}' counter runs at about twice the highest id (each reserved
 * id block creates and deletes a scratch node per id) and cleanup removes old batches. A list walks
 * the buckets from the newest down, each counted by its {@code Stat} (100 to a read) and listed
 * only when it holds entries (at most {@link QueuePaths#NUMBER_BUCKET}), so its cost follows the
 * batches it shows, not the numbers ever drawn. Our creation and removal write the entry in their
 * own transaction; an entry whose batch another writer removed (mrt-zk's
 * {@code deleteCompletedBatches}) is dropped by the list that finds it gone ({@link #forgetGone});
 * batches another writer created are entered by the intake ({@link MerrittBatches}). Bucket
 * folders are kept when empty: one per thousand numbers, and a creation never waits on one. Every
 * entry made also keeps the oldest-batch mark at or below its number ({@link OldestMark}).
 */
public final class BatchNumbers {
    /** Buckets whose counts one read transaction asks. */
    private static final int BUCKETS_PER_READ = 100;
    /** Buckets one walk looks at, at most (10 million numbers): then it says where to go on. */
    static final int WALK_BUCKETS = 10_000;

    private final ZooKeeperCalls zk;

    BatchNumbers(ZooKeeperCalls zk) {
        this.zk = zk;
    }

    /**
     * Batch ids at or below {@code top} and at or above {@code bottom}, newest first: at least
     * {@code want} when there are that many (whole buckets, so perhaps more).
     *
     * @param bids    the ids found
     * @param nextTop where a further walk goes on (the highest number not looked at), -1 when it reached {@code bottom}
     */
    public record Page(List<String> bids, long nextTop) {
    }

    public Page newest(long top, long bottom, int want) {
        List<String> out = new ArrayList<>();
        long lowest = QueuePaths.bucketOf(Math.max(0, bottom));
        long bucket = QueuePaths.bucketOf(top);
        int walked = 0;
        while (top >= bottom && bucket >= lowest && out.size() < want && walked < WALK_BUCKETS) {
            List<String> paths = new ArrayList<>();
            for (long b = bucket; b >= lowest && paths.size() < BUCKETS_PER_READ; b--) {
                paths.add(QueuePaths.numberBucket(b));
            }
            Map<String, OpResult> r = zk.readMany(paths);
            for (String path : paths) {
                walked++;
                OpResult.GetDataResult d = ZooKeeperCalls.dataOf(r.get(path));
                int count = d == null ? 0 : d.getStat().getNumChildren();
                if (count > 0) {
                    for (String bid : zk.children(path, count)) {
                        long n = QueuePaths.batchNumber(bid);
                        if (n >= bottom && n <= top) {
                            out.add(bid);
                        }
                    }
                }
                bucket--;
                if (out.size() >= want) {
                    break;
                }
            }
        }
        out.sort(Comparator.reverseOrder());
        long nextTop =
                bucket < lowest || top < bottom ? -1 : Math.min(top, (bucket + 1) * QueuePaths.NUMBER_BUCKET - 1);
        return new Page(out, nextTop);
    }

    /**
     * Makes sure the bucket folder of batch {@code number} exists (before a transaction creates an
     * entry in it): one read, asked each time rather than remembered, so a queue rebuilt under a
     * running process (a restore, a test's wipe) never fails a creation.
     */
    void ensureBucket(long number) {
        String bucket = QueuePaths.numberBucket(QueuePaths.bucketOf(number));
        if (!zk.exists(bucket)) {
            zk.createPersistent(bucket, ZooKeeperCalls.EMPTY);
        }
    }

    /** The op that enters a batch ({@link #ensureBucket} first). */
    static Op enter(String bid) {
        return ZooKeeperCalls.create(QueuePaths.batchNumberEntry(bid), ZooKeeperCalls.EMPTY);
    }

    /** Tries at entering batches against other writers of the same entries or of the oldest-batch mark. */
    private static final int ENTER_TRIES = 10;

    /**
     * Enters batches found without an entry (another writer's, or made before the index), in one
     * transaction that also keeps the oldest-batch mark at or below them ({@link OldestMark}); read
     * again and sent again when someone entered one of them, or moved the mark, meanwhile.
     */
    void enterAll(List<String> bids) {
        if (bids.isEmpty()) {
            return;
        }
        Set<Long> buckets = new HashSet<>();
        long lowest = Long.MAX_VALUE;
        for (String bid : bids) {
            long n = QueuePaths.batchNumber(bid);
            if (buckets.add(QueuePaths.bucketOf(n))) {
                ensureBucket(n);
            }
            lowest = Math.min(lowest, n);
        }
        List<String> entries = bids.stream().map(QueuePaths::batchNumberEntry).toList();
        for (int attempt = 0; attempt < ENTER_TRIES; attempt++) {
            Map<String, OpResult> there = zk.readMany(entries);
            List<Op> ops = new ArrayList<>();
            for (String bid : bids) {
                if (!(there.get(QueuePaths.batchNumberEntry(bid)) instanceof OpResult.GetDataResult)) {
                    ops.add(enter(bid));
                }
            }
            OldestMark.Reading mark = OldestMark.read(zk);
            if (ops.isEmpty() && mark.number() <= lowest) {
                return;
            }
            ops.add(mark.lowerTo(lowest));
            try {
                zk.commit(zk.currentHandle(), ops, () -> false);
                return;
            } catch (KeeperException.NodeExistsException | KeeperException.BadVersionException raced) {
                // entered by another host's intake, or the mark moved: read again
            } catch (KeeperException e) {
                throw new QueueException("enter " + bids.size() + " batch(es) in the number index: " + e.code(), e);
            }
        }
        throw new QueueException("enter " + bids.size() + " batch(es) in the number index: other writers moved"
                + " the oldest batch mark " + ENTER_TRIES + " times in a row; the next intake pass enters them");
    }

    /**
     * The lowest number at or above {@code from} and below {@code below} of a batch the index holds
     * whose root is there ({@code below} when none): walked upward, bucket counts 100 to a read, a
     * bucket listed only when it holds entries. An entry whose batch is gone is dropped on the way
     * ({@link #forgetGone}). At most {@link #WALK_BUCKETS} buckets: the first number not looked at
     * is answered then, as if a batch were there.
     */
    long lowestLive(long from, long below) {
        long bucket = QueuePaths.bucketOf(Math.max(0, from));
        long last = QueuePaths.bucketOf(below - 1);
        int walked = 0;
        while (bucket <= last) {
            if (walked >= WALK_BUCKETS) {
                return Math.max(from, bucket * QueuePaths.NUMBER_BUCKET);
            }
            List<String> paths = new ArrayList<>();
            for (long b = bucket; b <= last && paths.size() < BUCKETS_PER_READ; b++) {
                paths.add(QueuePaths.numberBucket(b));
            }
            Map<String, OpResult> r = zk.readMany(paths);
            for (String path : paths) {
                walked++;
                bucket++;
                OpResult.GetDataResult d = ZooKeeperCalls.dataOf(r.get(path));
                int count = d == null ? 0 : d.getStat().getNumChildren();
                List<String> inRange = count == 0 ? List.of() : zk.children(path, count).stream()
                        .filter(bid -> QueuePaths.batchNumber(bid) >= from && QueuePaths.batchNumber(bid) < below)
                        .sorted().toList();
                if (!inRange.isEmpty()) {
                    Map<String, OpResult> roots = zk.readMany(inRange.stream().map(QueuePaths::batch).toList());
                    List<String> gone = new ArrayList<>();
                    for (String bid : inRange) {
                        if (roots.get(QueuePaths.batch(bid)) instanceof OpResult.GetDataResult) {
                            forgetGone(gone);
                            return QueuePaths.batchNumber(bid);
                        }
                        gone.add(bid);
                    }
                    forgetGone(gone);
                }
            }
        }
        return below;
    }

    /**
     * Drops the entries of these batches whose root is gone (removed behind our back: mrt-zk's
     * cleanup); a root still there (a batch being written, a damaged one) keeps its entry. A batch
     * number is never drawn again, so a gone batch's entry can never become right again.
     */
    public void forgetGone(List<String> bids) {
        if (bids.isEmpty()) {
            return;
        }
        Map<String, OpResult> r = zk.readMany(bids.stream().map(QueuePaths::batch).toList());
        for (String bid : bids) {
            if (!(r.get(QueuePaths.batch(bid)) instanceof OpResult.GetDataResult)) {
                zk.deleteIfExists(QueuePaths.batchNumberEntry(bid));
            }
        }
    }
}
