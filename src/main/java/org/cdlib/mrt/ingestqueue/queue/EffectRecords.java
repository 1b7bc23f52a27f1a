package org.cdlib.mrt.ingestqueue.queue;

import java.util.List;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;

/** {@code /jobs/JID/effects}: reads and writes of a job's outside-effect records, under its lock. */
final class EffectRecords {
    private final ZooKeeperCalls zk;

    EffectRecords(ZooKeeperCalls zk) {
        this.zk = zk;
    }

    /** The job's recorded effects, read through the lock's own handle. */
    JobEffects read(JobLock lock) {
        String path = QueuePaths.jobNode(lock.jid(), "effects");
        byte[] data = zk.readOrNull(path);
        return data == null ? JobEffects.none() : QueueJson.read(path, data, JobEffects.class);
    }

    /**
     * Writes one effect's record under the lock (the transaction checks the lock is still held:
     * a worker whose lock is gone records nothing). Read back after a lost connection.
     */
    JobEffects record(JobLock lock, String name, String state, String detail) {
        String path = QueuePaths.jobNode(lock.jid(), "effects");
        org.apache.zookeeper.data.Stat stat = new org.apache.zookeeper.data.Stat();
        byte[] old;
        try {
            old = zk.read(path, stat);
        } catch (NotFoundException e) {
            old = null;
        }
        JobEffects next = (old == null ? JobEffects.none() : QueueJson.read(path, old, JobEffects.class)).with(name, state, detail);
        byte[] data = QueueJson.write(next);
        List<Op> ops = List.of(Op.check(QueuePaths.jobLock(lock.jid()), -1),
                Op.check(QueuePaths.jobStatus(lock.jid()), lock.job().statusVersion()), old == null
                ? ZooKeeperCalls.create(path, data) : ZooKeeperCalls.setData(path, data, stat.getVersion()));
        try {
            zk.commit(lock.zk, ops, () -> java.util.Arrays.equals(data, zk.readOrNull(path)));
        } catch (KeeperException.NoNodeException | KeeperException.SessionExpiredException | KeeperException.BadVersionException e) {
            throw new StaleLockException("job " + lock.jid() + ": the lock is gone; effect " + name + " not recorded");
        } catch (KeeperException e) {
            throw new QueueException("job " + lock.jid() + ": cannot record effect " + name + ": " + e.getMessage(), e);
        }
        return next;
    }
}
