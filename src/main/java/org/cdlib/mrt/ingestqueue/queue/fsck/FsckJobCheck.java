package org.cdlib.mrt.ingestqueue.queue.fsck;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.errors.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.jobs.JobNodes;
import org.cdlib.mrt.ingestqueue.queue.jobs.MerrittConfiguration;
import org.cdlib.mrt.ingestqueue.queue.layout.WireForm;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.lease.LockBreaks;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.JobStatus;
import org.cdlib.mrt.ingestqueue.queue.model.JobSummary;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.model.QueueTime;
import org.cdlib.mrt.ingestqueue.queue.zk.SizedReads;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consistency check of one job's nodes: the violations found in them and the operations that
 * repair what can be derived, applied in one transaction under the job's own lock.
 */
final class FsckJobCheck {
    private static final Logger LOG = LoggerFactory.getLogger(FsckJobCheck.class);
    final QueueStore store;
    final FsckPass p;
    final String bid;
    final String jid;
    final Map<String, OpResult> r;
    final List<Violation> local = new ArrayList<>();
    final List<Op> ops = new ArrayList<>();
    /** The notices this read of the job gives (unused ARKs); added to the pass once the job is judged. */
    final List<Violation> notices = new ArrayList<>();
    JobState repairedState;
    /** The status as this read found it (null: missing or unreadable for its size). */
    OpResult.GetDataResult statusData;
    /** Whether this pass broke a worker's lock on the job (the status's version moved by one). */
    private boolean broken;

    FsckJobCheck(QueueStore store, FsckPass p, String bid, String jid, Map<String, OpResult> r) {
        this.store = store;
        this.p = p;
        this.bid = bid;
        this.jid = jid;
        this.r = r;
    }

    byte[] data(String child) {
        OpResult.GetDataResult d = ZooKeeperCalls.dataOf(r.get(QueuePaths.jobNode(jid, child)));
        return d == null ? null : d.getData();
    }

    void note(String kind, String path, String detail, Op... fix) {
        local.add(new Violation(kind, path, detail, fix.length > 0));
        ops.addAll(List.of(fix));
    }

    /**
     * Checks the job. A finding is a fact, not a race: what this read of a busy job shows wrong is
     * judged only when a read after a {@code sync} shows it wrong still, with the job's status at
     * the same version before, during and after that read (every move of a job rewrites its status,
     * so nothing of the job moved between). A job that moved meanwhile is not judged; a later pass
     * looks again.
     */
    void run() {
        judge();
        if (local.isEmpty()) {
            p.notices.addAll(notices);
            return;
        }
        List<String> paths = new ArrayList<>(List.of(QueuePaths.job(jid)));
        for (String c : JobNodes.CHILDREN) {
            paths.add(QueuePaths.jobNode(jid, c));
        }
        for (BatchRef ref : BatchRef.values()) {
            paths.add(QueuePaths.batchRef(bid, ref, jid));
        }
        String status = QueuePaths.jobStatus(jid);
        Stat before = store.calls().syncedStat(status);
        Map<String, OpResult> again = store.calls().readMany(paths);
        Stat after = store.calls().stat(status);
        FsckJobCheck second = new FsckJobCheck(store, p, bid, jid, again);
        second.judge();
        int v = statusVersion();
        if ((before == null ? -1 : before.getVersion()) != v || second.statusVersion() != v
                || (after == null ? -1 : after.getVersion()) != v) {
            LOG.debug("job {}: moved while it was checked ({}): not judged", jid,
                    local.stream().map(Violation::kind).toList());
            return;
        }
        if (second.local.isEmpty()) {
            p.notices.addAll(second.notices);
            return;
        }
        second.finish();
    }

    /** Judges this read of the job: its violations and their repairs, nothing reported or written yet. */
    void judge() {
        boolean oversized = false;
        for (String child : JobNodes.CHILDREN) {
            String path = QueuePaths.jobNode(jid, child);
            if (SizedReads.oversizedBytes(r.get(path)) >= 0) {
                note("oversized", path, SizedReads.absence(path, r.get(path)).getMessage()
                        + " (delete the job through the API, or overwrite the node)");
                oversized = true;
            }
        }
        if (oversized) {
            return; // listed; the rest of its checks would read the node as missing and "repair" what is there
        }
        JobSummary summary = summary();
        try {
            if (summary == null || summary.configuration() == null || data("configuration") != null) {
                MerrittConfiguration.read(QueuePaths.jobNode(jid, "configuration"), data("configuration"),
                        store.ingestHome(), bid, jid);
            }
        } catch (CorruptNodeException e) {
            note("corrupt-job", QueuePaths.job(jid),
                    e.getMessage() + " (not derivable: delete the job through the API)");
        }
        // compacted without Merritt neighbours, the job's status alone holds its bid, priority and space_needed
        JobSummary holds = summary != null && summary.configuration() != null && summary.priority() != null
                && summary.spaceNeeded() != null ? summary : null;
        String bidNode = QueuePaths.jobNode(jid, "bid");
        boolean bidInSummary = holds != null && data("bid") == null && bid.equals(holds.configuration().batchId());
        if (!bidInSummary && !bid.equals(QueueJson.text(data("bid")))) {
            note("wrong-bid", bidNode,
                    "is '" + QueueJson.text(data("bid")) + "', the job is in batch " + bid + "'s run of ids",
                    data("bid") == null ? ZooKeeperCalls.create(bidNode, QueueJson.text(bid))
                            : Op.setData(bidNode, QueueJson.text(bid), -1));
        }
        if (data("space_needed") == null && holds != null) {
            // in the summary
        } else if (data("space_needed") == null) {
            note("missing-node", QueuePaths.jobNode(jid, "space_needed"), "missing; 0 until estimated again",
                    ZooKeeperCalls.create(QueuePaths.jobNode(jid, "space_needed"), QueueJson.text(0)));
        } else {
            try {
                long needed = QueueJson.readLong(QueuePaths.jobNode(jid, "space_needed"), data("space_needed"));
                if (needed < 0) {
                    throw new CorruptNodeException(QueuePaths.jobNode(jid, "space_needed"), "negative: " + needed);
                }
            } catch (CorruptNodeException e) {
                // the disk reservation sums it: listed for the operator (estimating writes it again when the job
                // is requeued)
                note("damaged-node", QueuePaths.jobNode(jid, "space_needed"), e.getMessage()
                        + " (requeue the job to estimating, or write its size in bytes)");
            }
        }
        try {
            Identifiers ids = summary != null && data("identifiers") == null ? summary.identifiers()
                    : QueueJson.read(QueuePaths.jobNode(jid, "identifiers"), data("identifiers"), Identifiers.class);
            unusedArks(ids.primary(), summary);
        } catch (CorruptNodeException e) {
            note("corrupt-job", QueuePaths.job(jid),
                    e.getMessage() + " (not derivable: delete the job or write its ARK)");
        }
        Integer priority = null;
        if (holds != null && data("priority") == null) {
            priority = holds.priority();
        } else {
            try {
                priority = QueuePaths.checkPriorityNode(QueuePaths.jobNode(jid, "priority"),
                        QueueJson.readInt(QueuePaths.jobNode(jid, "priority"), data("priority")));
            } catch (CorruptNodeException e) {
                List<String> refs = p.openRefs.getOrDefault(jid, List.of());
                if (refs.size() == 1) {
                    priority = QueuePaths.priorityOfRef(refs.get(0).substring(refs.get(0).lastIndexOf('/') + 1));
                    byte[] text = QueueJson.text(priority);
                    note("corrupt-priority", QueuePaths.jobNode(jid, "priority"),
                            e.getMessage() + "; taken from " + refs.get(0),
                            data("priority") == null ? ZooKeeperCalls.create(QueuePaths.jobNode(jid, "priority"), text)
                                    : Op.setData(QueuePaths.jobNode(jid, "priority"), text, -1));
                } else {
                    note("corrupt-job", QueuePaths.job(jid),
                            e.getMessage() + " (no single reference to derive it from)");
                }
            }
        }
        statusData = ZooKeeperCalls.dataOf(r.get(QueuePaths.jobStatus(jid)));
        JobState state = null;
        try {
            state = QueueJson.read(QueuePaths.jobStatus(jid), statusData == null ? null : statusData.getData(),
                    JobStatus.class).state();
        } catch (RuntimeException e) {
            List<String> refs = p.openRefs.getOrDefault(jid, List.of());
            if (refs.size() == 1) {
                String ref = refs.get(0);
                state = JobState.fromWire(ref.substring(QueuePaths.JOB_STATES.length() + 1, ref.lastIndexOf('/')));
                byte[] rebuilt = QueueJson.write(new JobStatus(state.zk(), null, QueueTime.now(), 0,
                        null));
                String status = QueuePaths.jobStatus(jid);
                note("corrupt-job-status", status, e.getMessage() + "; rebuilt as " + state + " from " + ref,
                        statusData == null ? ZooKeeperCalls.create(status, rebuilt)
                                : ZooKeeperCalls.setData(status, rebuilt, statusData.getStat().getVersion()));
            } else {
                note("corrupt-job", QueuePaths.job(jid), e.getMessage() + " (" + refs.size()
                        + " open references: not derivable)");
            }
        }
        if (state != null) {
            checkWireForm(statusData);
        }
        if (state != null && priority != null) {
            new FsckJobReferences(this).check(state, priority, statusData);
        }
        repairedState = state;
    }

    /** The status's version this read found; -1: missing or unreadable. */
    int statusVersion() {
        OpResult st = r.get(QueuePaths.jobStatus(jid));
        return st instanceof OpResult.GetDataResult d ? d.getStat().getVersion() : -1;
    }

    /** A job written before this queue spoke mrt-zk's form: its status and identifiers rewritten in it. */
    private void checkWireForm(OpResult.GetDataResult statusData) {
        String path = QueuePaths.jobStatus(jid);
        if (WireForm.oldStatus(statusData.getData())) {
            JobStatus s = QueueJson.read(path, statusData.getData(), JobStatus.class);
            note("old-wire-format", path, "written before mrt-zk's form; rewritten in it",
                    ZooKeeperCalls.setData(path, WireForm.status(s), statusData.getStat().getVersion()));
        }
        String ids = QueuePaths.jobNode(jid, "identifiers");
        OpResult.GetDataResult idData = ZooKeeperCalls.dataOf(r.get(ids));
        if (idData != null && WireForm.oldIdentifiers(idData.getData())) {
            try {
                Identifiers i = QueueJson.read(ids, idData.getData(), Identifiers.class);
                note("old-wire-format", ids, "written before mrt-zk's form (primary_id); rewritten in it",
                        ZooKeeperCalls.setData(ids, QueueJson.write(i), idData.getStat().getVersion()));
            } catch (CorruptNodeException e) {
                // reported above as corrupt
            }
        }
    }

    /**
     * A completed job's summary of its removed nodes ({@code JobCompaction}); null for any other, or
     * an unreadable status.
     */
    private JobSummary summary() {
        try {
            return QueueJson.read(QueuePaths.jobStatus(jid), data("status"), JobStatus.class).summary();
        } catch (RuntimeException e) {
            return null; // the status's own check below names it
        }
    }

    /**
     * An ARK the job may have left unused at the minter, from its effects (read with its nodes, or
     * its summary: no read of its own).
     */
    void unusedArks(String primary, JobSummary summary) {
        if (data("effects") == null) {
            if (summary != null) {
                summary.jobEffects().unusedArks(primary).forEach(this::unusedArk);
            }
            return;
        }
        try {
            JobEffects fx = QueueJson.read(QueuePaths.jobNode(jid, "effects"), data("effects"), JobEffects.class);
            fx.unusedArks(primary).forEach(this::unusedArk);
        } catch (CorruptNodeException e) {
            // the job's steps meet a damaged effects node themselves; this check is only the operator's list
        }
    }

    private void unusedArk(JobEffects.UnusedArk u) {
        notices.add(new Violation(u.kind(), QueuePaths.job(jid), "job " + jid + " batch " + bid + ": " + u.detail(),
                false));
    }

    /**
     * Breaks a lock on this damaged job that no live holder has (this session's, in no holder's
     * ledger here: a lock that outlived its work), through the one break path, which moves the
     * status version; a lock a worker holds, here or elsewhere, is left: the job is repaired by a
     * later run. The status version after the break, or -2 when the lock was not broken.
     */
    private int breakOrphanLock() {
        OpResult.GetDataResult seen = ZooKeeperCalls.dataOf(r.get(QueuePaths.jobLock(jid)));
        if (seen == null) {
            return -2; // locked since it was read: a worker took it, repaired by a later run
        }
        LockBreaks.Outcome o = store.claims().breaks().breakLock(jid,
                LockBreaks.By.UNATTENDED, seen.getStat(), "damaged job " + jid
                        + " of batch " + bid + " repaired (fsck)");
        return o.broken() ? o.statusVersion() : -2;
    }

    /**
     * Reports the job's violations (confirmed by the caller) and applies its repairs in one
     * transaction under its lock.
     */
    void finish() {
        boolean applied = false;
        String why = null;
        p.notices.addAll(notices);
        if (p.repair && !ops.isEmpty()) {
            Optional<HeldJob> lock = store.claims().lockJobNode(jid, "fsck");
            int afterBreak = lock.isEmpty() && p.breakLocks ? breakOrphanLock() : -2;
            if (afterBreak != -2) {
                broken = statusData != null;
                lock = store.claims().lockJobNode(jid, "fsck");
            }
            if (lock.isEmpty()) {
                why = "locked by a worker: repaired by a later run";
            } else {
                List<Op> all = new ArrayList<>(ops);
                if (statusData != null && ops.stream().noneMatch(o -> o.getPath().equals(QueuePaths.jobStatus(jid)))) {
                    // the version read, or the one the lock's break left
                    int version = statusData.getStat().getVersion() + (broken ? 1 : 0);
                    all.add(0, Op.check(QueuePaths.jobStatus(jid), version));
                }
                all.add(0, Op.check(QueuePaths.jobLock(jid), -1));
                all.add(Op.delete(QueuePaths.jobLock(jid), -1));
                try {
                    // answered truthfully after a lost connection: read back after a sync
                    store.calls().commit(lock.get().lease().zk, all, ReadBack.of(lock.get().lease().zk, all));
                    store.claims().removed(lock.get());
                    applied = true;
                    LOG.info("repaired job {}: {}", jid, local.stream().map(Violation::kind).toList());
                    if (repairedState != null) {
                        store.moves().repaired(jid, bid, repairedState);
                    }
                } catch (KeeperException | QueueException e) {
                    why = e.getMessage();
                    store.moves().unlock(lock.get());
                }
            }
        }
        for (Violation v : local) {
            boolean fixed = applied && v.repaired();
            FsckPass.finding(v.kind(), v.path(), v.detail() + (fixed ? " (repaired)" : ""));
            p.found.add(new Violation(v.kind(), v.path(), why != null && v.repaired() ? v.detail() + " (" + why + ")"
                    : v.detail(), fixed));
        }
    }
}
