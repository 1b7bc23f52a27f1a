package org.cdlib.mrt.ingestqueue.queue.fsck;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchStatus;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.model.QueueTime;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * A batch whose status node is damaged, rebuilt from what derives it: its job references (the
 * runs of ids are the referenced job numbers, the state is processing while any job is open,
 * else reporting, so the batch reports), or pending when it has no {@code states} node yet. Not
 * derivable, and left for the operator: a damaged submission, references too many to list, and
 * a batch still creating its jobs from its saved manifest (how many remain is in the lost status).
 * The rewrite takes no lock and waits for none: one transaction creates and deletes the batch's
 * lock node (so it fails while anyone holds the batch) and sets the status at the version read.
 */
final class FsckBatchRebuild {
    private final QueueStore store;

    FsckBatchRebuild(QueueStore store) {
        this.store = store;
    }

    /** Why the status cannot be rebuilt; null once it was. */
    String rebuild(String bid) {
        Stat stat = store.calls().stat(QueuePaths.batchStatus(bid));
        if (stat == null) {
            return "no status node to rebuild";
        }
        if (Files.exists(store.ingestHome().resolve(bid).resolve("batch-manifest.checkm"))) {
            return "it was still creating jobs from its manifest: how many remain was in the damaged status";
        }
        BatchStatus rebuilt;
        if (!store.calls().exists(QueuePaths.batchStates(bid))) {
            rebuilt = new BatchStatus(
                    BatchState.PENDING.zk(),
                    QueueTime.now(),
                    0,
                    "rebuilt by the consistency check: no job yet",
                    null,
                    null,
                    null,
                    null);
        } else {
            TreeSet<Long> numbers = new TreeSet<>();
            int open = 0;
            for (BatchRef ref : BatchRef.values()) {
                for (String jid : store.batches().jobs(bid, ref)) { // refused when too many to list: not derivable
                    numbers.add(QueuePaths.jobNumber(jid));
                    open += ref == BatchRef.PROCESSING ? 1 : 0;
                }
            }
            numbers.remove(-1L);
            List<List<Long>> runs = new ArrayList<>();
            for (long n : numbers) {
                List<Long> last = runs.isEmpty() ? null : runs.get(runs.size() - 1);
                if (last != null && last.get(0) + last.get(1) == n) {
                    runs.set(runs.size() - 1, List.of(last.get(0), last.get(1) + 1));
                } else {
                    runs.add(List.of(n, 1L));
                }
            }
            BatchState state = open > 0 ? BatchState.PROCESSING : BatchState.REPORTING;
            rebuilt = new BatchStatus(
                    state.zk(),
                    QueueTime.now(),
                    numbers.size(),
                    "rebuilt by the consistency check from its " + numbers.size() + " job reference(s)",
                    null,
                    numbers.size(),
                    null,
                    runs);
        }
        byte[] data = QueueJson.write(rebuilt);
        if (data.length > QueueLimits.nodeBytes(QueuePaths.batchStatus(bid))) {
            return "its job ids make too many runs to keep in a status node";
        }
        List<Op> ops = new ArrayList<>(List.of(
                Op.create(
                        QueuePaths.batchLock(bid),
                        ZooKeeperCalls.EMPTY,
                        ZooDefs.Ids.OPEN_ACL_UNSAFE,
                        CreateMode.EPHEMERAL),
                Op.delete(QueuePaths.batchLock(bid), -1),
                Op.setData(QueuePaths.batchStatus(bid), data, stat.getVersion())));
        for (BatchState s : BatchState.values()) {
            String index = QueuePaths.batchIndex(s, bid);
            boolean there = store.calls().exists(index);
            if (there != (s == rebuilt.state())) {
                ops.add(there ? Op.delete(index, -1) : ZooKeeperCalls.create(index, ZooKeeperCalls.EMPTY));
            }
        }
        try {
            store.calls().commitUnlocked("rebuild the status of batch " + bid, ops);
        } catch (QueueException e) {
            return "locked or changed meanwhile: rebuilt by a later pass (" + e.getMessage() + ")";
        }
        return null;
    }
}
