package org.cdlib.mrt.ingestqueue.queue.lease;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.errors.StaleLockException;
import org.cdlib.mrt.ingestqueue.queue.model.LockOwner;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.zk.MultiCommit;

/**
 * A held ephemeral lock node ({@code /jobs/JID/lock}, {@code /batches/BID/lock}). Its identity is
 * the session that created it and the owner bytes it was created with (a claim token no other
 * claim has), as Curator's {@code LockInternals} deletes only the path it created: all workers of a
 * process share one session, so after an operator breaks a lock and another worker of the same
 * host re-claims it, the old worker's release and fence checks see a node that is not theirs.
 * Every write made under a lease goes through the handle that created it (a writer whose session
 * expired cannot write through a newer one) and checks the version of the status it read, which a
 * lock break moves.
 */
public abstract sealed class Lease permits JobLock, BatchLock {
    final String path;
    private final LockOwner owner;
    final byte[] ownerBytes;
    public final ZooKeeper zk;
    public final long sessionId;

    Lease(String path, LockOwner owner, ZooKeeper zk) {
        this.path = path;
        this.owner = owner;
        this.ownerBytes = QueueJson.write(owner);
        this.zk = zk;
        this.sessionId = zk.getSessionId();
    }

    public LockOwner owner() {
        return owner;
    }

    /** False once the session that holds the lock is gone. */
    public boolean isAlive() {
        return zk.getState().isAlive() && zk.getSessionId() == sessionId;
    }

    /** Whether a lock node read as {@code stat}/{@code data} is this lease's (same session, same owner bytes). */
    boolean isMine(Stat stat, byte[] data) {
        return stat != null && stat.getEphemeralOwner() == sessionId && Arrays.equals(ownerBytes, data);
    }

    /**
     * Fencing for writes outside ZooKeeper (the shared working directory): passes only while this
     * lease's session lives and its own node is still there; a worker that was paused past its
     * session, lost it, or whose lock was broken (even if a worker of this process re-claimed it)
     * gets {@link StaleLockException} and must write nothing more.
     */
    public void verifyHeld() {
        verifyHeldUntil(null);
    }

    /**
     * As {@link #verifyHeld}, and until when (a {@link System#nanoTime} value) the answer holds: the
     * server saw this session after the check began, so no other host can take the lock before the
     * session timeout has passed from then; half of it is kept as the margin. A send to a service
     * that cannot fence (storage, EZID) goes out before then or not at all: a host paused between
     * the check and the send (SIGSTOP, a long GC) finds the time gone when it wakes.
     *
     * @param c the last transaction under this lease that checked its lock and status and was answered, the
     *          fence's shortcut (what a job's chain knows, {@link JobChain#confirmed(long)}, passed in by its
     *          holder, {@link HeldJob}); null: none, the node is read
     */
    public long verifyHeldUntil(JobChain.Confirmed c) {
        long began = System.nanoTime();
        long half = TimeUnit.MILLISECONDS.toNanos(zk.getSessionTimeout()) / 2;
        // a transaction that took long to be answered (a lost connection, retried) leaves little of
        // its margin: a read then gives the send a whole one
        if (c != null && c.stands(began, half) && isAlive()) {
            return c.sent() + half;
        }
        long deadline = System.currentTimeMillis() + MultiCommit.CONNECT_WAIT_MS;
        while (isAlive()) {
            try {
                Stat st = new Stat();
                byte[] data = zk.getData(path, false, st);
                if (isMine(st, data)) {
                    return began + half;
                }
                break;
            } catch (KeeperException.ConnectionLossException e) {
                // a lost connection is not a lost lock: wait for it (the session decides), then look again
                if (System.currentTimeMillis() > deadline) {
                    break;
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    break;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (KeeperException e) {
                break; // gone, expired, or cannot tell that we hold it: then we do not
            }
        }
        throw new StaleLockException(what() + ": this worker no longer holds its lock (its session ended or it was "
                + "taken over); it writes nothing more");
    }

    abstract String what();

    @Override
    public String toString() {
        return "lock on " + what() + " by " + owner;
    }
}
