package org.cdlib.mrt.ingestqueue.camel;

import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consumer's ZooKeeper connection as it changes. Connection lost: no new work is taken.
 * Session lost: the locks in hand went with it, so the work in hand and the items queued for a
 * worker are abandoned. A lost or new session has no watch of ours, so the queue's hold is read
 * again. Either way the dispatcher is woken to list its state afresh.
 */
final class SessionWatch implements ConnectionStateListener {
    // the consumer's lines keep the logger name they had before this class was split off it
    private static final Logger LOG = LoggerFactory.getLogger("org.cdlib.mrt.ingestqueue.camel.QueueConsumer");

    private final String name;
    private final QueueHold hold;
    private final Workers workers;
    private final Backlog backlog;
    private final Runnable wake;
    private volatile boolean connected = true;

    /** @param wake wakes the consumer's dispatcher */
    SessionWatch(String name, QueueHold hold, Workers workers, Backlog backlog, Runnable wake) {
        this.name = name;
        this.hold = hold;
        this.workers = workers;
        this.backlog = backlog;
        this.wake = wake;
    }

    /** Whether the connection lets work be taken now. */
    boolean connected() {
        return connected;
    }

    @Override
    public void stateChanged(CuratorFramework client, ConnectionState state) {
        // Curator may post a session's LOST again after the new session's RECONNECTED (seen with an expiry injected
        // under load): the connection then stands, and waiting for another RECONNECTED would stop this consumer
        boolean lateLoss = state == ConnectionState.LOST && client.getZookeeperClient().isConnected();
        connected = state.isConnected() || lateLoss;
        if (state == ConnectionState.LOST || state == ConnectionState.RECONNECTED) {
            hold.forget(); // a new session has no watch of ours: read the hold again
        }
        if (state == ConnectionState.LOST && !workers.idle()) {
            // the locks went with the session: whatever the workers still do can no longer be
            // committed, and the jobs are free for any host (this one included) to take again
            List<String> lost = workers.inHand();
            LOG.warn("zkqueue {}: ZooKeeper session lost: abandoning {} item(s) in hand: {}", name, lost.size(), lost);
            workers.abandonAll();
        }
        if (state == ConnectionState.LOST) {
            workers.queued.drop(false); // their locks went with the session too
        }
        if (!connected) {
            LOG.warn("zkqueue {}: ZooKeeper connection {}: taking no new work", name, state);
        } else if (lateLoss) {
            LOG.info("zkqueue {}: ZooKeeper session lost, a new one already connected: taking work again", name);
        } else if (state == ConnectionState.RECONNECTED) {
            LOG.info("zkqueue {}: ZooKeeper reconnected: taking work again", name);
        }
        backlog.stale();
        wake.run();
    }
}
