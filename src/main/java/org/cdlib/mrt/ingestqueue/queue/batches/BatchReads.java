package org.cdlib.mrt.ingestqueue.queue.batches;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.errors.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.errors.NotFoundException;
import org.cdlib.mrt.ingestqueue.queue.jobs.JobNodes;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchStatus;
import org.cdlib.mrt.ingestqueue.queue.model.Damaged;
import org.cdlib.mrt.ingestqueue.queue.model.FolderChanges;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.model.StatusReport;
import org.cdlib.mrt.ingestqueue.queue.space.IdBlocks;
import org.cdlib.mrt.ingestqueue.queue.zk.SizedReads;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * Reads of batches: one batch whole (submission, status, report, lock, its job counts) in one read
 * transaction, many batches' statuses, the open states' batches, each state's count, and the range
 * of batch numbers that may exist. Writes are {@link BatchTransactions}'.
 */
final class BatchReads {
    private final ZooKeeperCalls zk;
    private final Path ingestHome;

    BatchReads(ZooKeeperCalls zk, Path ingestHome) {
        this.zk = zk;
        this.ingestHome = ingestHome;
    }

    /** Submission, status, report, lock and the job counts of each category, in one read transaction. */
    Batch load(String bid) {
        String sub = QueuePaths.batchSubmission(bid);
        String st = QueuePaths.batchStatus(bid);
        String rep = QueuePaths.batchStatusReport(bid);
        List<String> paths = new ArrayList<>(List.of(sub, st, rep, QueuePaths.batchLock(bid)));
        for (BatchRef r : BatchRef.values()) {
            paths.add(QueuePaths.batchRefs(bid, r));
        }
        Map<String, OpResult> r = zk.readMany(paths);
        OpResult.GetDataResult status = ZooKeeperCalls.dataOf(r.get(st));
        if (status == null) {
            if (ZooKeeperCalls.dataOf(r.get(sub)) == null && !zk.exists(QueuePaths.batch(bid))) {
                throw new NotFoundException("no batch " + bid);
            }
            throw SizedReads.absence(st, r.get(st));
        }
        OpResult.GetDataResult submission = ZooKeeperCalls.dataOf(r.get(sub));
        if (submission == null) {
            throw SizedReads.absence(sub, r.get(sub));
        }
        OpResult.GetDataResult report = ZooKeeperCalls.dataOf(r.get(rep));
        Map<BatchRef, Integer> counts = new EnumMap<>(BatchRef.class);
        long ended = 0;
        for (BatchRef ref : BatchRef.values()) {
            OpResult.GetDataResult folder = ZooKeeperCalls.dataOf(r.get(QueuePaths.batchRefs(bid, ref)));
            counts.put(ref, folder == null ? 0 : folder.getStat().getNumChildren());
            if (ref == BatchRef.COMPLETED || ref == BatchRef.FAILED) {
                ended += FolderChanges.of(folder == null ? null : folder.getStat()).created();
            }
        }
        BatchStatus s = QueueJson.read(st, status.getData(), BatchStatus.class);
        try {
            s.state();
        } catch (IllegalArgumentException e) {
            throw new CorruptNodeException(st, e.getMessage());
        }
        return new Batch(bid, MerrittSubmission.read(sub, submission.getData(), ingestHome), s,
                report == null ? null : QueueJson.read(rep, report.getData(), StatusReport.class),
                counts, status.getStat().getVersion(),
                JobNodes.lockOwner(QueuePaths.batchLock(bid), ZooKeeperCalls.dataOf(r.get(QueuePaths.batchLock(bid)))),
                ended, status.getStat().getCtime());
    }

    /** Statuses of many batches in bounded read transactions; a vanished batch is left out, a damaged one named. */
    Map<String, BatchStatus> statuses(List<String> bids, Consumer<Damaged> damaged) {
        Map<String, OpResult> r = zk.readMany(bids.stream().map(QueuePaths::batchStatus).toList());
        Map<String, BatchStatus> out = new LinkedHashMap<>();
        for (String bid : bids) {
            OpResult.GetDataResult d = ZooKeeperCalls.dataOf(r.get(QueuePaths.batchStatus(bid)));
            if (d == null) {
                continue;
            }
            try {
                BatchStatus s = QueueJson.read(QueuePaths.batchStatus(bid), d.getData(), BatchStatus.class);
                s.state();
                out.put(bid, s);
            } catch (CorruptNodeException e) {
                damaged.accept(Damaged.of("batch", bid, e));
            } catch (IllegalArgumentException e) {
                damaged.accept(new Damaged("batch", bid, QueuePaths.batchStatus(bid), e.getMessage()));
            }
        }
        return out;
    }

    /** The batches of an open state, oldest first (bounded: open batches are capped at submission). */
    List<String> ids(BatchState state) {
        return zk.children(QueuePaths.batchIndex(state)).stream().sorted().toList();
    }

    /** How many batches each state holds, from the index folders' {@code Stat}, in one read transaction. */
    Map<BatchState, Integer> counts() {
        Map<BatchState, String> paths = new EnumMap<>(BatchState.class);
        for (BatchState s : BatchState.values()) {
            paths.put(s, QueuePaths.batchIndex(s));
        }
        Map<String, OpResult> r = zk.readMany(List.copyOf(paths.values()));
        Map<BatchState, Integer> counts = new EnumMap<>(BatchState.class);
        paths.forEach((s, p) -> {
            OpResult.GetDataResult d = ZooKeeperCalls.dataOf(r.get(p));
            counts.put(s, d == null ? 0 : d.getStat().getNumChildren());
        });
        return counts;
    }

    /** The highest number a batch id can have now: below /batches's child version ({@link IdBlocks}). */
    long newestNumber() {
        return IdBlocks.next(zk, QueuePaths.BATCHES) - 1;
    }

    /**
     * The highest number drawn under {@code /batches}, from its {@code Stat} alone (-1: no folder). The
     * server numbers a sequential child from a counter that every create of a child moves on by one
     * (deletes do not: {@code IdBlocks}); the {@code cversion} counts creates and deletes, and the
     * children left are creates less deletes, so the creates ever made are
     * {@code (cversion + children) / 2} (the folder was made empty). Not the {@code cversion} itself
     * ({@link #newestNumber}), which deletes move too (reserved ids, cleanup), by about as much as
     * creates: a walk up to it passes numbers nobody has drawn yet.
     */
    long drawnNumber() {
        Stat st = zk.stat(QueuePaths.BATCHES);
        if (st == null) {
            return -1;
        }
        return (Integer.toUnsignedLong(st.getCversion()) + st.getNumChildren()) / 2 - 1;
    }

    /** The lowest batch number that may still exist (cleanup moves it up). */
    long oldestNumber() {
        byte[] d = zk.readOrNull(QueuePaths.OLDEST_BATCH);
        return d == null ? 0 : Math.max(0, QueueJson.readLong(QueuePaths.OLDEST_BATCH, d));
    }
}
