package org.cdlib.mrt.ingestqueue.queue.space;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/** Cluster-wide counters under {@code /ids/<name>}: each call returns a number no other host gets. */
public final class Counters {
    private final CuratorFramework client;

    public Counters(CuratorFramework client) {
        this.client = client;
    }

    public long next(String name) {
        return nextBlock(name, 1);
    }

    /**
     * Reserves {@code size} consecutive numbers no other caller gets, in one counter update; the
     * first of them. A block a process does not use up (it stops) is never handed out again.
     */
    public long nextBlock(String name, int size) {
        String path = QueuePaths.IDS + "/" + name;
        try {
            for (int attempt = 0; attempt < 100; attempt++) {
                Stat stat = new Stat();
                byte[] data;
                try {
                    data = client.getData().storingStatIn(stat).forPath(path);
                } catch (KeeperException.NoNodeException e) {
                    try {
                        client.create().creatingParentsIfNeeded().forPath(path, QueueJson.text(0));
                    } catch (KeeperException.NodeExistsException raced) {
                        // another host created it
                    }
                    continue;
                }
                long first = QueueJson.readLong(path, data) + 1;
                try {
                    client.setData().withVersion(stat.getVersion()).forPath(path, QueueJson.text(first + size - 1));
                    return first;
                } catch (KeeperException.BadVersionException e) {
                    // another host drew the same number: draw again
                }
            }
            throw new QueueException("counter " + path + " is too contended");
        } catch (QueueException e) {
            throw e;
        } catch (Exception e) {
            throw ZooKeeperCalls.wrap("draw from counter " + path, e);
        }
    }
}
