package org.cdlib.mrt.ingestqueue.queue;

import org.apache.zookeeper.ZooKeeper;

/**
 * A held {@code /jobs/JID/lock}: ephemeral, so it vanishes with the owner's session. Every
 * write made under it goes through the ZooKeeper handle that created it, so a writer whose
 * session expired cannot write through a newer session by mistake.
 */
public final class JobLock {
    private final String jid;
    private final LockOwner owner;
    final ZooKeeper zk;
    final long sessionId;
    private volatile Job job;
    /** The job's effects node as this lock last read or wrote it; null: to be read. */
    volatile EffectRecords.Known effects;

    JobLock(String jid, LockOwner owner, ZooKeeper zk) {
        this.jid = jid;
        this.owner = owner;
        this.zk = zk;
        this.sessionId = zk.getSessionId();
    }

    public String jid() {
        return jid;
    }

    public LockOwner owner() {
        return owner;
    }

    /** The job as read right after locking (or after the last write made under this lock). */
    public Job job() {
        return job;
    }

    void job(Job job) {
        this.job = job;
    }

    /** False once the session that holds the lock is gone. */
    public boolean isAlive() {
        return zk.getState().isAlive() && zk.getSessionId() == sessionId;
    }

    /**
     * Fencing for writes outside ZooKeeper (the shared working directory): passes only while this
     * worker's session lives and still owns the lock node; a worker that was paused past its
     * session, or lost it, gets {@link StaleLockException} and must write nothing more.
     */
    public void verifyHeld() {
        long deadline = System.currentTimeMillis() + ZooKeeperCalls.CONNECT_WAIT_MS;
        while (isAlive()) {
            try {
                org.apache.zookeeper.data.Stat st = zk.exists(QueuePaths.jobLock(jid), false);
                if (st != null && st.getEphemeralOwner() == sessionId) {
                    return;
                }
                break;
            } catch (org.apache.zookeeper.KeeperException.ConnectionLossException e) {
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
            } catch (org.apache.zookeeper.KeeperException e) {
                break; // expired, or cannot tell that we hold it: then we do not
            }
        }
        throw new StaleLockException("job " + jid + ": this worker no longer holds its lock (its session ended or it was "
                + "taken over); it writes nothing more");
    }

    @Override
    public String toString() {
        return "lock on " + jid + " by " + owner;
    }
}
