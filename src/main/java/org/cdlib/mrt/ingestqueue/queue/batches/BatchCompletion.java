package org.cdlib.mrt.ingestqueue.queue.batches;

import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.errors.NotFoundException;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionLog;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchStatus;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * Where a batch's completion is decided: by the move of its last job (or its own move into
 * processing), and by the reporting sweep as the safety net; both ask here.
 */
final class BatchCompletion {
    private final ZooKeeperCalls zk;
    private final TransitionLog log;

    BatchCompletion(ZooKeeperCalls zk, TransitionLog log) {
        this.zk = zk;
        this.log = log;
    }

    /**
     * Processing → reporting when no job of the batch is left in batch-processing and every job
     * exists. Exact: the transaction checks that the category did not change since it was seen
     * empty, and that no one holds the batch lock. True when this call moved the batch.
     */
    public boolean startReportingIfDone(String bid) {
        try {
            Stat refsStat = zk.stat(QueuePaths.batchRefs(bid, BatchRef.PROCESSING));
            if (refsStat == null || refsStat.getNumChildren() > 0) {
                return false;
            }
            Stat statusStat = new Stat();
            BatchStatus status = QueueJson.read(
                    QueuePaths.batchStatus(bid), zk.read(QueuePaths.batchStatus(bid), statusStat), BatchStatus.class);
            if (status.state() != BatchState.PROCESSING) {
                return false;
            }
            List<Op> ops = new ArrayList<>();
            ops.add(Op.check(QueuePaths.batchRefs(bid, BatchRef.PROCESSING), refsStat.getVersion()));
            ops.add(ZooKeeperCalls.setData(
                    QueuePaths.batchStatus(bid),
                    QueueJson.write(status.moved(BatchState.REPORTING, null)),
                    statusStat.getVersion()));
            BatchTransactions.addIndexMove(ops, bid, BatchState.PROCESSING, BatchState.REPORTING);
            ops.add(Op.create(
                    QueuePaths.batchLock(bid),
                    ZooKeeperCalls.EMPTY,
                    ZooDefs.Ids.OPEN_ACL_UNSAFE,
                    CreateMode.EPHEMERAL));
            ops.add(Op.delete(QueuePaths.batchLock(bid), -1));
            zk.commit(zk.currentHandle(), ops, () -> {
                Stat now = zk.stat(QueuePaths.batchStatus(bid));
                return now != null && now.getVersion() == statusStat.getVersion() + 1;
            });
            log.batch(bid, BatchState.PROCESSING, BatchState.REPORTING, "last job ended");
            return true;
        } catch (NotFoundException | KeeperException.NoNodeException | KeeperException.BadVersionException
                 | KeeperException.NodeExistsException e) {
            return false; // a job moved, the batch moved, or someone holds the batch: a later check decides
        } catch (KeeperException e) {
            throw new QueueException("cannot check batch " + bid + " for completion: " + e.getMessage(), e);
        }
    }
}
