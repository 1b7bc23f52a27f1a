package org.cdlib.mrt.ingestqueue.queue.fsck;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.LockBreaks;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/** fsck's look at the locks of open jobs (part of {@link ConsistencyCheck}, in the pass that sees every batch). */
final class FsckLockCheck {
    private final QueueStore store;
    private final long lockGraceMs;

    FsckLockCheck(QueueStore store, long lockGraceMs) {
        this.store = store;
        this.lockGraceMs = lockGraceMs;
    }

    /** How long a lock must have been held before it is judged: a claim registers its work a moment after locking. */
    static final long LOCK_GRACE_MS = 60_000;
    /** A lock held this long by another host is reported for the operator (who can break it). */
    static final long OLD_LOCK_MS = 30 * 60_000;

    /**
     * The locks of open jobs. One held by this process's own session that no holder here has in its
     * ledger ({@code HeldLocks}: claimed, queued for a worker, running, handed on) and that has not
     * changed for the grace (measured from its last write: a hand-off rewrites it) is a lock that
     * outlived its work; it is confirmed by a synced read of the same node and, on repair, broken
     * through the one break path, which moves the job's status version. A lock of another host or
     * writer (mrt-zk) is never broken here, whatever its age: one held for long is reported with its
     * owner, for the operator to look at and, if that host is stuck, break.
     */
    void run(FsckPass p) {
        List<String> jids = new ArrayList<>(p.openRefs.keySet());
        Map<String, OpResult> r = store.calls().readMany(jids.stream().map(QueuePaths::jobLock).toList());
        long ours = safeSession();
        long now = System.currentTimeMillis();
        for (String jid : jids) {
            OpResult.GetDataResult lock = ZooKeeperCalls.dataOf(r.get(QueuePaths.jobLock(jid)));
            if (lock == null || now - lock.getStat().getMtime() < lockGraceMs) {
                continue;
            }
            String owner = QueueJson.text(lock.getData());
            String path = QueuePaths.jobLock(jid);
            if (lock.getStat().getEphemeralOwner() == ours) {
                if (store.claims().held().holds(path, lock.getData())) {
                    continue; // held on purpose here: never judged
                }
                orphan(p, jid, lock, owner);
            } else if (now - lock.getStat().getCtime() > OLD_LOCK_MS) {
                p.found.add(new Violation(
                        "old-lock",
                        path,
                        "held for " + (now - lock.getStat().getCtime()) / 60_000 + " min by " + owner
                                + " (break it with POST /api/jobs/" + jid
                                + "/unlock?confirm=true if that host is stuck)",
                        false));
            }
        }
    }

    /**
     * A lock of this session no holder here knows: reported (and,
     * on repair, broken) only if the synced re-read finds it so.
     */
    private void orphan(FsckPass p, String jid, OpResult.GetDataResult seen, String owner) {
        String path = QueuePaths.jobLock(jid);
        String detail = "held by this host's session with no holder here: " + owner;
        if (p.repair) {
            LockBreaks.Outcome o = store.claims().breaks().breakLock(jid, LockBreaks.By.UNATTENDED, seen.getStat(),
                    "orphaned lock (fsck)");
            if (o.broken()) {
                p.found.add(new Violation("orphaned-lock", path, detail, true));
                FsckPass.finding("orphaned-lock", path, "lock broken");
            }
            return; // not broken: it changed, or a holder has it after all: not a finding
        }
        Stat now = store.calls().syncedStat(path);
        if (now != null && now.getCzxid() == seen.getStat().getCzxid() && now.getMzxid() == seen.getStat().getMzxid()
                && !store.claims().held().holds(path, seen.getData())) {
            p.found.add(new Violation("orphaned-lock", path, detail, false));
            FsckPass.finding("orphaned-lock", path, detail);
        }
    }

    private long safeSession() {
        try {
            return store.client().getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            return -1;
        }
    }
}
