package org.cdlib.mrt.ingestqueue.queue.batches;

import java.io.Closeable;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.curator.framework.recipes.watch.PersistentWatcher;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hears what mrt-zk writes under {@code /batches}, within a moment, on every host: one persistent
 * recursive watch on {@code /batches} (Curator's {@link PersistentWatcher}, which sets it again after
 * a new session; no cache: it holds nothing of the tree). Events are filtered by depth (a root
 * created or deleted, its {@code status}) and coalesced by batch; a single thread of its own hands
 * each batch named to {@link BatchHeal}, which makes what we derive of it agree with its nodes.
 * Events are lost while the session is away: when the watch is (re)established a bounded resync runs
 * (the intake's cursor pass, the open state folders, the newest batches by number).
 */
public final class BatchWatch implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(BatchWatch.class);
    /** Batches waiting to be reconciled at most; past it the queue is dropped for a resync. */
    static final int MAX_WAITING = 10_000;
    /** Newest batches by number a resync reconciles (terminal ones are not listed by state). */
    static final int RESYNC_NEWEST = 1_000;

    private final Batches batches;
    private final MerrittBatches intake;
    private final BatchHeal heal;
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
    private final AtomicLong resyncs = new AtomicLong();
    private volatile boolean closed;

    public BatchWatch(ZooKeeperCalls zk, Batches batches, MerrittBatches intake) {
        this.batches = batches;
        this.intake = intake;
        this.heal = new BatchHeal(zk, batches, intake);
        this.watcher = new PersistentWatcher(zk.client(), QueuePaths.BATCHES, true);
        watcher.getListenable().addListener(this::event);
        watcher.getResetListenable().addListener(this::resyncSoon);
    }

    /** What to do with a batch Merritt's tools set Deleted, once this watch healed its index (on this host only). */
    public BatchWatch onDeleted(Consumer<String> then) {
        heal.onDeleted(then);
        return this;
    }

    public BatchWatch start() {
        watcher.start();
        return this;
    }

    /** Heals made (index entries moved or dropped) since the start: for tests and metrics. */
    public long heals() {
        return heal.heals();
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
            return; // our own cleanup or deletion: its entries went with it (a cleanup of thousands reads no more)
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
            } catch (RejectedExecutionException stopping) {
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
        Set<String> seen = new LinkedHashSet<>();
        for (BatchState s : BatchState.OPEN) {
            seen.addAll(batches.ids(s));
        }
        long top = batches.newestNumber();
        long from = Math.max(batches.oldestNumber(), top - 100L * RESYNC_NEWEST);
        seen.addAll(batches.numbers().newest(top, from, RESYNC_NEWEST).bids());
        for (String bid : seen) {
            if (closed) {
                return;
            }
            reconcile(bid);
        }
    }

    /** Heals one batch; one whose entries could not be dropped now is looked at again. */
    private void reconcile(String bid) {
        if (!heal.reconcile(bid)) {
            note(bid);
        }
    }
}
