package org.cdlib.mrt.ingestqueue.queue.batches;

import java.io.Closeable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.recipes.watch.PersistentWatcher;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchStatus;
import org.cdlib.mrt.ingestqueue.queue.model.QueueException;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hears what mrt-zk writes under {@code /batches} and heals what this queue derives from it, within
 * a moment, on every host: one persistent recursive watch on {@code /batches} (Curator's
 * {@link PersistentWatcher}, which sets it again after a new session; no cache: it holds nothing of
 * the tree). Events are filtered by depth and coalesced by batch; a single thread of its own
 * reconciles each batch named:
 * <ul>
 * <li>a root or its {@code status} created: the intake takes the batch now ({@link MerrittBatches#takeNow}),
 * whatever number it drew;</li>
 * <li>{@code status} changed (mrt-zk's {@code set_status}: the Admin Tool's update-reporting and
 * delete, Merritt's Processing → Failed): the state index entry follows the status, in one
 * transaction that checks the status version (a batch leaving the open states also leaves its
 * depositor's count), one log line per heal;</li>
 * <li>a root deleted (mrt-zk's {@code delete_completed_batches}): its index, number and depositor
 * entries go.</li>
 * </ul>
 * Our own moves write the index with the status, so their events find nothing to heal (two reads).
 * Every write is idempotent and version-checked: hosts racing on one event lose harmlessly. Events
 * are lost while the session is away: when the watch is (re)established a bounded resync runs (the
 * intake's cursor pass, the open state folders, the newest batches by number).
 */
public final class BatchWatch implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(BatchWatch.class);
    /** Batches waiting to be reconciled at most; past it the queue is dropped for a resync. */
    static final int MAX_WAITING = 10_000;
    /** Newest batches by number a resync reconciles (terminal ones are not listed by state). */
    static final int RESYNC_NEWEST = 1_000;
    /** Depositors of open batches remembered for a root removed before its heal was seen. */
    private static final int DEPOSITORS_KEPT = 10_000;

    private final ZooKeeperCalls zk;
    private final Batches batches;
    private final MerrittBatches intake;
    private final PersistentWatcher watcher;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "batch-watch");
        t.setDaemon(true);
        return t;
    });
    private final Object guard = new Object();
    private final LinkedHashSet<String> waiting = new LinkedHashSet<>(); // guarded by guard
    private boolean resync; // guarded by guard
    private boolean draining; // guarded by guard
    private final Map<String, String> depositors = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > DEPOSITORS_KEPT;
        }
    };
    private final AtomicLong heals = new AtomicLong();
    private final AtomicLong resyncs = new AtomicLong();
    private volatile boolean closed;
    /** Told of a batch Merritt's tools set Deleted once the index follows (the service removes it then). */
    private volatile java.util.function.Consumer<String> onDeleted = bid -> { };

    public BatchWatch(ZooKeeperCalls zk, Batches batches, MerrittBatches intake) {
        this.zk = zk;
        this.batches = batches;
        this.intake = intake;
        this.watcher = new PersistentWatcher(zk.client(), QueuePaths.BATCHES, true);
        watcher.getListenable().addListener(this::event);
        watcher.getResetListenable().addListener(this::resyncSoon);
    }

    /** What to do with a batch Merritt's tools set Deleted, once this watch healed its index (on this host only). */
    public BatchWatch onDeleted(java.util.function.Consumer<String> then) {
        this.onDeleted = then;
        return this;
    }

    public BatchWatch start() {
        watcher.start();
        return this;
    }

    /** Heals made (index entries moved or dropped) since the start: for tests and metrics. */
    public long heals() {
        return heals.get();
    }

    /** Resyncs run since the start (the first when the watch was set). */
    public long resyncs() {
        return resyncs.get();
    }

    @Override
    public void close() {
        closed = true;
        try {
            watcher.close();
        } catch (RuntimeException e) {
            LOG.debug("closing the batch watch: {}", e.getMessage());
        }
        worker.shutdownNow();
        try {
            worker.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** On ZooKeeper's event thread: notes the batch and returns at once. */
    private void event(WatchedEvent e) {
        String p = e.getPath();
        if (p == null || !p.startsWith(QueuePaths.BATCHES + "/")) {
            return;
        }
        String[] parts = p.split("/"); // "", "batches", BID[, child]
        if (parts.length < 3 || parts.length > 4 || QueuePaths.batchNumber(parts[2]) < 0) {
            return; // a job reference moving, a lock, id-block scratch nodes: not ours to hear
        }
        Watcher.Event.EventType type = e.getType();
        boolean root = parts.length == 3 && (type == Watcher.Event.EventType.NodeCreated
                || type == Watcher.Event.EventType.NodeDeleted);
        boolean status = parts.length == 4 && parts[3].equals("status");
        if (type == Watcher.Event.EventType.NodeDeleted && batches.removedHere(parts[2])) {
            return; // our own cleanup or deletion: its entries went with it (a cleanup of thousands reads nothing more)
        }
        if (root || status) {
            note(parts[2]);
        }
    }

    private void note(String bid) {
        synchronized (guard) {
            if (waiting.size() >= MAX_WAITING) {
                waiting.clear();
                resync = true; // more changed than is worth following one by one
            } else {
                waiting.add(bid);
            }
            drainSoon();
        }
    }

    private void resyncSoon() {
        synchronized (guard) {
            resync = true;
            drainSoon();
        }
    }

    /** Under guard. */
    private void drainSoon() {
        if (!draining && !closed) {
            draining = true;
            try {
                worker.execute(this::drain);
            } catch (java.util.concurrent.RejectedExecutionException stopping) {
                draining = false;
            }
        }
    }

    private void drain() {
        while (!closed) {
            String bid = null;
            boolean all;
            synchronized (guard) {
                all = resync;
                resync = false;
                if (!all) {
                    if (waiting.isEmpty()) {
                        draining = false;
                        return;
                    }
                    bid = waiting.iterator().next();
                    waiting.remove(bid);
                }
            }
            try {
                if (all) {
                    resync();
                } else {
                    reconcile(bid);
                }
            } catch (RuntimeException e) {
                if (closed) {
                    return;
                }
                // ZooKeeper away: the watch's reset after the reconnection resyncs
                LOG.warn("batch watch: {} not reconciled now ({}); the resync after the reconnection looks again",
                        all ? "the resync" : "batch " + bid, e.getMessage());
            }
        }
    }

    /** After the watch was set (again): what changed while nobody listened, bounded. */
    private void resync() {
        resyncs.incrementAndGet();
        intake.adopt();
        java.util.Set<String> seen = new LinkedHashSet<>();
        for (BatchState s : BatchState.OPEN) {
            seen.addAll(batches.ids(s));
        }
        long top = batches.newestNumber();
        seen.addAll(batches.numbers().newest(top, Math.max(batches.oldestNumber(), top - 100L * RESYNC_NEWEST), RESYNC_NEWEST).bids());
        for (String bid : seen) {
            if (closed) {
                return;
            }
            reconcile(bid);
        }
    }

    /**
     * Makes what we derive of one batch agree with its nodes: taken when it is a new Merritt
     * batch, its index entry moved to its status, its entries dropped when its root is gone.
     */
    void reconcile(String bid) {
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
            forget(bid, indexed, r.get(QueuePaths.batchNumberEntry(bid)) instanceof OpResult.GetDataResult);
            return;
        }
        OpResult.GetDataResult status = ZooKeeperCalls.dataOf(r.get(QueuePaths.batchStatus(bid)));
        if (status == null) {
            return; // being created (its status's creation is heard), or damaged (fsck names it)
        }
        if (indexed.isEmpty() && ZooKeeperCalls.dataOf(r.get(QueuePaths.batchStates(bid))) == null) {
            intake.takeNow(bid); // a batch made through mrt-zk's createBatch, nobody's yet
            return;
        }
        BatchState state;
        try {
            state = QueueJson.read(QueuePaths.batchStatus(bid), status.getData(), BatchStatus.class).state();
        } catch (RuntimeException damaged) {
            return; // fsck names it
        }
        boolean numbered = r.get(QueuePaths.batchNumberEntry(bid)) instanceof OpResult.GetDataResult;
        if (indexed.equals(List.of(state)) && numbered) {
            return; // our own moves write the index with the status
        }
        heal(bid, state, status.getStat().getVersion(), indexed, numbered);
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
        }
        String entry = depositorEntry(bid);
        if (BatchState.OPEN.contains(state)) {
            remember(bid);
        } else if (entry != null && zk.exists(entry)) {
            ops.add(Op.delete(entry, -1)); // out of the open states: its depositor's count goes down with it, as our moves do
        }
        try {
            zk.commitUnlocked("heal the index of batch " + bid, ops);
        } catch (QueueException raced) {
            // the status moved again (its event follows), or another host healed it first
            LOG.debug("batch {}: heal not written ({}); the next event or resync looks again", bid, raced.getMessage());
            return;
        }
        heals.incrementAndGet();
        LOG.info("batch {}: {} -> {}: set by Merritt's tools; our batch index follows its status", bid,
                indexed.isEmpty() ? "not indexed" : indexed.stream().map(BatchState::wire).collect(java.util.stream.Collectors.joining("+")),
                state.wire());
        if (state == BatchState.DELETED) {
            onDeleted.accept(bid);
        }
    }

    /** The root is gone (mrt-zk's cleanup, or ours): its index, number and depositor entries go, in one transaction. */
    private void forget(String bid, List<BatchState> indexed, boolean numbered) {
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
            return; // removed by us (our removal drops its entries with it), or healed by another host
        }
        try {
            zk.commitUnlocked("forget removed batch " + bid, ops);
        } catch (QueueException raced) {
            LOG.debug("batch {}: entries of a removed batch not dropped now ({}); looked at again", bid, raced.getMessage());
            note(bid);
            return;
        }
        heals.incrementAndGet();
        LOG.info("batch {}: {} -> gone: removed by Merritt's tools; dropped from our batch index, numbers and depositor counts",
                bid, indexed.isEmpty() ? "not indexed" : indexed.stream().map(BatchState::wire)
                        .collect(java.util.stream.Collectors.joining("+")));
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
