package org.cdlib.mrt.ingestqueue.queue.jobs;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.lease.JobChain;
import org.cdlib.mrt.ingestqueue.queue.lease.KnownEffects;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.JobStatus;
import org.cdlib.mrt.ingestqueue.queue.model.JobSummary;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * What a job keeps as it completes, decided by the transaction that moves it, in one of two shapes
 * (DESIGN "A completed job as Merritt's tools read it (issue 42)"):
 * <ul>
 * <li>{@link #merrittNeighbours} (the default, {@code ingest.merritt.neighbours}): every node
 * mrt-zk's loaders read stays as it is ({@code configuration}, {@code metadata}, {@code identifiers},
 * {@code status}, {@code bid}, {@code priority}, {@code space_needed}, {@code inventory},
 * {@code store}, the references), and what only this queue reads stays in its own {@code effects}
 * node, which mrt-zk never writes. Nothing of ours is put into {@code status}: mrt-zk rewrites it
 * whole, unlocked, and a racing write there would lose it. Nothing is deleted.</li>
 * <li>without Merritt neighbours: the job keeps two znodes of its own, {@code /jobs/JID} and its
 * {@code status}, whose {@link JobSummary} holds the configuration, identifiers, effects, priority
 * and space_needed; every other child is deleted (its two state references stay, as every job's).</li>
 * </ul>
 * Jobs completed before (their summary in status, bid/priority/space_needed/identifiers kept) are
 * read as they are.
 *
 * <p>Which children exist is known without a request when the claim's read found them all (every
 * child a job may have was read, and their number is the job node's) and the lease chain kept
 * up its own creates and deletes since ({@link JobChain#wrote}); else they are listed once, under
 * the job's lock, before the transaction is built. Only the lock's holder adds or removes them
 * (mrt-zk's hosts take the same lock), so either holds until the commit; were it wrong anyway, a
 * delete of a missing node fails the whole transaction, nothing is written, and the move is made
 * again with the children listed ({@code JobTransactions.move}).
 */
final class JobCompaction {
    /** The children a completed job loses without Merritt neighbours: all but its status (its summary holds them). */
    static final Set<String> REMOVED = Set.of("configuration", "effects", "metadata", "inventory", "store",
            "identifiers", "bid", "priority", "space_needed");

    private final ZooKeeperCalls zk;
    private volatile boolean merrittNeighbours = true;

    JobCompaction(ZooKeeperCalls zk) {
        this.zk = zk;
    }

    /**
     * Whether mrt-zk's tools share the queue: a completed job then keeps every node they read
     * ({@code ingest.merritt.neighbours}).
     */
    void merrittNeighbours(boolean on) {
        merrittNeighbours = on;
    }

    boolean merrittNeighbours() {
        return merrittNeighbours;
    }

    /**
     * Whether the completing move takes the job's nodes into its status's summary (no Merritt
     * neighbours): then the effects not written yet go there, and no other node of the job is
     * written by that move.
     */
    boolean summarises() {
        return !merrittNeighbours;
    }

    /** The status the completing move writes, and the deletes that go with it into the move's transaction. */
    JobStatus compact(HeldJob lock, JobStatus status, int priority, long spaceNeeded, List<Op> ops) {
        if (merrittNeighbours) {
            return status; // Merritt's shape: nothing deleted, nothing of ours in status (the effects keep their node)
        }
        Job job = lock.job();
        String jid = job.id();
        JobChain chain = lock.chain();
        Set<String> listed = chain.children(); // known since the claim's read: no request
        List<String> children = listed != null ? List.copyOf(listed)
                : zk.children(QueuePaths.job(jid), chain.childCount());
        JobEffects effects = JobEffects.none();
        List<Op> deletes = new ArrayList<>();
        for (String child : children) {
            if (!REMOVED.contains(child)) {
                continue;
            }
            int version = -1;
            if (child.equals("effects")) {
                KnownEffects known = effects(lock);
                effects = known.effects();
                version = known.version(); // the summary holds exactly what is deleted
            }
            deletes.add(Op.delete(QueuePaths.jobNode(jid, child), version));
        }
        KnownEffects known = lock.chain().effects();
        // records this move would have written: into the summary (no node had them)
        if (known != null && known.unwritten()) {
            effects = known.effects();
        }
        // less the key's bytes
        int budget = QueueLimits.nodeBytes(QueuePaths.jobStatus(jid)) - QueueJson.write(status).length - 64;
        JobSummary summary = JobSummary.of(job.configuration().withBatchId(job.batchId()), job.identifiers(), effects,
                priority, spaceNeeded, budget); // priority and space_needed always: no node holds them any more
        ops.addAll(deletes);
        return new JobStatus(status.status(), status.lastSuccessfulStatus(), status.lastModified(), status.retryCount(),
                status.message(), status.history(), summary);
    }

    /** The effects node as the lock knows it, else read with its version (it exists: it was just listed). */
    private KnownEffects effects(HeldJob lock) {
        KnownEffects known = lock.chain().effects();
        if (known != null && known.version() >= 0) {
            return known;
        }
        String path = QueuePaths.jobNode(lock.jid(), "effects");
        Stat stat = new Stat();
        return new KnownEffects(QueueJson.read(path, zk.read(path, stat), JobEffects.class), stat.getVersion());
    }
}
