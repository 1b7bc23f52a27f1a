package org.cdlib.mrt.ingestqueue.queue.fsck;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.batches.MerrittSubmission;
import org.cdlib.mrt.ingestqueue.queue.errors.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.jobs.JobNodes;
import org.cdlib.mrt.ingestqueue.queue.layout.WireForm;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchStatus;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.SizedReads;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * fsck for the queue, bounded at any size: the open state folders are listed (they are small),
 * everything else is walked by number — batches from the oldest that may exist to the newest,
 * each batch's jobs by its run of ids — reading in bounded transactions. Every node of every job
 * and batch is checked: status, submission, configuration, identifiers, priority, space_needed,
 * bid, state references, batch references and index entries, and the disk reservation against
 * the jobs in downloading ({@link SpaceCheck}); each job's effects are read with its other nodes
 * for the ARKs it may have left unused at the minter (notices). {@link #repair()} fixes what can
 * be derived, each job under its own lock with version checks, so it never races a worker; what
 * cannot be derived (a configuration, a submission) is reported for the operator to delete.
 */
public final class ConsistencyCheck {
    private static final Logger LOG = LoggerFactory.getLogger(ConsistencyCheck.class);
    private static final int JOBS_PER_READ = 20;
    private final QueueStore store;

    private final long lockGraceMs;

    public ConsistencyCheck(QueueStore store) {
        this(store, LOCK_GRACE_MS);
    }

    /** @param lockGraceMs how long a lock must have been held before it is judged */
    public ConsistencyCheck(QueueStore store, long lockGraceMs) {
        this.store = store;
        this.lockGraceMs = lockGraceMs;
    }

    /**
     * @param notices what the operator should know that is not the queue's inconsistency and that no
     *                repair can fix: ARKs a job may have left unused at the minter ({@code lost-mint},
     *                {@code unused-ark}), to be removed there. They do not make the report unclean.
     */
    public record Report(int jobs, int batches, List<Violation> violations, List<Violation> notices) {
        public boolean clean() {
            return violations.isEmpty();
        }
    }

    public Report repair() {
        return run(new FsckPass(true, false), store.batches().oldestNumber(), Long.MAX_VALUE);
    }

    /**
     * One bounded pass of the periodic repair ({@code ConsistencySweep}, on the leader): the open
     * state folders, the batches numbered {@code from} .. {@code from + count - 1}, and, when the
     * pass reaches the newest batch, the checks that need every batch seen (open references in no
     * batch, locks, the disk reservation). A damaged job whose lock no live holder has (this
     * session's, in no holder's ledger) is repaired after that lock is broken through the one break
     * path; one a live worker holds, here or elsewhere, is left to a later pass. Returns the report
     * and the next batch number to go on from.
     */
    public Slice repairSlice(long from, int count) {
        return repairSlice(from, count, () -> true);
    }

    /**
     * As above; {@code goOn} is asked between batches (a singleton's lead), and the pass ends early when it says no.
     */
    public Slice repairSlice(long from, int count, BooleanSupplier goOn) {
        long start = Math.max(from, store.batches().oldestNumber());
        long newest = store.batches().newestNumber();
        if (start > newest) {
            start = store.batches().oldestNumber(); // wrapped: the walk starts over
        }
        long end = Math.min(newest + 1, start + count);
        FsckPass pass = new FsckPass(true, true);
        pass.goOn = goOn;
        Report r = run(pass, start, end - 1);
        if (pass.stoppedAt >= 0) {
            LOG.info("consistency sweep: stopped at batch number {}: this host no longer leads", pass.stoppedAt);
            return new Slice(r, start, pass.stoppedAt - 1, pass.stoppedAt);
        }
        return new Slice(r, start, end - 1, end > newest ? store.batches().oldestNumber() : end);
    }

    /** A periodic pass: what it found and repaired, the batches it walked, where the next one starts. */
    public record Slice(Report report, long from, long to, long next) {
    }

    public Report check() {
        return run(new FsckPass(false, false), store.batches().oldestNumber(), Long.MAX_VALUE);
    }

    private Report run(FsckPass p, long fromBatch, long toBatch) {
        boolean repair = p.repair;
        for (JobState s : JobState.values()) {
            if (s.batchRef() != BatchRef.PROCESSING) {
                continue;
            }
            try {
                for (String name : store.jobs().refs(s)) {
                    String path = QueuePaths.jobState(s) + "/" + name;
                    if (QueuePaths.priorityOfRef(name) < 0 || QueuePaths.jobNumber(QueuePaths.jidOfRef(name)) < 0) {
                        p.add(unlocked(p, "bad-reference-name", path, "not PP-JID", List.of(Op.delete(path, -1)),
                                () -> store.calls().syncedStat(path) != null));
                    } else {
                        p.openRefs.computeIfAbsent(QueuePaths.jidOfRef(name), k -> new ArrayList<>()).add(path);
                    }
                }
            } catch (QueueException e) {
                p.found.add(new Violation("unreadable-state", QueuePaths.jobState(s), e.getMessage(), false));
            }
        }
        long newest = store.batches().newestNumber();
        boolean whole = fromBatch <= store.batches().oldestNumber() && toBatch >= newest;
        for (long from = Math.max(fromBatch, store.batches().oldestNumber());
                from <= Math.min(newest, toBatch);
                from += 50) {
            List<String> bids = new ArrayList<>();
            for (long n = from; n <= Math.min(Math.min(newest, toBatch), from + 49); n++) {
                bids.add(QueuePaths.batchId(n));
            }
            Map<String, OpResult> r = store.calls().readMany(bids.stream().map(QueuePaths::batch).toList());
            for (String bid : bids) {
                if (!p.goOn.getAsBoolean()) {
                    p.stoppedAt = QueuePaths.batchNumber(bid);
                    return new Report(p.jobs, p.batches, List.copyOf(p.found), List.copyOf(p.notices));
                }
                if (r.get(QueuePaths.batch(bid)) instanceof OpResult.GetDataResult) {
                    p.batches++;
                    checkBatch(p, bid);
                }
            }
            checkRemoved(
                    p,
                    bids.stream()
                            .filter(b -> !(r.get(QueuePaths.batch(b)) instanceof OpResult.GetDataResult))
                            .toList());
        }
        for (var e : p.openRefs.entrySet()) {
            if (whole && !p.seen.contains(e.getKey())) { // a slice has not seen every batch
                boolean exists = store.calls().exists(QueuePaths.job(e.getKey()));
                for (String ref : e.getValue()) {
                    String jid = e.getKey();
                    p.add(
                            exists
                                    ? new Violation(
                                            "job-without-batch",
                                            QueuePaths.job(jid),
                                            "referenced by " + ref + " but in no batch's run of job ids",
                                            false)
                                    : unlocked(
                                            p,
                                            "dangling-reference",
                                            ref,
                                            "no job " + jid,
                                            List.of(Op.delete(ref, -1)),
                                            () -> store.calls().syncedStat(ref) != null
                                                    && !store.calls().exists(QueuePaths.job(jid))));
                }
            }
        }
        if (whole || toBatch >= newest) {
            new FsckLockCheck(store, lockGraceMs).run(p);
            SpaceCheck.run(store, repair).ifPresent(p.found::add);
        }
        Report report = new Report(p.jobs, p.batches, List.copyOf(p.found), List.copyOf(p.notices));
        if (!report.clean()) {
            LOG.warn("consistency check{}: {} violation(s) in {} jobs and {} batches", repair ? " and repair" : "",
                    p.found.size(), p.jobs, p.batches);
        }
        if (!p.notices.isEmpty()) {
            LOG.info(
                    "consistency check: {} job(s) may have left an unused ARK at the minter (notices)",
                    p.notices.size());
        }
        return report;
    }

    /**
     * Numbers whose root is gone but our indexes still list (a root Merritt's cleanup removed while
     * no host's watch heard it): its number entry and state index entries are dropped. Only the
     * number entries are read for every absent number (one exists each); the index only for those.
     */
    private void checkRemoved(FsckPass p, List<String> absent) {
        if (absent.isEmpty()) {
            return;
        }
        Map<String, OpResult> numbered = store.calls()
                .readMany(absent.stream().map(QueuePaths::batchNumberEntry).toList());
        for (String bid : absent) {
            if (!(numbered.get(QueuePaths.batchNumberEntry(bid)) instanceof OpResult.GetDataResult)) {
                continue;
            }
            List<String> entries = new ArrayList<>(List.of(QueuePaths.batchNumberEntry(bid)));
            for (BatchState s : BatchState.values()) {
                entries.add(QueuePaths.batchIndex(s, bid));
            }
            Set<String> there = present(entries);
            List<Op> ops = there.stream().map(x -> Op.delete(x, -1)).toList();
            p.add(unlocked(
                    p,
                    "index-of-removed-batch",
                    QueuePaths.batch(bid),
                    "no batch " + bid + " but " + there.size() + " index entr" + (there.size() == 1 ? "y" : "ies")
                            + " name it (removed by another writer)",
                    ops,
                    () -> store.calls().syncedStat(QueuePaths.batch(bid)) == null && there.equals(present(entries))));
        }
    }

    /** How long a lock must have been held before it is judged: a claim registers its work a moment after locking. */
    static final long LOCK_GRACE_MS = FsckLockCheck.LOCK_GRACE_MS;

    private void checkBatch(FsckPass p, String bid) {
        Map<String, OpResult> r =
                store.calls().readMany(List.of(QueuePaths.batchStatus(bid), QueuePaths.batchSubmission(bid)));
        BatchStatus status;
        int version;
        try {
            OpResult.GetDataResult st = ZooKeeperCalls.dataOf(r.get(QueuePaths.batchStatus(bid)));
            if (st == null) {
                throw SizedReads.absence(QueuePaths.batchStatus(bid), r.get(QueuePaths.batchStatus(bid)));
            }
            status = QueueJson.read(QueuePaths.batchStatus(bid), st.getData(), BatchStatus.class);
            version = st.getStat().getVersion();
            try {
                status.state();
            } catch (IllegalArgumentException e) {
                throw new CorruptNodeException(QueuePaths.batchStatus(bid), e.getMessage());
            }
            OpResult.GetDataResult sub = ZooKeeperCalls.dataOf(r.get(QueuePaths.batchSubmission(bid)));
            if (SizedReads.oversizedBytes(r.get(QueuePaths.batchSubmission(bid))) >= 0) {
                throw SizedReads.absence(QueuePaths.batchSubmission(bid), r.get(QueuePaths.batchSubmission(bid)));
            }
            MerrittSubmission.read(
                    QueuePaths.batchSubmission(bid), sub == null ? null : sub.getData(), store.ingestHome());
        } catch (CorruptNodeException e) {
            String why = null;
            if (p.repair && QueuePaths.batchStatus(bid).equals(e.path()) && !(e instanceof SizedReads.Oversized)) {
                try {
                    why = new FsckBatchRebuild(store).rebuild(bid);
                } catch (QueueException notDerivable) {
                    why = notDerivable.getMessage();
                }
                if (why == null) {
                    p.found.add(new Violation("corrupt-batch-status", QueuePaths.batchStatus(bid), e.getMessage()
                            + "; rebuilt from the batch's job references", true));
                    checkBatch(p, bid); // readable now: its index entry and its jobs as any batch's
                    return;
                }
            }
            p.found.add(new Violation(
                    e instanceof SizedReads.Oversized ? "oversized" : "corrupt-batch",
                    e instanceof SizedReads.Oversized ? e.path() : QueuePaths.batch(bid),
                    e.getMessage() + (why == null ? "" : " (not rebuilt: " + why + ")")
                            + " (delete the batch through the API)",
                    false));
            // its open jobs are still checked, found by its references (their runs of ids were in the status)
            try {
                List<String> open = store.batches().jobs(bid, BatchRef.PROCESSING);
                for (int i = 0; i < open.size(); i += JOBS_PER_READ) {
                    checkJobs(p, bid, open.subList(i, Math.min(open.size(), i + JOBS_PER_READ)));
                }
            } catch (QueueException unlistable) {
                // references too many to list, or none readable: the batch's own violation says what to do
            }
            return;
        }
        List<String> index = new ArrayList<>();
        for (BatchState s : BatchState.values()) {
            index.add(QueuePaths.batchIndex(s, bid));
        }
        Map<String, OpResult> ir = store.calls().readMany(index);
        String want = QueuePaths.batchIndex(status.state(), bid);
        List<Op> ops = new ArrayList<>(List.of(Op.check(QueuePaths.batchStatus(bid), version)));
        for (String path : index) {
            boolean there = ir.get(path) instanceof OpResult.GetDataResult;
            if (there != path.equals(want)) {
                ops.add(there ? Op.delete(path, -1) : ZooKeeperCalls.create(path, ZooKeeperCalls.EMPTY));
            }
        }
        if (ops.size() > 1) {
            // judged only if a synced re-read finds the status at the version read and the entries as they were
            Set<String> seenEntries = new HashSet<>();
            index.stream().filter(x -> ir.get(x) instanceof OpResult.GetDataResult).forEach(seenEntries::add);
            p.add(unlocked(p, "wrong-index-entry", want, "batch " + bid + " is " + status.state(), ops,
                    () -> sameVersion(QueuePaths.batchStatus(bid), version) && seenEntries.equals(present(index))));
        } else if (WireForm.oldStatus(
                r.get(QueuePaths.batchStatus(bid)) instanceof OpResult.GetDataResult d ? d.getData() : null)) {
            p.add(unlocked(
                    p,
                    "old-wire-format",
                    QueuePaths.batchStatus(bid),
                    "written before mrt-zk's form; rewritten in it",
                    List.of(ZooKeeperCalls.setData(QueuePaths.batchStatus(bid), WireForm.status(status), version)),
                    () -> sameVersion(QueuePaths.batchStatus(bid), version)));
        }
        List<String> all = new ArrayList<>(status.jobIds());
        all.addAll(foreignJobs(bid, status));
        List<String> jids = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            jids.add(all.get(i));
            if (jids.size() == JOBS_PER_READ || i == all.size() - 1) {
                checkJobs(p, bid, jids);
                jids = new ArrayList<>();
            }
        }
    }

    /**
     * Jobs another writer (mrt-zk's {@code createJob}) added to the batch: not in its runs of ids,
     * only in its reference folders. Listed only when those hold more jobs than the batch ever created
     * (each folder's listing is bounded); ours alone never do.
     */
    private List<String> foreignJobs(String bid, BatchStatus status) {
        List<String> folders = Arrays.stream(BatchRef.values()).map(ref -> QueuePaths.batchRefs(bid, ref)).toList();
        Map<String, OpResult> r = store.calls().readMany(folders);
        int referenced = 0;
        for (String f : folders) {
            OpResult.GetDataResult d = ZooKeeperCalls.dataOf(r.get(f));
            referenced += d == null ? 0 : d.getStat().getNumChildren();
        }
        if (referenced <= status.jobsCreated()) {
            return List.of();
        }
        Set<String> ours = new HashSet<>(status.jobIds());
        List<String> extra = new ArrayList<>();
        for (BatchRef ref : BatchRef.values()) {
            store.batches().jobs(bid, ref).stream().filter(j -> !ours.contains(j)).forEach(extra::add);
        }
        return extra;
    }

    private void checkJobs(FsckPass p, String bid, List<String> jids) {
        List<String> paths = new ArrayList<>();
        for (String jid : jids) {
            paths.add(QueuePaths.job(jid));
            for (String c : JobNodes.CHILDREN) {
                paths.add(QueuePaths.jobNode(jid, c));
            }
            for (BatchRef ref : BatchRef.values()) {
                paths.add(QueuePaths.batchRef(bid, ref, jid));
            }
        }
        Map<String, OpResult> r = store.calls().readMany(paths);
        for (String jid : jids) {
            p.seen.add(jid);
            if (!(r.get(QueuePaths.job(jid)) instanceof OpResult.GetDataResult)) {
                for (BatchRef ref : BatchRef.values()) {
                    String path = QueuePaths.batchRef(bid, ref, jid);
                    if (r.get(path) instanceof OpResult.GetDataResult) {
                        p.add(unlocked(
                                p,
                                "dangling-batch-reference",
                                path,
                                "no job " + jid,
                                List.of(
                                        Op.delete(path, -1),
                                        Op.setData(
                                                QueuePaths.batchRefs(bid, BatchRef.PROCESSING),
                                                ZooKeeperCalls.EMPTY,
                                                -1)),
                                () -> store.calls().syncedStat(path) != null
                                        && !store.calls().exists(QueuePaths.job(jid))));
                    }
                }
                continue;
            }
            p.jobs++;
            new FsckJobCheck(store, p, bid, jid, r).run();
        }
    }

    private Violation unlocked(FsckPass p, String kind, String path, String detail, List<Op> ops,
                               BooleanSupplier stillWrong) {
        return p.unlocked(store, kind, path, detail, ops, stillWrong);
    }

    /** Whether a synced read finds the node at {@code version} still. */
    private boolean sameVersion(String path, int version) {
        Stat st = store.calls().syncedStat(path);
        return st != null && st.getVersion() == version;
    }

    private Set<String> present(List<String> paths) {
        Map<String, OpResult> again = store.calls().readMany(paths);
        Set<String> out = new HashSet<>();
        paths.stream().filter(x -> again.get(x) instanceof OpResult.GetDataResult).forEach(out::add);
        return out;
    }
}
