package org.cdlib.mrt.ingestqueue.queue.lease;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one path by which a job lock that is not its holder's own is removed: fsck's orphan repair,
 * the repair of a damaged job, an operator's unlock. The lock is deleted at the version read and
 * the job's status is rewritten as it is at the version read, in one transaction: the status
 * version moves, so every fence that checks lock + status (the old holder's moves, effect records,
 * identifiers) fails from then on, even after another worker re-creates the lock. Each break is
 * read after a {@code sync}, and logged as one line naming the job, the holder and the reason (a
 * soak counts them: "healthy locks broken").
 *
 * <p>Unattended (fsck, the sweep), a lock is broken only when it is this process's own session's,
 * no holder of this process has it in its ledger ({@link HeldLocks}), and it is the very node seen
 * when it was judged (same creation and last change): a lock of another host, of mrt-zk, or of a
 * live holder here is never broken unattended, whatever its age. An operator's break takes any
 * holder's.
 */
public final class LockBreaks {
    private static final Logger LOG = LoggerFactory.getLogger(LockBreaks.class);
    private final ZooKeeperCalls zk;
    private final HeldLocks held;
    private final AtomicLong broken = new AtomicLong();

    LockBreaks(ZooKeeperCalls zk, HeldLocks held) {
        this.zk = zk;
        this.held = held;
    }

    /** Who asks: an operator (any holder), or fsck and the sweep unattended (only a lock no live holder has). */
    public enum By { OPERATOR, UNATTENDED }

    /**
     * What a break did. {@code broken}: the lock is gone by this break (read back after a sync when
     * the answer was lost); {@code holder}: the owner the lock held; {@code statusVersion}: the
     * status's version after the break (-1: no readable status); {@code why}: why it was not broken.
     */
    public record Outcome(boolean broken, String holder, int statusVersion, String why) {
    }

    /** How many locks this process broke (every one logged), for the soak's figures. */
    public long count() {
        return broken.get();
    }

    /**
     * Breaks the lock of job {@code jid}. {@code seen} (unattended: required) is the lock's Stat when
     * it was judged; a lock re-created or rewritten since is a different lock and is left alone.
     */
    public Outcome breakLock(String jid, By by, Stat seen, String reason) {
        String path = QueuePaths.jobLock(jid);
        ZooKeeper handle = zk.currentHandle();
        Read now = syncedRead(handle, jid);
        if (now.lock == null) {
            return new Outcome(false, null, now.statusVersion(), "not locked");
        }
        String holder = QueueJson.text(now.lockData);
        if (by == By.UNATTENDED) {
            if (seen == null || now.lock.getCzxid() != seen.getCzxid() || now.lock.getMzxid() != seen.getMzxid()) {
                return new Outcome(false, holder, now.statusVersion(), "the lock changed since it was judged");
            }
            if (now.lock.getEphemeralOwner() != handle.getSessionId()) {
                return new Outcome(
                        false, holder, now.statusVersion(), "held by a live session of another host or writer");
            }
        }
        return held.whileNoneEntered(() -> {
            if (by == By.UNATTENDED && held.holds(path, now.lockData)) {
                return new Outcome(false, holder, now.statusVersion(), "held on purpose by a worker of this process");
            }
            List<Op> ops = new ArrayList<>(List.of(Op.delete(path, now.lock.getVersion())));
            if (now.status != null) {
                ops.add(Op.setData(QueuePaths.jobStatus(jid), now.statusData, now.status.getVersion()));
            }
            try {
                zk.commit(handle, ops, () -> {
                    Read back = syncedRead(handle, jid);
                    boolean lockGone = back.lock == null || back.lock.getCzxid() != now.lock.getCzxid();
                    return lockGone && (now.status == null || back.statusVersion() == now.status.getVersion() + 1);
                });
            } catch (KeeperException e) {
                return new Outcome(false, holder, now.statusVersion(), "the lock or the status changed meanwhile ("
                        + e.code() + "); nothing was written");
            }
            broken.incrementAndGet();
            int after = now.status == null ? -1 : now.status.getVersion() + 1;
            LOG.warn("lock broken: job {} held by {} (session 0x{}{}): {}; status version {} -> {}", jid, holder,
                    Long.toHexString(now.lock.getEphemeralOwner()), by == By.OPERATOR ? ", by an operator" : "",
                    reason, now.statusVersion(), after);
            return new Outcome(true, holder, after, null);
        });
    }

    private record Read(Stat lock, byte[] lockData, Stat status, byte[] statusData) {
        int statusVersion() {
            return status == null ? -1 : status.getVersion();
        }
    }

    /** The lock and the status as the leader has them: a sync, then both reads, in order on one session. */
    private Read syncedRead(ZooKeeper handle, String jid) {
        try {
            CompletableFuture<Integer> synced = new CompletableFuture<>();
            handle.sync(QueuePaths.jobLock(jid), (rc, p, ctx) -> synced.complete(rc), null);
            Stat lock = new Stat();
            byte[] lockData = getOrNull(handle, QueuePaths.jobLock(jid), lock);
            Stat status = new Stat();
            byte[] statusData = getOrNull(handle, QueuePaths.jobStatus(jid), status);
            int rc = synced.get(handle.getSessionTimeout(), TimeUnit.MILLISECONDS);
            if (rc != KeeperException.Code.OK.intValue()) {
                throw KeeperException.create(KeeperException.Code.get(rc), QueuePaths.jobLock(jid));
            }
            zk.counted(3);
            return new Read(lockData == null ? null : lock, lockData, statusData == null ? null : status, statusData);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new QueueException("interrupted reading the lock of job " + jid, e);
        } catch (Exception e) {
            throw ZooKeeperCalls.wrap("read the lock of job " + jid + " after a sync", e);
        }
    }

    private static byte[] getOrNull(ZooKeeper handle, String path, Stat into)
            throws KeeperException, InterruptedException {
        try {
            return handle.getData(path, false, into);
        } catch (KeeperException.NoNodeException e) {
            return null;
        }
    }
}
