package org.cdlib.mrt.ingestqueue.queue;

import java.util.concurrent.locks.ReentrantLock;

/**
 * This process's writer of the disk reservation counters ({@link SpaceReservation}). Every move
 * into or out of downloading updates one of two nodes with a version check; threads that raced
 * for them would mostly fail that check and read again, so this process sends them one
 * transaction at a time, each from the counts the one before it will leave (no read before a
 * write). A turn ends once its transaction is sent, not answered: ZooKeeper applies one session's
 * transactions in the order they were sent, so they pipeline. A transaction that fails (another
 * host's write, or its own job's trouble) makes the ones sent after it fail their check too: the
 * counts are read again and each is committed again.
 */
final class SpaceCounters {
    private final ZooKeeperCalls zk;
    private final ReentrantLock turn = new ReentrantLock();
    private SpaceReservation.Counts known; // guarded by turn; null: read before the next write

    SpaceCounters(ZooKeeperCalls zk) {
        this.zk = zk;
    }

    /** Takes this process's turn to update the counters; the counts to update from. */
    SpaceReservation.Counts begin() {
        turn.lock();
        if (known == null) {
            try {
                known = SpaceReservation.Counts.read(zk);
            } catch (RuntimeException e) {
                turn.unlock();
                throw e;
            }
        }
        return known;
    }

    /** Ends the turn once the transaction is sent: the next one builds on {@code after}. */
    void sent(SpaceReservation.Counts after) {
        known = after;
        turn.unlock();
    }

    /** Ends the turn without sending (nothing changed), with {@code now} as it was. */
    void end(SpaceReservation.Counts now) {
        known = now;
        turn.unlock();
    }

    /** A transaction failed or its outcome is unknown: read the counts before the next write. */
    void failed() {
        turn.lock();
        known = null;
        turn.unlock();
    }
}
