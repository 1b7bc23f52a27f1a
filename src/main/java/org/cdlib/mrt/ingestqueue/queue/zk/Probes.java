package org.cdlib.mrt.ingestqueue.queue.zk;

import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;
import org.apache.zookeeper.Op;

/**
 * The points between two of a store's calls to ZooKeeper where a test steps in, to make a race
 * happen on purpose (another writer between a read and the commit built on it). One per store,
 * held by its {@link ZooKeeperCalls} so each room that calls ZooKeeper reaches it without a field
 * of its own; nothing sets a probe in production, and an unset point costs one volatile read.
 */
public final class Probes {
    /** The points, each named where it stands. */
    public enum Point {
        /** SpaceCounters: a counter transaction is sent, its answer not yet awaited. */
        AFTER_SEND,
        /** ObjectLocks: a holder's status is read, the takeover not yet committed. */
        AFTER_HOLDER_READ,
        /** BatchTransactions: before each try at passing the batch counter. */
        BEFORE_COUNTER_PASS,
        /** JobCreation: a chunk of jobs is committed (a crash between chunks is a throw here). */
        AFTER_CHUNK,
        /** SpaceCheck: the jobs are summed, the second cut not yet read. */
        BEFORE_SECOND_CUT
    }

    private final AtomicReferenceArray<Runnable> at = new AtomicReferenceArray<>(Point.values().length);
    private volatile Consumer<List<Op>> notApplied;

    /** Runs {@code probe} each time {@code point} is reached; null removes it. */
    public void set(Point point, Runnable probe) {
        at.set(point.ordinal(), probe);
    }

    /**
     * Runs {@code probe} with the operations of a commit whose answer was lost and which was read
     * back as not applied, before it is sent again or given up ({@link MultiCommit}); null removes it.
     */
    public void setNotApplied(Consumer<List<Op>> probe) {
        notApplied = probe;
    }

    /** Removes every probe. */
    public void clear() {
        for (Point p : Point.values()) {
            set(p, null);
        }
        notApplied = null;
    }

    /** Called at {@code point}: runs its probe, if one is set. */
    public void reached(Point point) {
        Runnable probe = at.get(point.ordinal());
        if (probe != null) {
            probe.run();
        }
    }

    void notApplied(List<Op> ops) {
        Consumer<List<Op>> probe = notApplied;
        if (probe != null) {
            probe.accept(ops);
        }
    }
}
