package org.cdlib.mrt.ingestqueue.queue.lease;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;

/**
 * Which collections are held ({@code /locks/collections/<profile>}), as every job's pending step
 * asks: each collection's answer is read once with a watch and kept while the watch stands (one
 * entry per collection profile, so it stays small), instead of one {@code exists} per job. Any
 * change of a hold, or of the connection, forgets every answer.
 */
final class CollectionHolds implements AutoCloseable {
    private final EphemeralLocks locks;
    private final CuratorFramework client;
    private final Map<String, Boolean> known = new ConcurrentHashMap<>();
    private final CuratorWatcher watcher = event -> forget();
    private final ConnectionStateListener connection = (c, state) -> forget(); // a new session has none of our watches
    private long generation; // guarded by this

    CollectionHolds(EphemeralLocks locks, CuratorFramework client) {
        this.locks = locks;
        this.client = client;
        client.getConnectionStateListenable().addListener(connection);
    }

    boolean held(String profile) {
        Boolean h = known.get(profile);
        if (h != null) {
            return h;
        }
        long read;
        synchronized (this) {
            read = generation;
        }
        boolean now = locks.watch(QueuePaths.collectionHold(profile), watcher);
        synchronized (this) {
            if (read == generation) { // no watch fired meanwhile: the answer is still current
                known.put(profile, now);
            }
        }
        return now;
    }

    synchronized void forget() {
        generation++;
        known.clear();
    }

    @Override
    public void close() {
        client.getConnectionStateListenable().removeListener(connection);
    }
}
