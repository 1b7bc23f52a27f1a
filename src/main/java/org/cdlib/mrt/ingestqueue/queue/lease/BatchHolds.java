package org.cdlib.mrt.ingestqueue.queue.lease;

import java.util.Set;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * Which batches are held while they run ({@code /locks/batches/BID}, issue 45), as every worker asks before it
 * starts a step: the folder's children read once with a watch and kept while the watch stands, so a worker asks
 * nothing of ZooKeeper while no hold changes. The folder stays small: at most {@link #MAX} batches are held at
 * once (a hold past that is refused), and its count is read before it is listed.
 */
final class BatchHolds implements AutoCloseable {
    /** At most this many batches held while they run, so the folder is always listed in one small answer. */
    static final int MAX = 1_000;

    private final ZooKeeperCalls zk;
    private final CuratorFramework client;
    private final CuratorWatcher watcher = event -> forget();
    private final ConnectionStateListener connection = (c, state) -> forget(); // a new session has none of our watches
    private volatile Set<String> known; // null: to be read again
    private long generation; // guarded by this

    BatchHolds(ZooKeeperCalls zk, CuratorFramework client) {
        this.zk = zk;
        this.client = client;
        client.getConnectionStateListenable().addListener(connection);
    }

    boolean held(String bid) {
        return bid != null && current().contains(bid);
    }

    /** The held batches, as the watched answer says. */
    Set<String> current() {
        Set<String> k = known;
        if (k != null) {
            return k;
        }
        long read;
        synchronized (this) {
            read = generation;
        }
        Set<String> now = read();
        synchronized (this) {
            if (read == generation) { // no watch fired meanwhile: the answer is still current
                known = now;
            }
        }
        return now;
    }

    private Set<String> read() {
        Stat folder = zk.stat(QueuePaths.BATCH_HOLDS);
        if (folder == null) {
            zk.createPersistent(QueuePaths.BATCH_HOLDS, ZooKeeperCalls.EMPTY);
            folder = zk.stat(QueuePaths.BATCH_HOLDS);
        }
        int count = folder.getNumChildren();
        if (count > MAX + 100) { // a few over: holds made at once by several hosts; more is not ours
            throw new QueueException(QueuePaths.BATCH_HOLDS + " holds " + count + " batches, more than the " + MAX
                    + " this queue holds at once; remove the extra nodes by hand");
        }
        try {
            zk.counted(1);
            return Set.copyOf(client.getChildren().usingWatcher(watcher).forPath(QueuePaths.BATCH_HOLDS));
        } catch (KeeperException.NoNodeException e) {
            return Set.of();
        } catch (Exception e) {
            throw ZooKeeperCalls.wrap("list " + QueuePaths.BATCH_HOLDS, e);
        }
    }

    synchronized void forget() {
        generation++;
        known = null;
    }

    @Override
    public void close() {
        client.getConnectionStateListenable().removeListener(connection);
    }
}
