package org.cdlib.mrt.ingestqueue.queue.lease;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's holds: the whole queue ({@code /locks/queue/ingest}) and single collections
 * ({@code /locks/collections/<profile>}). A held queue or collection takes no new work; what is
 * running finishes. Each hold names who set it and since when.
 */
public final class QueueHolds implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(QueueHolds.class);

    private final ZooKeeperCalls zk;
    private final CollectionHolds collections;

    public QueueHolds(ZooKeeperCalls zk, EphemeralLocks locks, CuratorFramework client) {
        this.zk = zk;
        this.collections = new CollectionHolds(locks, client);
    }

    public void holdCollection(String profile, String by) {
        zk.createPersistent(QueuePaths.collectionHold(profile), holdData(by));
        collections.forget(); // this process knows at once; others when their watch fires
        LOG.info("collection {} held by {}", profile, by);
    }

    public boolean releaseCollection(String profile) {
        boolean released = zk.deleteIfExists(QueuePaths.collectionHold(profile));
        collections.forget();
        LOG.info("collection {} released", profile);
        return released;
    }

    /** Whether a collection is held, as its watched answer says (no request while nothing changed). */
    public boolean isCollectionHeld(String profile) {
        return profile != null && collections.held(profile);
    }

    public List<String> heldCollections() {
        return zk.children(QueuePaths.COLLECTION_HOLDS).stream().sorted().toList();
    }

    public void holdQueue(String by) {
        zk.createPersistent(QueuePaths.QUEUE_HOLD, holdData(by));
        LOG.info("queue held by {}", by);
    }

    public boolean releaseQueue() {
        boolean released = zk.deleteIfExists(QueuePaths.QUEUE_HOLD);
        LOG.info("queue released");
        return released;
    }

    public boolean isQueueHeld() {
        return zk.exists(QueuePaths.QUEUE_HOLD);
    }

    private static byte[] holdData(String by) {
        return QueueJson.write(Map.of("by", by == null ? "unknown" : by, "since", Instant.now().toString()));
    }

    @Override
    public void close() {
        collections.close();
    }
}
