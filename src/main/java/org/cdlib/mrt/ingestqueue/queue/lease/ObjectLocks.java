package org.cdlib.mrt.ingestqueue.queue.lease;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.errors.NotFoundException;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.errors.StaleLockException;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.JobStatus;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.Probes;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * One writer per object: {@code /locks/objects/<url-encoded ARK>} names the job writing the object,
 * from processing through storing until it leaves recording (the move out of recording deletes it
 * in its own transaction, as does a failure or hold on the way). Persistent, since processing,
 * storing and recording may run on different hosts.
 */
public final class ObjectLocks {
    /** The states in which a job is writing its object: it keeps the lock from one to the next. */
    private static final Set<JobState> WRITING = EnumSet.of(JobState.PROCESSING, JobState.STORING,
            JobState.RECORDING);

    /** An object lock a lease took: its ARK and the version it left the node at. */
    public record Held(String ark, int version) {
    }

    private final ZooKeeperCalls zk;

    public ObjectLocks(ZooKeeperCalls zk) {
        this.zk = zk;
    }

    /**
     * Takes the object's lock for this job (persistent: it spans processing, storing and recording,
     * which may run on different hosts), unless another job holds it and is still writing the object
     * (in processing, storing or recording). Returns null when taken (or already ours), else the holder.
     */
    public String lock(HeldJob lock, String ark) {
        Held known = lock.chain().object();
        if (known != null && known.ark().equals(ark)) {
            // taken under this lease, which has kept the job in a writing state since: nobody could take it over
            return null;
        }
        String path = QueuePaths.objectLock(ark);
        byte[] mine = QueueJson.text(lock.jid());
        for (int attempt = 0; attempt < 5; attempt++) {
            Stat stat = new Stat();
            byte[] held = null;
            // entering processing, the object is rarely locked: the create is sent unread, and fails whole if it is
            if (attempt > 0 || lock.job().state() != JobState.PROCESSING) {
                try {
                    held = zk.read(path, stat);
                } catch (NotFoundException e) {
                    held = null;
                }
            }
            List<Op> ops = new ArrayList<>(List.of(Op.check(QueuePaths.jobLock(lock.jid()), -1),
                    Op.check(QueuePaths.jobStatus(lock.jid()), lock.job().statusVersion())));
            if (held == null) {
                ops.add(ZooKeeperCalls.create(path, mine));
            } else {
                String holder = QueueJson.text(held);
                if (holder.equals(lock.jid())) {
                    Held ours = new Held(ark, stat.getVersion());
                    lock.chain(c -> c.withObject(ours));
                    return null;
                }
                Stat holderStat = new Stat();
                byte[] st;
                try {
                    st = zk.read(QueuePaths.jobStatus(holder), holderStat);
                } catch (NotFoundException e) {
                    st = null;
                }
                JobState state = null;
                try {
                    state = st == null ? null
                            : QueueJson.read(QueuePaths.jobStatus(holder), st, JobStatus.class).state();
                } catch (RuntimeException e) {
                    // a damaged holder cannot be writing: take the object over
                }
                if (state != null && WRITING.contains(state)) {
                    return holder;
                }
                zk.probes().reached(Probes.Point.AFTER_HOLDER_READ);
                // the holder moved on without letting go: taken over only if it is still where it was read
                // (a requeue into processing or storing meanwhile moves its status, and this transaction fails)
                if (st != null) { // a holder that is gone cannot come back
                    ops.add(Op.check(QueuePaths.jobStatus(holder), holderStat.getVersion()));
                }
                ops.add(ZooKeeperCalls.setData(path, mine, stat.getVersion()));
            }
            try {
                long sent = System.nanoTime();
                List<OpResult> results = zk.commit(lock.lease().zk, ops,
                        () -> Arrays.equals(mine, zk.readOrNull(path)));
                if (!results.isEmpty()) { // answered, not read back: the version it left is known
                    Held taken = new Held(ark, held == null ? 0 : stat.getVersion() + 1);
                    // it checked the job's lock and status: the fence of the writes after it reads nothing
                    lock.chain(c -> c.withObject(taken).confirmed(sent));
                }
                return null;
            } catch (KeeperException.NodeExistsException | KeeperException.BadVersionException e) {
                // the job's own status moved (stale), or another job or the holder moved first: look again
                Stat status = zk.stat(QueuePaths.jobStatus(lock.jid()));
                if (status == null || status.getVersion() != lock.job().statusVersion()) {
                    throw new StaleLockException("job " + lock.jid() + ": moved or its lock broken; object " + ark
                            + " not locked");
                }
                // another job took the object meanwhile: look again
            } catch (KeeperException.NoNodeException e) {
                if (!zk.exists(QueuePaths.OBJECT_LOCKS)) {
                    zk.createPersistent(QueuePaths.OBJECT_LOCKS, ZooKeeperCalls.EMPTY);
                    continue;
                }
                throw new StaleLockException("job " + lock.jid() + ": the lock is gone; object " + ark + " not locked");
            } catch (KeeperException e) {
                throw new QueueException("job " + lock.jid() + ": cannot lock object " + ark + ": " + e.getMessage(),
                        e);
            }
        }
        throw new QueueException("job " + lock.jid() + ": object lock " + path + " is too contended");
    }

    /**
     * A lease whose job lock someone else removed (Merritt's Admin Tool "Fail" deletes the lock of a
     * job a worker holds; an operator's break) leaves its object lock behind, since no move of its
     * holder ever ends its writing. It is let go here, when the lock names this job and the job is
     * no longer writing (failed, held, deleted, pending again): deleted at the version read, with a
     * check of the job's status at the version that said so, so a requeue meanwhile (which moves the
     * status, and whose new holder keeps the same node for the same job) makes it a no-op.
     */
    static void letGoAbandoned(ZooKeeperCalls zk, HeldJob lock) {
        Held known = lock.chain().object();
        lock.chain(c -> c.withObject(null));
        Job job = lock.job();
        String ark = known != null ? known.ark() : job == null ? null : job.identifiers().primary();
        if (ark == null || ark.isEmpty() || (known == null && !WRITING.contains(job.state()))) {
            return; // a lease that took none, or whose state holds none
        }
        String path = QueuePaths.objectLock(ark);
        try {
            Stat objectStat = new Stat();
            byte[] holder = zk.read(path, objectStat);
            if (!lock.jid().equals(QueueJson.text(holder))) {
                return;
            }
            Stat statusStat = new Stat();
            String status = QueuePaths.jobStatus(lock.jid());
            JobState now = QueueJson.read(status, zk.read(status, statusStat), JobStatus.class).state();
            if (WRITING.contains(now)) {
                return; // still writing the object (requeued, or its lock lost with a session): its holder keeps it
            }
            zk.commit(zk.currentHandle(), List.of(
                    Op.check(QueuePaths.jobStatus(lock.jid()), statusStat.getVersion()),
                    Op.delete(path, objectStat.getVersion())), () -> zk.readOrNull(path) == null);
        } catch (NotFoundException e) {
            // the job or the lock is gone: nothing held
        } catch (KeeperException e) {
            // moved meanwhile: whoever moved it decides
        } catch (RuntimeException e) {
            // a damaged status or an unreachable ZooKeeper: the next holder of the object takes it over
        }
    }

    /**
     * The delete of the job's object lock, when a move ends its writing of the object and it holds
     * one: anything but processing → storing → recording (a failure, a hold, recording's success).
     */
    public void addRelease(List<Op> ops, HeldJob lock, JobState from, JobState to) {
        Job job = lock.job();
        String ark = job.identifiers().primary();
        if (ark == null || !WRITING.contains(from) || (to == from.successor() && WRITING.contains(to))) {
            return;
        }
        Held known = lock.chain().object();
        lock.chain(c -> c.withObject(null)); // released by the move, or (if it fails) to be read again
        if (known != null && known.ark().equals(ark)) {
            ops.add(Op.delete(QueuePaths.objectLock(ark), known.version()));
            return;
        }
        Stat stat = new Stat();
        try {
            if (job.id().equals(QueueJson.text(zk.read(QueuePaths.objectLock(ark), stat)))) {
                ops.add(Op.delete(QueuePaths.objectLock(ark), stat.getVersion()));
            }
        } catch (NotFoundException e) {
            // not locked
        }
    }
}
