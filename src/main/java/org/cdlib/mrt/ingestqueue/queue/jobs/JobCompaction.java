package org.cdlib.mrt.ingestqueue.queue.jobs;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.lease.JobLock;
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
 * A job compacted as it completes, by the transaction that moves it: its {@code configuration}
 * and {@code effects} go into its status's {@link JobSummary}, and those nodes and mrt-zk's
 * {@code metadata}, {@code inventory} and {@code store} are deleted. It keeps what mrt-zk's
 * {@code Job.load} requires ({@code status}, {@code bid}, {@code priority}, {@code space_needed}),
 * its {@code identifiers} (the ARK and local ids Merritt's Admin Tool shows) and its two
 * references: 8 znodes instead of ~13.
 *
 * <p>Which children exist is known without a request when the claim's read found them all (every
 * child a job may have was read, and their number is the job node's) and the lease chain kept
 * up its own creates and deletes since ({@link JobLock#wrote}); else they are listed once, under
 * the job's lock, before the transaction is built. Only the lock's holder adds or removes them
 * (mrt-zk's hosts take the same lock), so either holds until the commit; were it wrong anyway, a
 * delete of a missing node fails the whole transaction, nothing is written, and the move is made
 * again with the children listed ({@code JobRecords.move}).
 */
final class JobCompaction {
    /** The children a completed job loses; its status carries the first two. */
    static final Set<String> REMOVED = Set.of("configuration", "effects", "metadata", "inventory", "store");

    private final ZooKeeperCalls zk;

    JobCompaction(ZooKeeperCalls zk) {
        this.zk = zk;
    }

    /** The status with the job's summary, and the deletes that go with it into the move's transaction. */
    JobStatus compact(JobLock lock, JobStatus status, int priority, long spaceNeeded, List<Op> ops) {
        Job job = lock.job();
        String jid = job.id();
        Set<String> listed = lock.children(); // known since the claim's read: no request
        List<String> children = listed != null ? List.copyOf(listed) : zk.children(QueuePaths.job(jid), lock.childCount());
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
        KnownEffects known = lock.effects;
        if (known != null && known.unwritten()) { // records this move would have written: into the summary (no node had them)
            effects = known.effects();
        }
        int budget = QueueLimits.nodeBytes(QueuePaths.jobStatus(jid)) - QueueJson.write(status).length - 64; // the key's bytes
        JobSummary summary = JobSummary.of(job.configuration(), job.identifiers(), effects, priority, spaceNeeded, budget);
        ops.addAll(deletes);
        return new JobStatus(status.status(), status.lastSuccessfulStatus(), status.lastModified(), status.retryCount(),
                status.message(), status.history(), summary);
    }

    /** The effects node as the lock knows it, else read with its version (it exists: it was just listed). */
    private KnownEffects effects(JobLock lock) {
        KnownEffects known = lock.effects;
        if (known != null && known.version() >= 0) {
            return known;
        }
        String path = QueuePaths.jobNode(lock.jid(), "effects");
        Stat stat = new Stat();
        return new KnownEffects(QueueJson.read(path, zk.read(path, stat), JobEffects.class), stat.getVersion());
    }
}
