package org.cdlib.mrt.ingestqueue.queue.lease;

import org.apache.zookeeper.ZooKeeper;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.LockOwner;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;

/** A held {@code /jobs/JID/lock}; see {@link Lease} for the guarantees. */
public final class JobLock extends Lease {
    private final String jid;
    private volatile Job job;
    /** The job's effects node as this lock last read or wrote it; null: to be read. */
    public volatile KnownEffects effects;
    /**
     * The object lock this lease took and holds, known while the lease lives on in this process
     * (handed from processing to storing to recording); null: to be read.
     */
    private volatile ObjectLocks.Held object;
    /** How many children the job's node had when it was claimed (its Stat, read behind the lock); -1: unknown. */
    private volatile int childCount = -1;

    public JobLock(String jid, LockOwner owner, ZooKeeper zk) {
        super(QueuePaths.jobLock(jid), owner, zk);
        this.jid = jid;
    }

    /** The object lock this lease holds as it knows it, or null. */
    public ObjectLocks.Held heldObject() {
        return object;
    }

    /** Hands the knowledge on to the lease that continues this one in the next state. */
    public void heldObject(ObjectLocks.Held held) {
        this.object = held;
    }

    public int childCount() {
        return childCount;
    }

    /** Only the lock's holder adds a job's children: a count read under the lock stays a bound for it, plus its own few. */
    public void childCount(int count) {
        this.childCount = count;
    }

    public String jid() {
        return jid;
    }

    /** The job as read right after locking (or after the last write made under this lock). */
    public Job job() {
        return job;
    }

    public void job(Job job) {
        this.job = job;
    }

    @Override
    String what() {
        return "job " + jid;
    }
}
