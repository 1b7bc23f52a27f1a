package org.cdlib.mrt.ingestqueue.queue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.Op;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * fsck for the queue: walks the tree and reports every place where it breaks the design's
 * invariants — a job with not exactly one state reference, a reference whose state or priority
 * disagrees with the job, a batch reference in the wrong category, references to missing jobs,
 * a job without its batch, a node that is not the JSON it should be. {@link #repair()} derives
 * the truth from each job's status node and fixes each job in one transaction.
 */
public final class ConsistencyCheck {
    private static final Logger LOG = LoggerFactory.getLogger(ConsistencyCheck.class);
    private final QueueStore store;

    public ConsistencyCheck(QueueStore store) {
        this.store = store;
    }

    public record Violation(String kind, String path, String detail, boolean repaired) {
    }

    public record Report(int jobs, int batches, List<Violation> violations) {
        public boolean clean() {
            return violations.isEmpty();
        }
    }

    private record Ref(JobState state, int priority, String path) {
    }

    public Report check() {
        return run(false);
    }

    public Report repair() {
        return run(true);
    }

    private Report run(boolean repair) {
        List<Violation> found = new ArrayList<>();
        Map<String, List<Ref>> refs = new HashMap<>();
        for (JobState s : JobState.values()) {
            if (s == JobState.DELETED) {
                continue;
            }
            for (String name : store.childrenOrEmpty(QueuePaths.jobState(s))) {
                String path = QueuePaths.jobState(s) + "/" + name;
                try {
                    refs.computeIfAbsent(QueuePaths.jidOfRef(name), k -> new ArrayList<>())
                            .add(new Ref(s, QueuePaths.priorityOfRef(name), path));
                } catch (RuntimeException e) {
                    found.add(fix(repair, "bad-reference-name", path, "not PP-JID", List.of(Op.delete(path, -1))));
                }
            }
        }
        List<String> jids = store.childrenOrEmpty(QueuePaths.JOBS).stream().filter(n -> n.startsWith("jid")).sorted().toList();
        for (String jid : jids) {
            checkJob(jid, refs.getOrDefault(jid, List.of()), repair, found);
        }
        for (var e : refs.entrySet()) {
            if (!jids.contains(e.getKey())) {
                for (Ref r : e.getValue()) {
                    found.add(fix(repair, "dangling-reference", r.path(), "no job " + e.getKey(), List.of(Op.delete(r.path(), -1))));
                }
            }
        }
        List<String> bids = store.batchIds();
        for (String bid : bids) {
            checkBatch(bid, jids, repair, found);
        }
        Report report = new Report(jids.size(), bids.size(), List.copyOf(found));
        if (!report.clean()) {
            LOG.warn("consistency check{}: {} violation(s) in {} jobs and {} batches", repair ? " and repair" : "",
                    found.size(), jids.size(), bids.size());
        }
        return report;
    }

    private void checkJob(String jid, List<Ref> refs, boolean repair, List<Violation> found) {
        JobStatus status;
        int priority;
        String bid;
        try {
            status = QueueJson.read(QueuePaths.jobStatus(jid), store.readOrNull(QueuePaths.jobStatus(jid)), JobStatus.class);
            status.state();
            priority = QueueJson.readInt(QueuePaths.jobNode(jid, "priority"), store.readOrNull(QueuePaths.jobNode(jid, "priority")));
            bid = QueueJson.text(store.readOrNull(QueuePaths.jobNode(jid, "bid")));
        } catch (RuntimeException e) {
            found.add(new Violation("corrupt-job", QueuePaths.job(jid), e.getMessage(), false));
            return;
        }
        JobState state = status.state();
        String want = QueuePaths.jobRef(state, priority, jid);
        List<Op> ops = new ArrayList<>();
        boolean wantPresent = false;
        for (Ref r : refs) {
            if (r.path().equals(want)) {
                wantPresent = true;
            } else {
                ops.add(Op.delete(r.path(), -1));
            }
        }
        if (!wantPresent) {
            ops.add(QueueStore.create(want, new byte[0]));
        }
        if (refs.size() != 1 || !wantPresent) {
            String kind = refs.isEmpty() ? "no-reference" : refs.size() > 1 ? "several-references" : "wrong-reference";
            found.add(fix(repair, kind, QueuePaths.job(jid), "status " + state + " priority " + priority + ", references "
                    + refs.stream().map(Ref::path).toList(), ops));
        }
        if (store.readOrNull(QueuePaths.batchStatus(bid)) == null) {
            found.add(new Violation("job-without-batch", QueuePaths.job(jid), "batch " + bid + " does not exist", false));
            return;
        }
        BatchRef expected = state.batchRef();
        List<Op> batchOps = new ArrayList<>();
        for (BatchRef r : BatchRef.values()) {
            String p = QueuePaths.batchRef(bid, r, jid);
            boolean there = store.exists(p);
            if (there && r != expected) {
                batchOps.add(Op.delete(p, -1));
            } else if (!there && r == expected) {
                batchOps.add(QueueStore.create(p, new byte[0]));
            }
        }
        if (!batchOps.isEmpty()) {
            batchOps.add(Op.setData(QueuePaths.batchRefs(bid, BatchRef.PROCESSING), new byte[0], -1));
            found.add(fix(repair, "wrong-batch-reference", QueuePaths.batchStates(bid), jid + " is " + state
                    + ", so belongs under batch-" + expected.name().toLowerCase(), batchOps));
        }
    }

    private void checkBatch(String bid, List<String> jids, boolean repair, List<Violation> found) {
        try {
            QueueJson.read(QueuePaths.batchStatus(bid), store.readOrNull(QueuePaths.batchStatus(bid)), BatchStatus.class).state();
            QueueJson.read(QueuePaths.batchSubmission(bid), store.readOrNull(QueuePaths.batchSubmission(bid)), BatchSubmission.class);
        } catch (RuntimeException e) {
            found.add(new Violation("corrupt-batch", QueuePaths.batch(bid), e.getMessage(), false));
            return;
        }
        for (BatchRef r : BatchRef.values()) {
            for (String jid : store.childrenOrEmpty(QueuePaths.batchRefs(bid, r))) {
                if (!jids.contains(jid)) {
                    String p = QueuePaths.batchRef(bid, r, jid);
                    found.add(fix(repair, "dangling-batch-reference", p, "no job " + jid,
                            List.of(Op.delete(p, -1), Op.setData(QueuePaths.batchRefs(bid, BatchRef.PROCESSING), new byte[0], -1))));
                }
            }
        }
    }

    private Violation fix(boolean repair, String kind, String path, String detail, List<Op> ops) {
        boolean repaired = false;
        if (repair) {
            try {
                store.commitUnlocked("repair " + kind + " at " + path, ops);
                repaired = true;
                LOG.info("repaired {} at {}: {}", kind, path, detail);
            } catch (QueueException e) {
                LOG.warn("cannot repair {} at {}: {}", kind, path, e.getMessage());
            }
        }
        return new Violation(kind, path, detail, repaired);
    }
}
