package org.cdlib.mrt.ingestqueue.queue.jobs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.cdlib.mrt.ingestqueue.queue.lease.EphemeralLocks;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.lease.JobLock;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionLog;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.space.LockedCommitFailures;
import org.cdlib.mrt.ingestqueue.queue.space.SpaceCounters;
import org.cdlib.mrt.ingestqueue.queue.space.SpaceReservation;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/** Removes a job's nodes under its lock in one transaction: an operator's delete, a batch's removal, a damaged job. */
public final class JobDeletion {
    private final ZooKeeperCalls zk;
    private final TransitionLog log;
    private final SpaceCounters spaceCounters;

    private final EphemeralLocks locks;

    public JobDeletion(ZooKeeperCalls zk, TransitionLog log, SpaceCounters spaceCounters) {
        this(zk, log, spaceCounters, null);
    }

    /** @param locks whose ledger hears that a deleted job's lock went with it (null: none kept) */
    public JobDeletion(ZooKeeperCalls zk, TransitionLog log, SpaceCounters spaceCounters, EphemeralLocks locks) {
        this.locks = locks;
        this.zk = zk;
        this.log = log;
        this.spaceCounters = spaceCounters;
    }

    /**
     * Deletes every node of a locked job that exists — its children, its state references (found
     * by probing each state at the job's priority, or every priority when that is unreadable), its
     * batch references and the job node — in one transaction. Works on a damaged job too (its
     * lock holds no readable job). True when the job was still counted open by its batch.
     */
    public boolean deleteNodes(HeldJob lock, String bid, String reason) {
        String jid = lock.jid();
        Job job = lock.job();
        List<String> probe = new ArrayList<>();
        for (String c : JobNodes.CHILDREN) {
            if (!c.equals("lock")) {
                probe.add(QueuePaths.jobNode(jid, c));
            }
        }
        for (String c : JobNodes.NOT_READ) {
            probe.add(QueuePaths.jobNode(jid, c));
        }
        for (JobState s : JobState.values()) {
            if (s == JobState.DELETED) {
                continue;
            }
            if (job != null) {
                probe.add(QueuePaths.jobRef(s, job.priority(), jid));
            } else {
                for (int p = 0; p < 100; p++) {
                    probe.add(QueuePaths.jobRef(s, p, jid));
                }
            }
        }
        if (bid != null) {
            for (BatchRef r : BatchRef.values()) {
                probe.add(QueuePaths.batchRef(bid, r, jid));
            }
        }
        Map<String, OpResult> r = zk.readMany(probe);
        List<Op> ops = new ArrayList<>();
        if (job != null) {
            ops.add(Op.check(QueuePaths.jobStatus(jid), job.statusVersion()));
        }
        boolean batchRef = false;
        boolean open = false;
        for (String p : probe) {
            if (r.get(p) instanceof OpResult.GetDataResult) { // there, read or left unread for its size
                ops.add(Op.delete(p, -1));
                if (bid != null && p.startsWith(QueuePaths.batchStates(bid) + "/")) {
                    batchRef = true;
                    open |= p.startsWith(QueuePaths.batchRefs(bid, BatchRef.PROCESSING) + "/");
                }
            }
        }
        if (batchRef) {
            ops.add(Op.setData(QueuePaths.batchRefs(bid, BatchRef.PROCESSING), ZooKeeperCalls.EMPTY, -1));
        }
        ops.add(Op.delete(QueuePaths.jobLock(jid), -1));
        ops.add(Op.delete(QueuePaths.job(jid), -1));
        commit(lock, job, ops);
        if (locks != null) {
            locks.removed(lock.lease());
        }
        if (job == null) {
            log.damagedRemoved(jid, bid, reason);
        } else {
            log.job(jid, bid, job.state(), JobState.DELETED, reason);
        }
        return open;
    }

    /**
     * A job deleted in downloading releases its bytes in the same transaction, as a move out of
     * downloading does (a damaged job's state is unknown: fsck's {@link SpaceCheck} finds what it held).
     */
    private void commit(HeldJob lock, Job job, List<Op> deletes) {
        String jid = lock.jid();
        JobLock lease = lock.lease();
        int version = job == null ? -2 : job.statusVersion();
        if (job == null || !SpaceReservation.needsUpdate(job.state(), JobState.DELETED, job.spaceNeeded(), 0, null)) {
            zk.commitLocked(lease.zk, lease.sessionId, "job " + jid, deletes, QueuePaths.jobStatus(jid), version,
                    LockedCommitFailures.QUEUE);
            return;
        }
        spaceCounters.commitLocked(lease, deletes, QueuePaths.jobStatus(jid), version, (now, ops) ->
                SpaceReservation.addUpdate(now, ops, jid, job.state(), JobState.DELETED, job.spaceNeeded(), 0, null));
    }
}
