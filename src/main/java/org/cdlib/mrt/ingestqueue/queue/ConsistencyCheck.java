package org.cdlib.mrt.ingestqueue.queue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * fsck for the queue, bounded at any size: the open state folders are listed (they are small),
 * everything else is walked by number — batches from the oldest that may exist to the newest,
 * each batch's jobs by its run of ids — reading in bounded transactions. Every node of every job
 * and batch is checked: status, submission, configuration, identifiers, priority, space_needed,
 * bid, state references, batch references and index entries. {@link #repair()} fixes what can
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
    ConsistencyCheck(QueueStore store, long lockGraceMs) {
        this.store = store;
        this.lockGraceMs = lockGraceMs;
    }

    public record Violation(String kind, String path, String detail, boolean repaired) {
    }

    public record Report(int jobs, int batches, List<Violation> violations) {
        public boolean clean() {
            return violations.isEmpty();
        }
    }

    public Report check() {
        return run(false);
    }

    public Report repair() {
        return run(true);
    }

    private final class Pass {
        final boolean repair;
        final List<Violation> found = new ArrayList<>();
        final Map<String, List<String>> openRefs = new HashMap<>();
        final Set<String> seen = new LinkedHashSet<>();
        int jobs;
        int batches;

        Pass(boolean repair) {
            this.repair = repair;
        }
    }

    private Report run(boolean repair) {
        Pass p = new Pass(repair);
        for (JobState s : JobState.values()) {
            if (s.batchRef() != BatchRef.PROCESSING) {
                continue;
            }
            try {
                for (String name : store.jobRefs(s)) {
                    String path = QueuePaths.jobState(s) + "/" + name;
                    if (QueuePaths.priorityOfRef(name) < 0 || QueuePaths.jobNumber(QueuePaths.jidOfRef(name)) < 0) {
                        p.found.add(unlocked(p, "bad-reference-name", path, "not PP-JID", List.of(Op.delete(path, -1))));
                    } else {
                        p.openRefs.computeIfAbsent(QueuePaths.jidOfRef(name), k -> new ArrayList<>()).add(path);
                    }
                }
            } catch (QueueException e) {
                p.found.add(new Violation("unreadable-state", QueuePaths.jobState(s), e.getMessage(), false));
            }
        }
        long newest = store.newestBatchNumber();
        for (long from = store.oldestBatchNumber(); from <= newest; from += 50) {
            List<String> bids = new ArrayList<>();
            for (long n = from; n <= Math.min(newest, from + 49); n++) {
                bids.add(QueuePaths.batchId(n));
            }
            Map<String, OpResult> r = store.calls().readMany(bids.stream().map(QueuePaths::batch).toList());
            for (String bid : bids) {
                if (r.get(QueuePaths.batch(bid)) instanceof OpResult.GetDataResult) {
                    p.batches++;
                    checkBatch(p, bid);
                }
            }
        }
        for (var e : p.openRefs.entrySet()) {
            if (!p.seen.contains(e.getKey())) {
                boolean exists = store.calls().exists(QueuePaths.job(e.getKey()));
                for (String ref : e.getValue()) {
                    p.found.add(exists ? new Violation("job-without-batch", QueuePaths.job(e.getKey()),
                            "referenced by " + ref + " but in no batch's run of job ids", false)
                            : unlocked(p, "dangling-reference", ref, "no job " + e.getKey(), List.of(Op.delete(ref, -1))));
                }
            }
        }
        checkLocks(p);
        Report report = new Report(p.jobs, p.batches, List.copyOf(p.found));
        if (!report.clean()) {
            LOG.warn("consistency check{}: {} violation(s) in {} jobs and {} batches", repair ? " and repair" : "",
                    p.found.size(), p.jobs, p.batches);
        }
        return report;
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
    private void checkLocks(Pass p) {
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
                p.found.add(unlocked(p, "orphaned-lock", path, "held by this host's session with no work in hand: " + owner,
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

    private void checkBatch(Pass p, String bid) {
        Map<String, OpResult> r = store.calls().readMany(List.of(QueuePaths.batchStatus(bid), QueuePaths.batchSubmission(bid)));
        BatchStatus status;
        int version;
        try {
            OpResult.GetDataResult st = ZooKeeperCalls.dataOf(r.get(QueuePaths.batchStatus(bid)));
            if (st == null) {
                throw new CorruptNodeException(QueuePaths.batchStatus(bid), "missing");
            }
            status = QueueJson.read(QueuePaths.batchStatus(bid), st.getData(), BatchStatus.class);
            version = st.getStat().getVersion();
            try {
                status.state();
            } catch (IllegalArgumentException e) {
                throw new CorruptNodeException(QueuePaths.batchStatus(bid), e.getMessage());
            }
            OpResult.GetDataResult sub = ZooKeeperCalls.dataOf(r.get(QueuePaths.batchSubmission(bid)));
            QueueJson.read(QueuePaths.batchSubmission(bid), sub == null ? null : sub.getData(), BatchSubmission.class);
        } catch (CorruptNodeException e) {
            p.found.add(new Violation("corrupt-batch", QueuePaths.batch(bid), e.getMessage()
                    + " (not derivable: delete the batch through the API)", false));
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
            p.found.add(unlocked(p, "wrong-index-entry", want, "batch " + bid + " is " + status.state(), ops));
        }
        if (status.firstJob() == null) {
            return;
        }
        List<String> jids = new ArrayList<>();
        for (int i = 0; i < status.jobsCreated(); i++) {
            jids.add(QueuePaths.jobId(status.firstJob() + i));
            if (jids.size() == JOBS_PER_READ || i == status.jobsCreated() - 1) {
                checkJobs(p, bid, jids);
                jids = new ArrayList<>();
            }
        }
    }

    private void checkJobs(Pass p, String bid, List<String> jids) {
        List<String> paths = new ArrayList<>();
        for (String jid : jids) {
            paths.add(QueuePaths.job(jid));
            for (String c : JobRecords.CHILDREN) {
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
                        p.found.add(unlocked(p, "dangling-batch-reference", path, "no job " + jid, List.of(Op.delete(path, -1),
                                Op.setData(QueuePaths.batchRefs(bid, BatchRef.PROCESSING), ZooKeeperCalls.EMPTY, -1))));
                    }
                }
                continue;
            }
            p.jobs++;
            new JobCheck(p, bid, jid, r).run();
        }
    }

    /** One job's nodes, the violations found in them and the operations that repair what can be derived. */
    private final class JobCheck {
        final Pass p;
        final String bid;
        final String jid;
        final Map<String, OpResult> r;
        final List<Violation> local = new ArrayList<>();
        final List<Op> ops = new ArrayList<>();
        JobState repairedState;

        JobCheck(Pass p, String bid, String jid, Map<String, OpResult> r) {
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

        void run() {
            try {
                QueueJson.read(QueuePaths.jobNode(jid, "configuration"), data("configuration"), JobConfiguration.class);
            } catch (CorruptNodeException e) {
                note("corrupt-job", QueuePaths.job(jid), e.getMessage() + " (not derivable: delete the job through the API)");
            }
            String bidNode = QueuePaths.jobNode(jid, "bid");
            if (!bid.equals(QueueJson.text(data("bid")))) {
                note("wrong-bid", bidNode, "is '" + QueueJson.text(data("bid")) + "', the job is in batch " + bid + "'s run of ids",
                        data("bid") == null ? ZooKeeperCalls.create(bidNode, QueueJson.text(bid))
                                : Op.setData(bidNode, QueueJson.text(bid), -1));
            }
            if (data("space_needed") == null) {
                note("missing-node", QueuePaths.jobNode(jid, "space_needed"), "missing; 0 until estimated again",
                        ZooKeeperCalls.create(QueuePaths.jobNode(jid, "space_needed"), QueueJson.text(0)));
            }
            try {
                QueueJson.read(QueuePaths.jobNode(jid, "identifiers"), data("identifiers"), Identifiers.class);
            } catch (CorruptNodeException e) {
                note("corrupt-job", QueuePaths.job(jid), e.getMessage() + " (not derivable: delete the job or write its ARK)");
            }
            Integer priority = null;
            try {
                priority = QueuePaths.checkPriorityNode(QueuePaths.jobNode(jid, "priority"),
                        QueueJson.readInt(QueuePaths.jobNode(jid, "priority"), data("priority")));
            } catch (CorruptNodeException e) {
                List<String> refs = p.openRefs.getOrDefault(jid, List.of());
                if (refs.size() == 1) {
                    priority = QueuePaths.priorityOfRef(refs.get(0).substring(refs.get(0).lastIndexOf('/') + 1));
                    byte[] text = QueueJson.text(priority);
                    note("corrupt-priority", QueuePaths.jobNode(jid, "priority"), e.getMessage() + "; taken from " + refs.get(0),
                            data("priority") == null ? ZooKeeperCalls.create(QueuePaths.jobNode(jid, "priority"), text)
                                    : Op.setData(QueuePaths.jobNode(jid, "priority"), text, -1));
                } else {
                    note("corrupt-job", QueuePaths.job(jid), e.getMessage() + " (no single reference to derive it from)");
                }
            }
            OpResult.GetDataResult statusData = ZooKeeperCalls.dataOf(r.get(QueuePaths.jobStatus(jid)));
            JobState state = null;
            try {
                state = QueueJson.read(QueuePaths.jobStatus(jid), statusData == null ? null : statusData.getData(),
                        JobStatus.class).state();
            } catch (RuntimeException e) {
                List<String> refs = p.openRefs.getOrDefault(jid, List.of());
                if (refs.size() == 1) {
                    String ref = refs.get(0);
                    state = JobState.fromWire(ref.substring(QueuePaths.JOB_STATES.length() + 1, ref.lastIndexOf('/')));
                    byte[] rebuilt = QueueJson.write(new JobStatus(state.wire(), null, java.time.Instant.now().toString(), 0,
                            null));
                    note("corrupt-job-status", QueuePaths.jobStatus(jid), e.getMessage() + "; rebuilt as " + state + " from " + ref,
                            statusData == null ? ZooKeeperCalls.create(QueuePaths.jobStatus(jid), rebuilt)
                                    : ZooKeeperCalls.setData(QueuePaths.jobStatus(jid), rebuilt, statusData.getStat().getVersion()));
                } else {
                    note("corrupt-job", QueuePaths.job(jid), e.getMessage() + " (" + refs.size()
                            + " open references: not derivable)");
                }
            }
            if (state != null && priority != null) {
                checkReferences(state, priority);
            }
            repairedState = state;
            finish(statusData);
        }

        void checkReferences(JobState state, int priority) {
            List<String> probe = new ArrayList<>();
            for (JobState s : JobState.values()) {
                if (s != JobState.DELETED && s.batchRef() != BatchRef.PROCESSING) {
                    probe.add(QueuePaths.jobRef(s, priority, jid));
                }
            }
            Map<String, OpResult> tr = store.calls().readMany(probe);
            Set<String> refs = new LinkedHashSet<>(p.openRefs.getOrDefault(jid, List.of()));
            probe.stream().filter(x -> tr.get(x) instanceof OpResult.GetDataResult).forEach(refs::add);
            String want = QueuePaths.jobRef(state, priority, jid);
            if (refs.size() != 1 || !refs.contains(want)) {
                String kind = refs.isEmpty() ? "no-reference" : refs.size() > 1 ? "several-references" : "wrong-reference";
                List<Op> fix = new ArrayList<>();
                refs.stream().filter(x -> !x.equals(want)).forEach(x -> fix.add(Op.delete(x, -1)));
                if (!refs.contains(want)) {
                    fix.add(ZooKeeperCalls.create(want, ZooKeeperCalls.EMPTY));
                }
                note(kind, QueuePaths.job(jid), "status " + state + " priority " + priority + ", references " + refs,
                        fix.toArray(Op[]::new));
            }
            BatchRef expected = state.batchRef();
            List<Op> fix = new ArrayList<>();
            for (BatchRef ref : BatchRef.values()) {
                String path = QueuePaths.batchRef(bid, ref, jid);
                boolean there = r.get(path) instanceof OpResult.GetDataResult;
                if (there != (ref == expected)) {
                    fix.add(there ? Op.delete(path, -1) : ZooKeeperCalls.create(path, ZooKeeperCalls.EMPTY));
                }
            }
            if (!fix.isEmpty()) {
                fix.add(Op.setData(QueuePaths.batchRefs(bid, BatchRef.PROCESSING), ZooKeeperCalls.EMPTY, -1));
                note("wrong-batch-reference", QueuePaths.batchStates(bid), jid + " is " + state + ", so belongs under "
                        + expected.node(), fix.toArray(Op[]::new));
            }
        }

        /** Applies the job's repairs in one transaction under its lock (a worker's lock means: next time). */
        void finish(OpResult.GetDataResult statusData) {
            boolean applied = false;
            String why = null;
            if (p.repair && !ops.isEmpty()) {
                Optional<JobLock> lock = store.lockJobNode(jid, "fsck");
                if (lock.isEmpty()) {
                    why = "locked by a worker: repaired by a later run";
                } else {
                    List<Op> all = new ArrayList<>(ops);
                    if (statusData != null && ops.stream().noneMatch(o -> o.getPath().equals(QueuePaths.jobStatus(jid)))) {
                        all.add(0, Op.check(QueuePaths.jobStatus(jid), statusData.getStat().getVersion()));
                    }
                    all.add(Op.delete(QueuePaths.jobLock(jid), -1));
                    try {
                        store.commitUnderLock(lock.get(), "repair job " + jid, all);
                        applied = true;
                        LOG.info("repaired job {}: {}", jid, local.stream().map(Violation::kind).toList());
                        if (repairedState != null) {
                            store.repaired(jid, bid, repairedState);
                        }
                    } catch (QueueException e) {
                        why = e.getMessage();
                        store.unlock(lock.get());
                    }
                }
            }
            for (Violation v : local) {
                boolean fixed = applied && v.repaired();
                p.found.add(new Violation(v.kind(), v.path(), why != null && v.repaired() ? v.detail() + " (" + why + ")"
                        : v.detail(), fixed));
            }
        }
    }

    private Violation unlocked(Pass p, String kind, String path, String detail, List<Op> ops) {
        boolean repaired = false;
        if (p.repair) {
            try {
                store.calls().commitUnlocked("repair " + kind + " at " + path, ops);
                repaired = true;
                LOG.info("repaired {} at {}: {}", kind, path, detail);
            } catch (QueueException e) {
                LOG.warn("cannot repair {} at {}: {}", kind, path, e.getMessage());
            }
        }
        return new Violation(kind, path, detail, repaired);
    }
}
