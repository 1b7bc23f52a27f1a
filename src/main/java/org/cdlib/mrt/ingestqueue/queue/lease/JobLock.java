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

    /**
     * Which children the job's node has, as this lease chain knows them: read behind the lock
     * (every child a job may have, their number checked against the node's) and kept up by the
     * lease's own writes ({@link #wrote}); null: not known, to be listed.
     */
    private volatile java.util.Set<String> children;

    public java.util.Set<String> children() {
        return children;
    }

    public void children(java.util.Set<String> names) {
        this.children = names == null ? null : java.util.Set.copyOf(names);
    }

    /** A transaction under this lease was applied: the job's children it created or deleted are known. */
    public void wrote(java.util.List<org.apache.zookeeper.Op> ops) {
        java.util.Set<String> known = children;
        if (known == null) {
            return;
        }
        java.util.Set<String> now = new java.util.HashSet<>(known);
        String prefix = QueuePaths.job(jid) + "/";
        for (org.apache.zookeeper.Op op : ops) {
            String path = op.getPath();
            if (!path.startsWith(prefix) || path.indexOf('/', prefix.length()) >= 0) {
                continue;
            }
            String name = path.substring(prefix.length());
            switch (op.getType()) {
                case org.apache.zookeeper.ZooDefs.OpCode.create, org.apache.zookeeper.ZooDefs.OpCode.create2 -> now.add(name);
                case org.apache.zookeeper.ZooDefs.OpCode.delete -> now.remove(name);
                default -> { }
            }
        }
        children = java.util.Set.copyOf(now);
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
