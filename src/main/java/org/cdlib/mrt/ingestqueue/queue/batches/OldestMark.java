package org.cdlib.mrt.ingestqueue.queue.batches;

import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.errors.NotFoundException;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The oldest-batch mark ({@link QueuePaths#OLDEST_BATCH}): the lowest number a batch may have, where
 * the cleanup, the lists and fsck start walking. It is a lower bound of every batch in the number
 * index ({@link BatchNumbers}), though batch numbers are drawn in blocks ahead of their use
 * ({@code IdBlocks}) and a cleanup may pass a number that a block still holds: every transaction that
 * enters a batch in the index also sets the mark, checking the version it read, to the lower of its
 * value and the batch's number (it writes even when that changes nothing, so a cleanup that read the
 * mark before cannot write over the entry unseen). The cleanup moves it up ({@link #raise}) with the
 * same check, and never past a batch the index holds.
 */
final class OldestMark {
    private static final Logger LOG = LoggerFactory.getLogger(OldestMark.class);
    /** Tries at moving the mark up against entries made meanwhile; then it stays for the next cleanup. */
    private static final int RAISE_TRIES = 10;

    private OldestMark() {
    }

    /** The mark's number and the version an entering transaction checks. */
    record Reading(long number, int version) {
        /** The op that keeps the mark at or below {@code n}, failing the transaction if the mark moved since. */
        Op lowerTo(long n) {
            return Op.setData(QueuePaths.OLDEST_BATCH, QueueJson.text(Math.min(number, n)), version);
        }
    }

    /**
     * The mark as it stands; a queue without one gets it at 0 (what its absence meant), so that its
     * version can be checked.
     */
    static Reading read(ZooKeeperCalls zk) {
        Stat st = new Stat();
        byte[] d;
        try {
            d = zk.read(QueuePaths.OLDEST_BATCH, st);
        } catch (NotFoundException none) {
            zk.createPersistent(QueuePaths.OLDEST_BATCH, QueueJson.text(0));
            d = zk.read(QueuePaths.OLDEST_BATCH, st);
        }
        return new Reading(Math.max(0, QueueJson.readLong(QueuePaths.OLDEST_BATCH, d)), st.getVersion());
    }

    /**
     * Moves the mark up to {@code to} (a cleanup found no batch below it), or only to the lowest batch the
     * index holds below {@code to}: one entered since the cleanup read those numbers (a reserved number used
     * late, on any host). Version-checked; read again on a conflict. Returns the mark left.
     */
    static long raise(ZooKeeperCalls zk, BatchNumbers numbers, long to) {
        for (int attempt = 0; attempt < RAISE_TRIES; attempt++) {
            Reading mark = read(zk);
            if (to <= mark.number()) {
                return mark.number(); // another host's cleanup went as far, or a batch entered below holds it
            }
            long target = numbers.lowestLive(mark.number(), to);
            if (target <= mark.number()) {
                return mark.number();
            }
            try {
                zk.client().setData().withVersion(mark.version()).forPath(QueuePaths.OLDEST_BATCH,
                        QueueJson.text(target));
                return target;
            } catch (KeeperException.BadVersionException entered) {
                // a batch was entered (or another cleanup moved the mark) since the reading: look again
            } catch (Exception e) {
                throw ZooKeeperCalls.wrap("move the oldest batch mark", e);
            }
        }
        LOG.info("cleanup: the oldest batch mark stays where it is: batches were entered {} times while it was"
                + " being moved; the next cleanup moves it", RAISE_TRIES);
        return read(zk).number();
    }

    /**
     * Brings the mark down to the lowest batch the index holds below it: one an earlier version's cleanup
     * passed (a number of a reserved block used late). The index is walked up to the mark from at most
     * {@link BatchNumbers#WALK_BUCKETS} buckets below it, bucket counts 100 a read. Returns the mark left.
     */
    static long healBelow(ZooKeeperCalls zk, BatchNumbers numbers) {
        for (int attempt = 0; attempt < RAISE_TRIES; attempt++) {
            Reading mark = read(zk);
            long from = Math.max(0, mark.number() - BatchNumbers.WALK_BUCKETS * QueuePaths.NUMBER_BUCKET + 1);
            long lowest = numbers.lowestLive(from, mark.number());
            if (lowest >= mark.number()) {
                return mark.number();
            }
            try {
                zk.client().setData().withVersion(mark.version()).forPath(QueuePaths.OLDEST_BATCH,
                        QueueJson.text(lowest));
                LOG.warn("the oldest batch mark was at {}, above batch {}: brought down to it, so lists, search and"
                        + " the cleanup reach that batch again", mark.number(), QueuePaths.batchId(lowest));
                return lowest;
            } catch (KeeperException.BadVersionException moved) {
                // a batch entered or a cleanup meanwhile: look again
            } catch (Exception e) {
                throw ZooKeeperCalls.wrap("move the oldest batch mark", e);
            }
        }
        return read(zk).number();
    }
}
