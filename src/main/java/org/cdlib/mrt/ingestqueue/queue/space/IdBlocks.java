package org.cdlib.mrt.ingestqueue.queue.space;

import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.errors.NotFoundException;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * Ids that no writer of this ensemble will ever take, this queue's or mrt-zk's. mrt-zk draws
 * {@code bidNNNNNNNNNN} and {@code jidNNNNNNNNNN} as sequential nodes: the server numbers them from
 * a counter of the parent that every create of a child moves on by one (deletes do not; nor is it
 * the {@code cversion} a {@code Stat} shows, which deletes move too). A name the counter has not
 * passed yet would one day be drawn by mrt-zk, whose create then fails for ever; so this queue
 * takes only names the counter has passed, and that nobody holds.
 * <p>
 * A reservation is one atomic transaction: a sequential create (ephemeral, under a name mrt-zk
 * does not take for an item) tells where the counter stands, and {@code n} create/delete pairs of a
 * scratch node move it on by {@code n}: the marker's number and the {@code n} after it are this
 * caller's, passed by the counter and never created by anyone (the marker has another prefix).
 * The marker is deleted right after (a crash leaves it to the session). A batch's job ids are
 * reserved in such blocks, recorded in its status ({@code job_runs}), so its jobs are still
 * found by number, never by listing; batch ids in small blocks kept by this process.
 */
public final class IdBlocks {
    /** Ids one reservation of job ids takes at most: 2 operations each, well inside a transaction's bytes. */
    static final int BLOCK = 2_000;

    private IdBlocks() {
    }

    /** A reserved run: {@code count} ids from {@code first}. */
    public record Block(long first, int count) {
    }

    /** A process's block of reserved ids under one parent, handed out one at a time, a new block when it is used up. */
    public static final class Pool {
        private final ZooKeeperCalls zk;
        private final String parent;
        private final int size;
        private Block left; // guarded by this

        public Pool(ZooKeeperCalls zk, String parent, int size) {
            this.zk = zk;
            this.parent = parent;
            this.size = size;
        }

        public synchronized long next() {
            if (left == null || left.count() == 0) {
                left = reserve(zk, zk.currentHandle(), parent, size);
            }
            long n = left.first();
            left = new Block(n + 1, left.count() - 1);
            return n;
        }

        /** Drops the block held (a start, perhaps on a queue that was rebuilt): the next id reserves anew. */
        public synchronized void forget() {
            left = null;
        }
    }

    /** An upper bound of the numbers taken under {@code parent} (its {@code cversion}, which counts deletes too). */
    public static long next(ZooKeeperCalls zk, String parent) {
        Stat st = zk.stat(parent);
        if (st == null) {
            throw new NotFoundException("no node " + parent + " (the queue's start creates it)");
        }
        return Integer.toUnsignedLong(st.getCversion());
    }

    /**
     * Reserves {@code wanted} ids under {@code parent} (at most {@link #BLOCK}, at least one) through {@code handle}.
     */
    public static Block reserve(ZooKeeperCalls zk, ZooKeeper handle, String parent, int wanted) {
        int n = Math.max(0, Math.min(BLOCK, wanted) - 1);
        String scratch = parent + "/id-scratch";
        List<Op> ops = new ArrayList<>(1 + 2 * n);
        ops.add(Op.create(parent + "/id-block-", ZooKeeperCalls.EMPTY, ZooDefs.Ids.OPEN_ACL_UNSAFE,
                CreateMode.EPHEMERAL_SEQUENTIAL));
        for (int i = 0; i < n; i++) {
            ops.add(Op.create(scratch, ZooKeeperCalls.EMPTY, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL));
            ops.add(Op.delete(scratch, -1));
        }
        try {
            // an answer a lost connection hid is sent again: at worst
            // a block nobody uses, its marker gone with the session
            List<OpResult> results = zk.commit(handle, ops, () -> false);
            String marker = ((OpResult.CreateResult) results.get(0)).getPath();
            zk.deleteIfExists(marker);
            // the marker's own number was drawn under another prefix: no item of this parent ever has it either
            return new Block(Long.parseLong(marker.substring(marker.length() - 10)), n + 1);
        } catch (KeeperException e) {
            throw new QueueException("cannot reserve ids under " + parent + ": " + e.code(), e);
        }
    }
}
