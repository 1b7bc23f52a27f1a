package org.cdlib.mrt.ingestqueue.queue.fsck;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * A job's state and batch references against its status, for {@link
 * FsckJobCheck}: what it finds is noted there with its repair.
 */
final class FsckJobReferences {
    private final FsckJobCheck job;

    FsckJobReferences(FsckJobCheck job) {
        this.job = job;
    }

    /**
     * The job's state references against its status. The open states' references were listed before
     * this job's nodes were read, and a busy queue moves jobs meanwhile: each one listed is confirmed
     * by the same read as the closed states'. What still looks wrong is read once more with the status,
     * and a job whose status changed since its nodes were read is not judged (a move changes status and
     * references in one transaction), so a job that merely moved is never reported. A sound job's
     * check sends no more requests than before.
     */
    void check(JobState state, int priority, OpResult.GetDataResult statusData) {
        List<String> probe = new ArrayList<>();
        // every state at the job's priority, the open ones too: the open folders' listing is older than
        // this job's read, so a job that entered a state since is found there, not taken for missing
        for (JobState s : JobState.values()) {
            probe.add(QueuePaths.jobRef(s, priority, job.jid));
        }
        job.p.openRefs.getOrDefault(job.jid, List.of()).stream().filter(x -> !probe.contains(x)).forEach(probe::add);
        String want = QueuePaths.jobRef(state, priority, job.jid);
        Set<String> refs = present(probe, job.store.calls().readMany(probe));
        boolean moved = false;
        if (refs.size() != 1 || !refs.contains(want)) {
            String status = QueuePaths.jobStatus(job.jid);
            List<String> again = new ArrayList<>(probe);
            again.add(status);
            Map<String, OpResult> tr = job.store.calls().readMany(again);
            OpResult.GetDataResult now = ZooKeeperCalls.dataOf(tr.get(status));
            moved = statusData != null
                    && (now == null
                            || now.getStat().getVersion()
                                    != statusData.getStat().getVersion());
            refs = present(probe, tr);
        }
        if (!moved && (refs.size() != 1 || !refs.contains(want))) {
            String kind = refs.isEmpty() ? "no-reference" : refs.size() > 1 ? "several-references" : "wrong-reference";
            List<Op> fix = new ArrayList<>();
            refs.stream().filter(x -> !x.equals(want)).forEach(x -> fix.add(Op.delete(x, -1)));
            if (!refs.contains(want)) {
                fix.add(ZooKeeperCalls.create(want, ZooKeeperCalls.EMPTY));
            }
            job.note(
                    kind,
                    QueuePaths.job(job.jid),
                    "status " + state + " priority " + priority + ", references " + refs,
                    fix.toArray(Op[]::new));
        }
        BatchRef expected = state.batchRef();
        List<Op> fix = new ArrayList<>();
        for (BatchRef ref : BatchRef.values()) {
            String path = QueuePaths.batchRef(job.bid, ref, job.jid);
            boolean there = job.r.get(path) instanceof OpResult.GetDataResult;
            if (there != (ref == expected)) {
                fix.add(there ? Op.delete(path, -1) : ZooKeeperCalls.create(path, ZooKeeperCalls.EMPTY));
            }
        }
        if (!fix.isEmpty()) {
            fix.add(Op.setData(QueuePaths.batchRefs(job.bid, BatchRef.PROCESSING), ZooKeeperCalls.EMPTY, -1));
            job.note(
                    "wrong-batch-reference",
                    QueuePaths.batchStates(job.bid),
                    job.jid + " is " + state + ", so belongs under " + expected.node(),
                    fix.toArray(Op[]::new));
        }
    }

    private static Set<String> present(List<String> paths, Map<String, OpResult> read) {
        Set<String> out = new LinkedHashSet<>();
        paths.stream().filter(x -> read.get(x) instanceof OpResult.GetDataResult).forEach(out::add);
        return out;
    }
}
