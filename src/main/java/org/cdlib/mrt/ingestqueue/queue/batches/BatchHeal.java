package org.cdlib.mrt.ingestqueue.queue.batches;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchStatus;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Heals what this queue derives from one batch's nodes, whoever wrote them ({@link BatchWatch} names
 * the batches, on its one thread):
 * <ul>
 * <li>a batch made through mrt-zk's {@code createBatch}, nobody's yet: the intake takes it now
 * ({@link MerrittBatches#takeNow}), whatever number it drew;</li>
 * <li>its status changed (mrt-zk's {@code set_status}: the Admin Tool's update-reporting and delete,
 * Merritt's Processing → Failed): the state index entry follows the status, in one transaction that
 * checks the status version (a batch leaving the open states also leaves its depositor's count), one
 * log line per heal; a batch set Deleted is handed on ({@link #onDeleted}) to be removed;</li>
 * <li>its root deleted (mrt-zk's {@code delete_completed_batches}): its index, number and depositor
 * entries go.</li>
 * </ul>
 * Our own moves write the index with the status, so a batch they moved reads as agreeing (one read
 * transaction). Every write is idempotent and version-checked: hosts racing on one event lose harmlessly.
 */
final class BatchHeal {
    private static final Logger LOG = LoggerFactory.getLogger(BatchHeal.class);
    /** Depositors of open batches remembered for a root removed before its heal was seen. */
    private static final int DEPOSITORS_KEPT = 10_000;

    private final ZooKeeperCalls zk;
    private final Batches batches;
    private final MerrittBatches intake;
    private final Map<String, String> depositors = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > DEPOSITORS_KEPT;
        }
    };
    private final AtomicLong heals = new AtomicLong();
    /** Told of a batch Merritt's tools set Deleted once the index follows (the service removes it then). */
    private volatile Consumer<String> onDeleted = bid -> { };

    BatchHeal(ZooKeeperCalls zk, Batches batches, MerrittBatches intake) {
        this.zk = zk;
        this.batches = batches;
        this.intake = intake;
    }

    void onDeleted(Consumer<String> then) {
        this.onDeleted = then;
    }

    /** Heals made (index entries moved or dropped) since the start. */
    long heals() {
        return heals.get();
    }

    /**
     * Makes what we derive of one batch agree with its nodes: taken when it is a new Merritt
     * batch, its index entry moved to its status, its entries dropped when its root is gone.
     * False when a removed batch's entries could not be dropped now: the caller looks at it again.
     */
    boolean reconcile(String bid) {
        List<String> paths = new ArrayList<>(List.of(QueuePaths.batch(bid), QueuePaths.batchStatus(bid),
                QueuePaths.batchStates(bid), QueuePaths.batchNumberEntry(bid)));
        for (BatchState s : BatchState.values()) {
            paths.add(QueuePaths.batchIndex(s, bid));
        }
        Map<String, OpResult> r = zk.readMany(paths);
        List<BatchState> indexed = new ArrayList<>();
        for (BatchState s : BatchState.values()) {
            if (r.get(QueuePaths.batchIndex(s, bid)) instanceof OpResult.GetDataResult) {
                indexed.add(s);
            }
        }
        if (!(r.get(QueuePaths.batch(bid)) instanceof OpResult.GetDataResult)) {
            return forget(bid, indexed, r.get(QueuePaths.batchNumberEntry(bid)) instanceof OpResult.GetDataResult);
        }
        OpResult.GetDataResult status = ZooKeeperCalls.dataOf(r.get(QueuePaths.batchStatus(bid)));
        if (status == null) {
            return true; // being created (its status's creation is heard), or damaged (fsck names it)
        }
        if (indexed.isEmpty() && ZooKeeperCalls.dataOf(r.get(QueuePaths.batchStates(bid))) == null) {
            intake.takeNow(bid); // a batch made through mrt-zk's createBatch, nobody's yet
            return true;
        }
        BatchState state;
        try {
            state = QueueJson.read(QueuePaths.batchStatus(bid), status.getData(), BatchStatus.class).state();
        } catch (RuntimeException damaged) {
            return true; // fsck names it
        }
        boolean numbered = r.get(QueuePaths.batchNumberEntry(bid)) instanceof OpResult.GetDataResult;
        if (indexed.equals(List.of(state)) && numbered) {
            return true; // our own moves write the index with the status
        }
        heal(bid, state, status.getStat().getVersion(), indexed, numbered);
        return true;
    }

    private void heal(String bid, BatchState state, int version, List<BatchState> indexed, boolean numbered) {
        List<Op> ops = new ArrayList<>();
        ops.add(Op.check(QueuePaths.batchStatus(bid), version));
        for (BatchState s : indexed) {
            if (s != state) {
                ops.add(Op.delete(QueuePaths.batchIndex(s, bid), -1));
            }
        }
        if (!indexed.contains(state)) {
            ops.add(ZooKeeperCalls.create(QueuePaths.batchIndex(state, bid), ZooKeeperCalls.EMPTY));
        }
        if (!numbered) {
            batches.numbers().ensureBucket(QueuePaths.batchNumber(bid));
            ops.add(BatchNumbers.enter(bid));
            ops.add(OldestMark.read(zk).lowerTo(QueuePaths.batchNumber(bid))); // the mark never above an entry
        }
        String entry = depositorEntry(bid);
        if (BatchState.OPEN.contains(state)) {
            remember(bid);
        } else if (entry != null && zk.exists(entry)) {
            // out of the open states: its depositor's count goes down with it, as our moves do
            ops.add(Op.delete(entry, -1));
        }
        try {
            zk.commitUnlocked("heal the index of batch " + bid, ops);
        } catch (QueueException raced) {
            // the status moved again (its event follows), or another host healed it first
            LOG.debug("batch {}: heal not written ({}); the next event or resync looks again", bid,
                    raced.getMessage());
            return;
        }
        heals.incrementAndGet();
        LOG.info("batch {}: {} -> {}: set by Merritt's tools; our batch index follows its status", bid,
                wires(indexed), state.wire());
        if (state == BatchState.DELETED) {
            onDeleted.accept(bid);
        }
    }

    /**
     * The root is gone (mrt-zk's cleanup, or ours): its index, number and depositor entries go, in one
     * transaction; false when they could not be dropped now.
     */
    private boolean forget(String bid, List<BatchState> indexed, boolean numbered) {
        List<Op> ops = new ArrayList<>();
        for (BatchState s : indexed) {
            ops.add(Op.delete(QueuePaths.batchIndex(s, bid), -1));
        }
        if (numbered) {
            ops.add(Op.delete(QueuePaths.batchNumberEntry(bid), -1));
        }
        String depositor;
        synchronized (depositors) {
            depositor = depositors.remove(bid);
        }
        if (depositor != null && zk.exists(QueuePaths.depositorBatch(depositor, bid))) {
            ops.add(Op.delete(QueuePaths.depositorBatch(depositor, bid), -1));
        }
        if (ops.isEmpty()) {
            return true; // removed by us (our removal drops its entries with it), or healed by another host
        }
        try {
            zk.commitUnlocked("forget removed batch " + bid, ops);
        } catch (QueueException raced) {
            LOG.debug("batch {}: entries of a removed batch not dropped now ({}); looked at again", bid,
                    raced.getMessage());
            return false;
        }
        heals.incrementAndGet();
        LOG.info("batch {}: {} -> gone: removed by Merritt's tools; dropped from our batch index, numbers and "
                + "depositor counts", bid, wires(indexed));
        return true;
    }

    private static String wires(List<BatchState> indexed) {
        return indexed.isEmpty() ? "not indexed"
                : indexed.stream().map(BatchState::wire).collect(Collectors.joining("+"));
    }

    /** Notes an open batch's depositor, so that its entry can go with a root removed before its heal. */
    private void remember(String bid) {
        depositorEntry(bid);
    }

    /** The depositor entry of the batch (its submission read), remembered; null when it cannot be read. */
    private String depositorEntry(String bid) {
        try {
            Batch b = batches.load(bid);
            String name = BatchDepositors.name(b.submission() == null ? null : b.submission().submitter());
            synchronized (depositors) {
                depositors.put(bid, name);
            }
            return QueuePaths.depositorBatch(name, bid);
        } catch (RuntimeException unreadable) {
            return null; // gone or damaged: a stale entry is pruned when its depositor reaches the cap
        }
    }
}
