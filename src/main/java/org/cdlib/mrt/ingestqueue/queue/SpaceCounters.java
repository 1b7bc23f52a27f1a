package org.cdlib.mrt.ingestqueue.queue;

import java.util.concurrent.locks.ReentrantLock;

/**
 * This process's writer of the disk reservation counters ({@link SpaceReservation}). Every move
 * into or out of downloading updates one of two nodes with a version check; threads that raced
 * for them would mostly fail that check and read again, so this process updates them one
 * transaction at a time, from the counts its last commit left (no read before a write). Another
 * host's write makes the check fail once: the counts are read again and the move committed again.
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

    /** Ends the turn: {@code after} committed, or null when the outcome leaves the counts unknown. */
    void end(SpaceReservation.Counts after) {
        known = after;
        turn.unlock();
    }
}
