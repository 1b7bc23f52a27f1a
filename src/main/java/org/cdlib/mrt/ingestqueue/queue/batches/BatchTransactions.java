package org.cdlib.mrt.ingestqueue.queue.batches;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.errors.DepositorLimitException;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueBusyException;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueFullException;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionEvent;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionLog;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchStatus;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.model.StatusReport;
import org.cdlib.mrt.ingestqueue.queue.model.Transition;
import org.cdlib.mrt.ingestqueue.queue.model.Transitions;
import org.cdlib.mrt.ingestqueue.queue.space.IdBlocks;
import org.cdlib.mrt.ingestqueue.queue.space.LockedCommitFailures;
import org.cdlib.mrt.ingestqueue.queue.zk.Probes;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * A batch's transactions: its creation, its moves and its removal (reads are {@link BatchReads}').
 * Every status change also moves the batch's entry in the state index {@code /batches/states/<state>/BID}
 * in the same transaction, so consumers find the batches of a state without reading every batch; the
 * terminal states' entries are counted, never listed, and walks over all batches go by batch number.
 */
public final class BatchTransactions {
    private static final int MAX_COUNTER_RETRIES = 60;
    /** The most a submission waits between two tries at the counter, in ms (a random part: contenders spread out). */
    private static final long MAX_COUNTER_BACKOFF_MS = 100;

    private final ZooKeeperCalls zk;
    private final TransitionLog log;

    public BatchTransactions(ZooKeeperCalls zk, TransitionLog log, Path ingestHome) {
        this.ingestHome = ingestHome;
        this.reads = new BatchReads(zk, ingestHome);
        this.batchIds = new IdBlocks.Pool(zk, QueuePaths.BATCHES, 16);
        this.zk = zk;
        this.log = log;
        this.completion = new BatchCompletion(zk, log);
        this.numbers = new BatchNumbers(zk);
    }

    /** The index of the batches that exist, by number. */
    final BatchNumbers numbers;

    /** The batches' reads, made here beside the writes for {@link Batches}, which the store builds with this. */
    final BatchReads reads;
    private final Path ingestHome;
    /** Batch ids from blocks of 16 reserved by this process ({@link IdBlocks}). */
    public final IdBlocks.Pool batchIds;
    private final BatchCompletion completion;

    /**
     * The id counter, the batch node, its submission, status, index entries and the oldest-batch mark
     * kept at or below its number ({@link OldestMark}), in one transaction.
     * Refused with {@link QueueFullException} when {@code maxOpen} batches are open: the counter is
     * the cap's gate ({@link CapGate}), read before the count, so submitters on any number of hosts
     * cannot all pass on the same count. Refused with {@link DepositorLimitException} when the
     * submitter's depositor has {@code maxPerDepositor} open, counted in the same reading.
     */
    String create(BatchSubmission submission, int maxOpen, int maxPerDepositor) {
        String uuid = MerrittSubmission.newBatchUuid(submission, ingestHome);
        if (zk.exists(QueuePaths.batchUuid(uuid))) {
            uuid = "bid-" + UUID.randomUUID(); // an upload submitted a second time: a batch of its own
        }
        byte[] submissionData = QueueLimits.checkNode(QueuePaths.batchSubmission("bid"),
                MerrittSubmission.write(submission, uuid));
        byte[] statusData = QueueJson.write(BatchStatus.pending());
        String depositor = BatchDepositors.name(submission.submitter());
        String depositorFolder = QueuePaths.depositorBatches(depositor);
        Stat held = zk.stat(depositorFolder);
        if (held != null && held.getNumChildren() >= maxPerDepositor) {
            BatchDepositors.pruneClosed(zk, depositor); // entries another writer's moves left: never a reason to refuse
        }
        for (int attempt = 0; attempt < MAX_COUNTER_RETRIES; attempt++) {
            CapGate.Reading gate = CapGate.batches(zk, depositorFolder);
            if (gate.room(maxOpen) == 0) {
                throw new QueueFullException("the queue holds " + gate.open() + " open batches, its limit "
                        + "(ingest.queue.max-open-batches = " + maxOpen + "); submit again when some have finished");
            }
            if (gate.depositorOpen() >= maxPerDepositor) {
                throw new DepositorLimitException("depositor '" + depositor + "' has " + gate.depositorOpen()
                        + " open batches, the limit for one depositor (ingest.queue.max-open-batches-per-depositor = "
                        + maxPerDepositor + "); submit again when some of them have finished");
            }
            String bid = QueuePaths.batchId(batchIds.next());
            numbers.ensureBucket(QueuePaths.batchNumber(bid));
            // a number of this process's block may lie below where a cleanup moved the mark: the mark comes
            // down to it in the same transaction, checked against a cleanup moving it meanwhile
            OldestMark.Reading mark = OldestMark.read(zk);
            List<Op> ops = new ArrayList<>(List.of(
                    gate.pass(gate.number() + 1),
                    ZooKeeperCalls.create(QueuePaths.batch(bid), ZooKeeperCalls.EMPTY),
                    ZooKeeperCalls.create(QueuePaths.batchSubmission(bid), submissionData),
                    ZooKeeperCalls.create(QueuePaths.batchUuid(uuid), bid.getBytes(StandardCharsets.UTF_8)),
                    ZooKeeperCalls.create(QueuePaths.batchStatus(bid), statusData),
                    ZooKeeperCalls.create(QueuePaths.batchIndex(BatchState.PENDING, bid), ZooKeeperCalls.EMPTY),
                    BatchNumbers.enter(bid),
                    mark.lowerTo(QueuePaths.batchNumber(bid))));
            if (gate.depositorOpen() < 0) {
                // the depositor's first batch: its folder with it (kept after: one per depositor, never listed
                // all together)
                ops.add(ZooKeeperCalls.create(depositorFolder, ZooKeeperCalls.EMPTY));
            }
            ops.add(ZooKeeperCalls.create(QueuePaths.depositorBatch(depositor, bid), ZooKeeperCalls.EMPTY));
            zk.probes().reached(Probes.Point.BEFORE_COUNTER_PASS); // a test's other submission passes the counter here
            try {
                zk.commit(zk.currentHandle(), ops,
                        () -> Arrays.equals(submissionData, zk.readOrNull(QueuePaths.batchSubmission(bid))));
                log.batch(bid, null, BatchState.PENDING, "submitted by " + submission.submitter() + " ("
                        + submission.type() + ", profile " + submission.profileName() + ")");
                return bid;
            } catch (KeeperException.BadVersionException | KeeperException.NodeExistsException e) {
                // another submission passed the gate (here or on another host), a cleanup moved the oldest batch
                // mark, or another writer (mrt-zk) took the name: count again, take the next, after a random pause
                // that grows with the tries, so that twenty submitters at once do not all meet at the counter again
                backOff(attempt);
            } catch (KeeperException e) {
                throw new QueueException("cannot create batch: " + e.getMessage(), e);
            }
        }
        throw new QueueBusyException("cannot create batch: other submissions passed the batch counter "
                + MAX_COUNTER_RETRIES + " times in a row; submit again");
    }

    private static void backOff(int attempt) {
        long most = Math.min(MAX_COUNTER_BACKOFF_MS, 1L << Math.min(attempt, 10));
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(most + 1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new QueueException("cannot create batch: interrupted");
        }
    }

    /** Moves a locked batch (its index entry with it); with a report, the status report is written too. */
    public Batch move(HeldBatch lock, BatchState to, String reason, StatusReport report, String errorMessage,
            Transition.By by, boolean releaseLock) {
        Batch batch = lock.batch();
        String bid = batch.id();
        Transitions.requireBatch(bid, batch.state(), to, by);
        BatchStatus status = batch.status().moved(to, errorMessage);
        List<Op> ops = new ArrayList<>();
        ops.add(ZooKeeperCalls.setData(QueuePaths.batchStatus(bid), QueueJson.write(status), batch.statusVersion()));
        if (report != null) {
            byte[] data = QueueJson.write(report);
            ops.add(batch.statusReport() == null
                    ? ZooKeeperCalls.create(QueuePaths.batchStatusReport(bid), data)
                    : ZooKeeperCalls.setData(QueuePaths.batchStatusReport(bid), data, -1));
        }
        addIndexMove(ops, bid, batch.state(), to);
        if (BatchState.OPEN.contains(batch.state()) && !BatchState.OPEN.contains(to)) {
            // out of the open states: its depositor's count goes down with it (a batch made before the
            // count, or adopted without a submitter, has no entry; nobody but this move removes a live one)
            String entry = BatchDepositors.entry(
                    batch.submission() == null ? null : batch.submission().submitter(), bid);
            if (zk.exists(entry)) {
                ops.add(Op.delete(entry, -1));
            }
        }
        ops.add(releaseLock ? Op.delete(QueuePaths.batchLock(bid), -1) : Op.check(QueuePaths.batchLock(bid), -1));
        zk.commitLocked(lock.lease().zk, lock.lease().sessionId, "batch " + bid, ops, QueuePaths.batchStatus(bid),
                batch.statusVersion(), LockedCommitFailures.QUEUE);
        Batch moved = batch.withStatus(status, report != null ? report : batch.statusReport(),
                batch.statusVersion() + 1, releaseLock ? null : lock.owner());
        lock.batch(moved);
        log.batch(bid, batch.state(), to, reason);
        return moved;
    }

    static void addIndexMove(List<Op> ops, String bid, BatchState from, BatchState to) {
        if (from != to) {
            ops.add(Op.delete(QueuePaths.batchIndex(from, bid), -1));
            ops.add(ZooKeeperCalls.create(QueuePaths.batchIndex(to, bid), ZooKeeperCalls.EMPTY));
        }
    }

    /** Processing → reporting when the batch's jobs all ended ({@link BatchCompletion}); true when this moved it. */
    public boolean startReportingIfDone(String bid) {
        return completion.startReportingIfDone(bid);
    }

    /**
     * Removes what is left of a batch whose jobs are deleted: its nodes and index entries, in one
     * transaction. Refused while a category still lists jobs (a deletion to be finished first).
     */
    void remove(String bid) {
        List<String> probe = new ArrayList<>();
        for (BatchState s : BatchState.values()) {
            probe.add(QueuePaths.batchIndex(s, bid));
        }
        List<String> nodes = List.of(QueuePaths.batchStatusReport(bid), QueuePaths.batchSubmission(bid),
                QueuePaths.batchStatus(bid), QueuePaths.batchLock(bid));
        probe.addAll(nodes);
        for (BatchRef r : BatchRef.values()) {
            probe.add(QueuePaths.batchRefs(bid, r));
        }
        probe.add(QueuePaths.batchStates(bid));
        probe.add(QueuePaths.batch(bid));
        Map<String, OpResult> r = zk.readMany(probe);
        List<Op> ops = new ArrayList<>();
        for (String p : probe) {
            if (!(r.get(p) instanceof OpResult.GetDataResult d)) {
                continue; // missing (one left unread for its size is there: deleted too)
            }
            if (p.startsWith(QueuePaths.batchStates(bid) + "/") && d.getStat().getNumChildren() > 0) {
                throw new QueueException(p + " still lists " + d.getStat().getNumChildren()
                        + " job(s): delete them first");
            }
            if (!p.equals(QueuePaths.batch(bid)) && !p.equals(QueuePaths.batchStates(bid))) {
                ops.add(Op.delete(p, -1));
            }
        }
        if (ZooKeeperCalls.dataOf(r.get(QueuePaths.batchStates(bid))) != null) {
            ops.add(Op.delete(QueuePaths.batchStates(bid), -1));
        }
        if (ZooKeeperCalls.dataOf(r.get(QueuePaths.batch(bid))) != null) {
            ops.add(Op.delete(QueuePaths.batch(bid), -1));
        }
        OpResult.GetDataResult sub = ZooKeeperCalls.dataOf(r.get(QueuePaths.batchSubmission(bid)));
        List<String> entries = new ArrayList<>(List.of(QueuePaths.batchNumberEntry(bid)));
        if (sub != null) {
            try {
                entries.add(BatchDepositors.entry(MerrittSubmission.read(QueuePaths.batchSubmission(bid),
                        sub.getData(), ingestHome).submitter(), bid));
            } catch (RuntimeException damaged) {
                // a damaged submission names no depositor: a left entry is dropped when that depositor reaches the cap
            }
        }
        Map<String, OpResult> er = zk.readMany(entries);
        for (String e : entries) {
            if (er.get(e) instanceof OpResult.GetDataResult) {
                ops.add(Op.delete(e, -1));
            }
        }
        String uuid = sub == null ? null : MerrittSubmission.batchUuid(sub.getData());
        if (uuid != null && !uuid.contains("/")
                && Arrays.equals(bid.getBytes(StandardCharsets.UTF_8), zk.readOrNull(QueuePaths.batchUuid(uuid)))) {
            // as mrt-zk's Batch.delete: the id names no batch any more
            ops.add(Op.delete(QueuePaths.batchUuid(uuid), -1));
        }
        if (!ops.isEmpty()) {
            zk.commitUnlocked("remove batch " + bid, ops);
        }
        log.fire(TransitionEvent.BATCH, bid, bid, null, BatchState.DELETED.wire(), "removed");
    }
}
