package org.cdlib.mrt.ingestqueue.queue.lease;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.Op;
import org.cdlib.mrt.ingestqueue.queue.model.HeldBy;
import org.cdlib.mrt.ingestqueue.queue.model.IllegalTransitionException;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's holds: the whole queue ({@code /locks/queue/ingest}), single collections
 * ({@code /locks/collections/<profile>}) and single running batches ({@code /locks/batches/BID}, ours only). A held
 * queue takes no new work; what is running finishes. A held collection or batch stops its jobs as a worker would
 * take them, and each active one at the end of its step ({@link #stopping}: issue 45). Each hold names who set it
 * and since when.
 */
public final class QueueHolds implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(QueueHolds.class);

    private final ZooKeeperCalls zk;
    private final CollectionHolds collections;
    private final BatchHolds batches;

    public QueueHolds(ZooKeeperCalls zk, EphemeralLocks locks, CuratorFramework client) {
        this.zk = zk;
        this.collections = new CollectionHolds(locks, client);
        this.batches = new BatchHolds(zk, client);
    }

    /**
     * The hold that stops this job before its next step, if any: its batch's, else its collection's (the watched
     * answers: no request while no hold changed). The queue's hold is not here: while it is set nothing is taken.
     */
    public Optional<HeldBy> stopping(Job job) {
        if (batches.held(job.batchId())) {
            return Optional.of(HeldBy.batch(job.batchId()));
        }
        String profile = job.configuration() == null ? null : job.configuration().profileName();
        return isCollectionHeld(profile) ? Optional.of(HeldBy.collection(profile)) : Optional.empty();
    }

    /**
     * Holds a batch while its jobs run: one node, whatever the batch's size. False when it was held already. Refused
     * past {@link BatchHolds#MAX} held batches.
     */
    public boolean holdBatch(String bid, String by) {
        if (batches.held(bid) || zk.exists(QueuePaths.batchHold(bid))) {
            return false;
        }
        if (batches.current().size() >= BatchHolds.MAX) {
            throw new IllegalTransitionException(BatchHolds.MAX + " batches are held already, the most this queue "
                    + "holds at once; release some first", List.of());
        }
        zk.createPersistent(QueuePaths.batchHold(bid), holdData(by));
        batches.forget(); // this process knows at once; others when their watch fires
        LOG.info("batch {} held by {}: its jobs stop before their next step", bid, by);
        return true;
    }

    /**
     * Lifts a batch's hold: the hold's node deleted and, in the same transaction, a release left for the pass that
     * releases the jobs it stopped ({@code /locks/batch-releases/BID}), so a restart loses none of them. False when
     * the batch was not held.
     */
    public boolean releaseBatch(String bid, String by) {
        if (!zk.exists(QueuePaths.batchHold(bid))) {
            return false;
        }
        zk.createPersistent(QueuePaths.BATCH_RELEASES, ZooKeeperCalls.EMPTY);
        List<Op> ops = new ArrayList<>();
        ops.add(Op.delete(QueuePaths.batchHold(bid), -1));
        if (!zk.exists(QueuePaths.batchRelease(bid))) { // else a release of an earlier hold is still under way
            ops.add(ZooKeeperCalls.create(QueuePaths.batchRelease(bid), holdData(by)));
        }
        zk.commitUnlocked("release of batch " + bid, ops);
        batches.forget();
        LOG.info("batch {} released by {}: the jobs its hold stopped are released in the background", bid, by);
        return true;
    }

    /** Whether a batch is held while it runs, as the watched answer says. */
    public boolean isBatchHeld(String bid) {
        return batches.held(bid);
    }

    /** The batches held while they run (at most {@link BatchHolds#MAX}). */
    public Set<String> heldBatches() {
        return batches.current();
    }

    /** Released batches whose stopped jobs are still to be released: their ids, sorted (bounded: a few). */
    public List<String> batchReleases() {
        return zk.children(QueuePaths.BATCH_RELEASES).stream().sorted().toList();
    }

    /** A released batch's stopped jobs are all released (or the batch is held again, or gone). */
    public void batchReleased(String bid) {
        zk.deleteIfExists(QueuePaths.batchRelease(bid));
    }

    /** A hold left on a batch that ended or went (its jobs all ended while it was held, or it was deleted). */
    public void dropBatchHold(String bid) {
        if (zk.deleteIfExists(QueuePaths.batchHold(bid))) {
            batches.forget();
            LOG.info("batch {}: its hold dropped, the batch has ended", bid);
        }
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
        batches.close();
        collections.close();
    }
}
