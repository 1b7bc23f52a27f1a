package org.cdlib.mrt.ingestqueue.queue.space;

import org.apache.zookeeper.KeeperException;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * How a failed operation of a commit under a lock reads in the queue's layout, for
 * {@link ZooKeeperCalls#commitLocked}, which knows no path of ours: a counter under {@code /ids}
 * that moved, or a job id another writer took, means the draw is made again; a lock node gone means
 * the lock is no longer held. Here beside the counters and id blocks it speaks of, in the room every
 * committer under a lock (jobs, batches, the disk counters) already uses.
 */
public final class LockedCommitFailures implements ZooKeeperCalls.Failures {
    /** The queue's reading. */
    public static final LockedCommitFailures QUEUE = new LockedCommitFailures();

    private LockedCommitFailures() {
    }

    @Override
    public boolean counterMoved(String path, KeeperException.Code code) {
        return path.startsWith(QueuePaths.IDS) && code == KeeperException.Code.BADVERSION
                || code == KeeperException.Code.NODEEXISTS && path.matches("/jobs/jid\\d{10}");
    }

    @Override
    public boolean lockGone(String path, KeeperException.Code code) {
        return path.endsWith("/lock") && code == KeeperException.Code.NONODE;
    }
}
