package org.cdlib.mrt.ingestqueue.queue.fsck;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
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
     * The locks of open jobs: one held by this process's own session with no work in hand here is a
     * lock that outlived its work (repair deletes it); one held for long by another host is reported
     * with its owner, for the operator to look at and, if that host is stuck, break.
     */
    void run(FsckPass p) {
        List<String> jids = new ArrayList<>(p.openRefs.keySet());
        Map<String, OpResult> r = store.calls().readMany(jids.stream().map(QueuePaths::jobLock).toList());
        long ours = safeSession();
        long now = System.currentTimeMillis();
        for (String jid : jids) {
            OpResult.GetDataResult lock = ZooKeeperCalls.dataOf(r.get(QueuePaths.jobLock(jid)));
            if (lock == null || now - lock.getStat().getCtime() < lockGraceMs) {
                continue;
            }
            String owner = QueueJson.text(lock.getData());
            String path = QueuePaths.jobLock(jid);
            if (lock.getStat().getEphemeralOwner() == ours && !store.inHand(jid)) {
                p.found.add(p.unlocked(store, "orphaned-lock", path, "held by this host's session with no work in hand: " + owner,
                        List.of(Op.delete(path, lock.getStat().getVersion()))));
            } else if (lock.getStat().getEphemeralOwner() != ours && now - lock.getStat().getCtime() > OLD_LOCK_MS) {
                p.found.add(new Violation("old-lock", path, "held for " + (now - lock.getStat().getCtime()) / 60_000
                        + " min by " + owner + " (break it with POST /api/jobs/" + jid + "/unlock?confirm=true if that host is stuck)",
                        false));
            }
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
