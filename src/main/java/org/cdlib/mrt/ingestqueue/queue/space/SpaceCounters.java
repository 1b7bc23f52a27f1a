package org.cdlib.mrt.ingestqueue.queue.space;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.lease.JobLock;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.Probes;
import org.cdlib.mrt.ingestqueue.queue.zk.StaleCounter;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * This process's writer of the disk reservation counters ({@link SpaceReservation}). Every move
 * into or out of downloading updates one of two nodes with a version check; threads that raced
 * for them would mostly fail that check and read again, so this process sends them one
 * transaction at a time, each from the counts the one before it will leave (no read before a
 * write). A turn ends once its transaction is sent, not answered: ZooKeeper applies one session's
 * transactions in the order they were sent, so they pipeline.
 * <p>
 * A pipelined transaction expects the counter's version its predecessor leaves. If that one
 * failed and another host wrote the counter meanwhile, the version matches the other host's write
 * (an ABA) and the successor would apply on counts that never were, losing that host's
 * increment. So each transaction also bumps this session's own chain node
 * ({@link QueuePaths#SPACE_CHAIN}{@code /<session>}), which nobody else writes, at the version
 * its predecessor leaves: once one transaction fails, every one pipelined behind it fails too,
 * and the counts are read again before the next.
 */
public final class SpaceCounters {
    private final ZooKeeperCalls zk;
    private final ReentrantLock turn = new ReentrantLock();
    // written under turn; known == null: read (counts and chain) before the next write
    private volatile SpaceReservation.Counts known;
    private long chainSession;
    private int chainVersion;

    public SpaceCounters(ZooKeeperCalls zk) {
        this.zk = zk;
    }

    /**
     * The reservation as this process's transactions sent so far leave it, or null when it must
     * be read. Another host's writes make it stale either way: a guess for a check made before a
     * move, never the check itself (the move's transaction checks the counter's version).
     */
    public SpaceReservation guess() {
        SpaceReservation.Counts c = known;
        return c == null ? null : new SpaceReservation(Math.max(0, c.admitted() - c.released()), c.admittedVersion());
    }

    /** Takes this process's turn to update the counters through {@code handle}; the counts to update from. */
    private SpaceReservation.Counts begin(ZooKeeper handle) {
        turn.lock();
        if (known == null || chainSession != handle.getSessionId()) {
            try {
                chainVersion = chain(handle);
                chainSession = handle.getSessionId();
                known = SpaceReservation.Counts.read(zk); // after the chain: nothing of ours is in flight
            } catch (RuntimeException e) {
                known = null;
                turn.unlock();
                throw e;
            }
        }
        return known;
    }

    /** This session's chain node's version, the node created (ephemeral) when missing. */
    private int chain(ZooKeeper handle) {
        String path = chainPath(handle.getSessionId());
        for (int attempt = 0; attempt < 10; attempt++) {
            try {
                zk.counted(1);
                Stat st = handle.exists(path, false);
                if (st != null) {
                    return st.getVersion();
                }
                if (!zk.exists(QueuePaths.SPACE_CHAIN)) {
                    zk.createPersistent(QueuePaths.SPACE_CHAIN, ZooKeeperCalls.EMPTY);
                }
                handle.create(path, ZooKeeperCalls.EMPTY, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
                return 0;
            } catch (KeeperException.NodeExistsException | KeeperException.ConnectionLossException e) {
                // created by our own lost answer, or unknown: look again
            } catch (KeeperException e) {
                throw new QueueException("cannot set up " + path + ": " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new QueueException("interrupted while setting up " + path, e);
            }
        }
        throw new QueueException("cannot set up " + path + ": ZooKeeper connection keeps dropping");
    }

    static String chainPath(long session) {
        return QueuePaths.SPACE_CHAIN + "/" + Long.toHexString(session);
    }

    /** A transaction's update of the counters: adds its ops, returns the counts it leaves. */
    public interface Update {
        SpaceReservation.Counts addTo(SpaceReservation.Counts now, List<Op> ops);
    }

    /**
     * Commits a locked job's transaction, {@code ops} and the counters' {@code update}, in this
     * process's turn. When another host's write (or a failure of a transaction of ours sent
     * before it) made the counts stale nothing was written: it is built again from fresh counts and
     * sent again (at most 100 times). The commit's results; empty when its outcome was read back
     * after a lost connection.
     */
    public List<OpResult> commitLocked(JobLock lock, List<Op> ops, String versionedPath, int version, Update update) {
        String what = "job " + lock.jid();
        for (int attempt = 1; ; attempt++) {
            List<Op> all = new ArrayList<>(ops);
            SpaceReservation.Counts now = begin(lock.zk);
            SpaceReservation.Counts after;
            try {
                after = update.addTo(now, all);
                if (after != null) {
                    all.add(Op.setData(chainPath(chainSession), ZooKeeperCalls.EMPTY, chainVersion));
                }
            } catch (RuntimeException e) {
                turn.unlock(); // nothing was sent: what is known stands
                throw e;
            }
            boolean[] sent = {false};
            boolean committed = false;
            try {
                Runnable onSent = () -> {
                    sent[0] = true;
                    if (after != null) {
                        known = after;
                        chainVersion++;
                    }
                    turn.unlock(); // the next transaction of this process may go out now
                    zk.probes().reached(Probes.Point.AFTER_SEND);
                };
                List<OpResult> results = zk.commitLocked(lock.zk, lock.sessionId, what, all, versionedPath, version,
                        onSent, LockedCommitFailures.QUEUE);
                committed = !results.isEmpty(); // empty: read back after a lost connection, the versions unknown
                return results;
            } catch (StaleCounter e) {
                if (attempt >= 100) {
                    throw new QueueException(what + ": the disk reservation is too contended; nothing was written");
                }
            } finally {
                if (!sent[0]) {
                    known = null; // refused before it was sent (a stale session)
                    turn.unlock();
                } else if (!committed && after != null) {
                    forget();
                }
            }
        }
    }

    /** A transaction failed or its outcome is unknown: read the counts and the chain before the next write. */
    private void forget() {
        turn.lock();
        known = null;
        turn.unlock();
    }
}
