package org.cdlib.mrt.ingestqueue.queue.batches;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * folders are kept when empty: one per thousand numbers, and a creation never waits on one.
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

    /**
     * Enters batches found without an entry (another writer's, or made before the index), in one
     * transaction; one by one when someone entered one of them meanwhile.
     */
    void enterAll(List<String> bids) {
        if (bids.isEmpty()) {
            return;
        }
        List<Op> ops = new ArrayList<>();
        Set<Long> buckets = new HashSet<>();
        for (String bid : bids) {
            if (buckets.add(QueuePaths.bucketOf(QueuePaths.batchNumber(bid)))) {
                ensureBucket(QueuePaths.batchNumber(bid));
            }
            ops.add(enter(bid));
        }
        try {
            zk.commitUnlocked("enter " + bids.size() + " batch(es) in the number index", ops);
        } catch (QueueException raced) {
            for (String bid : bids) {
                zk.createPersistent(QueuePaths.batchNumberEntry(bid), ZooKeeperCalls.EMPTY);
            }
        }
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
