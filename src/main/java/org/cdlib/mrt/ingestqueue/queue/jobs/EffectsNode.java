package org.cdlib.mrt.ingestqueue.queue.jobs;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.errors.NotFoundException;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.errors.StaleLockException;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.lease.KnownEffects;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.MultiCommit;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * {@code /jobs/JID/effects}: reads and writes of a job's outside-effect records, under its lock (a completed
 * job's: its summary).
 */
public final class EffectsNode {
    private final ZooKeeperCalls zk;

    public EffectsNode(ZooKeeperCalls zk) {
        this.zk = zk;
    }

    /** The job's recorded effects: as the lock knows them, else read. */
    JobEffects read(HeldJob lock) {
        return known(lock).effects();
    }

    private KnownEffects known(HeldJob lock) {
        KnownEffects k = lock.chain().effects();
        if (k != null) {
            return k;
        }
        String path = QueuePaths.jobNode(lock.jid(), "effects");
        Stat stat = new Stat();
        try {
            return new KnownEffects(QueueJson.read(path, zk.read(path, stat), JobEffects.class), stat.getVersion());
        } catch (NotFoundException e) {
            return new KnownEffects(summarised(lock.job()), -1);
        }
    }

    /**
     * A completed job's effects, from its status's summary ({@link JobCompaction}); none for any other without the
     * node.
     */
    static JobEffects summarised(Job job) {
        return job == null || job.status().summary() == null ? JobEffects.none() : job.status().summary().jobEffects();
    }

    /**
     * Writes one effect's record under the lock (the transaction checks the lock is still held:
     * a worker whose lock is gone records nothing). Read back after a lost connection.
     */
    JobEffects record(HeldJob lock, String name, String state, String detail) {
        return record(lock, name, state, detail, List.of());
    }

    /** As {@link #record(HeldJob, String, String, String)}, with {@code also} written by the same transaction. */
    JobEffects record(HeldJob lock, String name, String state, String detail, List<Op> also) {
        return record(lock, name, fx -> fx.with(name, state, detail), also);
    }

    /**
     * Records an effect's state without a transaction of its own: the lease's next transaction
     * carries it (the job's move, its next record, or the write before its lock is let go). For
     * an effect that may be repeated (inventory's add of a version it has, EZID's update, a
     * callback under its key) recorded as done right before its step ends: a crash before that
     * transaction leaves it started, as a crash before its own transaction would.
     */
    void recordWithNextWrite(HeldJob lock, String name, String state, String detail) {
        KnownEffects base = known(lock);
        KnownEffects next = new KnownEffects(base.effects().with(name, state, detail), base.version(), true);
        lock.chain(c -> c.withEffects(next));
    }

    /**
     * The write of records not written yet ({@link #recordWithNextWrite}), for a transaction under the lease;
     * null: none.
     */
    static Op unwritten(HeldJob lock) {
        KnownEffects k = lock.chain().effects();
        if (k == null || !k.unwritten()) {
            return null;
        }
        String path = QueuePaths.jobNode(lock.jid(), "effects");
        byte[] data = QueueJson.write(k.effects());
        return k.version() < 0 ? ZooKeeperCalls.create(path, data) : ZooKeeperCalls.setData(path, data, k.version());
    }

    /**
     * After a transaction that carried {@link #unwritten}: answered, the node's version is known; read back, it
     * is not.
     */
    static void written(HeldJob lock, boolean answered) {
        KnownEffects k = lock.chain().effects();
        if (k != null && k.unwritten()) {
            lock.chain(c -> c.withEffects(answered ? new KnownEffects(k.effects(), k.version() + 1) : null));
        }
    }

    /** Writes the records not written yet on their own (the lock is let go without a move). */
    public void flush(HeldJob lock) {
        KnownEffects k = lock.chain().effects();
        if (k != null && k.unwritten()) {
            record(lock, "records", fx -> fx, List.of());
        }
    }

    /**
     * As {@link #record(HeldJob, String, String, String)}, with a node of the job written by the same
     * transaction: {@code node} makes its create ({@code false}) or overwrite ({@code true}), and
     * {@code exists} is the caller's guess, so no read of the node is sent. A wrong guess fails
     * the transaction on that node alone (nothing was written) and the other form is sent once.
     */
    JobEffects record(HeldJob lock, String name, String state, String detail, Function<Boolean, Op> node,
            boolean exists) {
        try {
            return record(lock, name, fx -> fx.with(name, state, detail), List.of(node.apply(exists)), true);
        } catch (WrongGuess e) {
            return record(lock, name, fx -> fx.with(name, state, detail), List.of(node.apply(!exists)));
        }
    }

    /** The node written with the records was not as guessed (missing, or there already): nothing was written. */
    private static final class WrongGuess extends RuntimeException {
        WrongGuess() {
            super(null, null, false, false);
        }
    }

    /**
     * Writes what {@code change} makes of the records (more than one effect at once), fenced alike; {@code name}
     * for messages.
     */
    JobEffects record(HeldJob lock, String name, UnaryOperator<JobEffects> change, List<Op> also) {
        return record(lock, name, change, also, false);
    }

    private JobEffects record(HeldJob lock, String name, UnaryOperator<JobEffects> change, List<Op> also,
            boolean guessed) {
        String path = QueuePaths.jobNode(lock.jid(), "effects");
        KnownEffects base = known(lock);
        JobEffects next = change.apply(base.effects());
        byte[] data = QueueJson.write(next);
        List<Op> ops = new ArrayList<>(List.of(Op.check(QueuePaths.jobLock(lock.jid()), -1),
                Op.check(QueuePaths.jobStatus(lock.jid()), lock.job().statusVersion()), base.version() < 0
                ? ZooKeeperCalls.create(path, data) : ZooKeeperCalls.setData(path, data, base.version())));
        ops.addAll(also);
        lock.chain(c -> c.withEffects(null)); // unknown until the outcome is
        try {
            long sent = System.nanoTime();
            List<OpResult> results = zk.commit(lock.lease().zk, ops, () -> Arrays.equals(data, zk.readOrNull(path)));
            if (!results.isEmpty()) { // answered (not read back after a lost connection): the version is known
                // it checked the lock and the status: the fence before the send reads nothing
                lock.chain(c -> c.withEffects(new KnownEffects(next, base.version() + 1)).confirmed(sent));
            }
            // applied, answered or read back: the children it created are there
            lock.chain(c -> c.wrote(lock.jid(), ops));
        } catch (KeeperException.NoNodeException | KeeperException.NodeExistsException e) {
            int failed = MultiCommit.firstFailed(e);
            // past the fence and the records: a node written with them
            if (guessed && failed >= ops.size() - also.size()) {
                lock.chain(c -> c.withEffects(base));
                throw new WrongGuess();
            }
            throw new StaleLockException("job " + lock.jid() + ": the lock is gone; effect " + name + " not recorded");
        } catch (KeeperException.SessionExpiredException | KeeperException.BadVersionException e) {
            throw new StaleLockException("job " + lock.jid() + ": the lock is gone; effect " + name + " not recorded");
        } catch (KeeperException e) {
            throw new QueueException("job " + lock.jid() + ": cannot record effect " + name + ": " + e.getMessage(), e);
        }
        return next;
    }
}
