package org.cdlib.mrt.ingestqueue.queue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;

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

    /** A transaction's update of the counters: adds its ops, returns the counts it leaves. */
    interface Update {
        SpaceReservation.Counts addTo(SpaceReservation.Counts now, List<Op> ops);
    }

    /**
     * Commits a locked job's transaction, {@code ops} and the counters' {@code update}, in this
     * process's turn. When another host's write made the counts stale nothing was written: it is
     * built again from fresh counts and sent again (at most 100 times). The commit's results;
     * empty when its outcome was read back after a lost connection.
     */
    List<OpResult> commitLocked(JobLock lock, List<Op> ops, String versionedPath, int version, Update update) {
        String what = "job " + lock.jid();
        for (int attempt = 1; ; attempt++) {
            List<Op> all = new ArrayList<>(ops);
            SpaceReservation.Counts now = begin();
            SpaceReservation.Counts after;
            try {
                after = update.addTo(now, all);
            } catch (RuntimeException e) {
                end(now); // nothing was sent
                throw e;
            }
            boolean[] sent = {false};
            boolean committed = false;
            try {
                List<OpResult> results = zk.commitLocked(lock.zk, lock.sessionId, what, all, versionedPath, version, () -> {
                    sent[0] = true;
                    sent(after); // the next transaction of this process may go out now
                });
                committed = !results.isEmpty(); // empty: read back after a lost connection, the counters' versions unknown
                return results;
            } catch (ZooKeeperCalls.StaleCounter e) {
                if (attempt >= 100) {
                    throw new QueueException(what + ": the disk reservation is too contended; nothing was written");
                }
            } finally {
                if (!sent[0]) {
                    end(null); // refused before it was sent (a stale session)
                } else if (!committed) {
                    failed();
                }
            }
        }
    }
}
