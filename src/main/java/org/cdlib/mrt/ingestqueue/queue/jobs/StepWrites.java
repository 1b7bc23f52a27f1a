package org.cdlib.mrt.ingestqueue.queue.jobs;

import java.util.Arrays;
import java.util.List;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.errors.StaleLockException;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.lease.ObjectLocks;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.JobStatus;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.MultiCommit;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a step records under its job's lock while it works, so a job restarted after a crash or a
 * lost connection repeats no outside effect: the object's identifiers, each outside effect as
 * started and done ({@code /jobs/JID/effects}), and the object lock (one writer per object).
 * Every write is fenced by the job's lock.
 */
public final class StepWrites {
    private static final Logger LOG = LoggerFactory.getLogger(StepWrites.class);

    private final ZooKeeperCalls zk;
    private final EffectsNode effects;
    private final ObjectLocks objects;

    public StepWrites(ZooKeeperCalls zk, EffectsNode effects, ObjectLocks objects) {
        this.zk = zk;
        this.effects = effects;
        this.objects = objects;
    }

    public void writeIdentifiers(HeldJob lock, Identifiers identifiers) {
        writeIdentifiersNode(lock, identifiers);
        LOG.info("job {} batch {}: identifiers {} {}", lock.jid(), lock.job().batchId(), identifiers.primary(),
                identifiers.localId());
    }

    /**
     * The identifiers and the mint's record as done with the ARK {@code minted}, in one transaction
     * under the job's lock. {@code minted} differs from the identifiers' ARK when another job bound
     * the local id first: the record then names the ARK left unused at the minter.
     */
    public JobEffects writeMintedIdentifiers(HeldJob lock, Identifiers identifiers, String minted) {
        JobEffects fx = effects.record(lock, JobEffects.MINT, "done", minted,
                List.of(identifiersWrite(lock.jid(), identifiers)));
        identifiersWritten(lock, identifiers);
        LOG.info("job {} batch {}: identifiers {} {} (minted{})", lock.jid(), lock.job().batchId(),
                identifiers.primary(),
                identifiers.localId(), minted.equals(identifiers.primary()) ? "" : " " + minted + ", not used");
        return fx;
    }

    /**
     * Before a mint whose earlier attempt began and recorded no answer: that mint is recorded as
     * lost (its ARK, if EZID made one, is never used) and this one as started, in one transaction.
     */
    public JobEffects mintAgain(HeldJob lock, String detail) {
        return effects.record(lock, JobEffects.MINT, fx -> fx.withLostMint().with(JobEffects.MINT, "started", detail),
                List.of());
    }

    /**
     * One writer per object: takes the ARK's object lock for this job until it leaves recording
     * (or fails, or is held). Null when the job holds it now; else the job that is writing the
     * object, for which this one waits (it stays in its state, no worker thread is held).
     */
    public String lockObject(HeldJob lock, String ark) {
        return objects.lock(lock, ark);
    }

    /** The job's recorded outside effects (none yet: empty). */
    public JobEffects effects(HeldJob lock) {
        return effects.read(lock);
    }

    /** Records an effect as started (just before the call), under the job's lock. */
    public JobEffects effectStarted(HeldJob lock, String name, String detail) {
        return effects.record(lock, name, "started", detail);
    }

    /**
     * The storage add about to be sent, recorded as started with {@code detail}, and described as
     * mrt-zk describes it ({@link MerrittJobNodes#store}) by the same transaction.
     */
    public JobEffects storeStarted(HeldJob lock, String detail, String manifestUrl, String mode, List<String> deleted) {
        boolean written = effects.read(lock).get(JobEffects.STORAGE) != null; // by the transaction that recorded it
        return effects.record(lock, JobEffects.STORAGE, "started", detail,
                exists -> MerrittJobNodes.store(lock.jid(), manifestUrl, mode, deleted, exists), written);
    }

    /**
     * The add's answer recorded as done, and the version's inventory record described as mrt-zk does, in one
     * transaction.
     */
    public JobEffects storeDone(HeldJob lock, String detail, String inventoryManifestUrl) {
        boolean written = effects.read(lock).done(JobEffects.STORAGE);
        return effects.record(lock, JobEffects.STORAGE, "done", detail,
                exists -> MerrittJobNodes.inventory(lock.jid(), inventoryManifestUrl, exists), written);
    }

    /**
     * Records an effect that may be repeated as done, with the job's next write under its lock
     * (its move, usually) rather than a transaction of its own ({@link EffectsNode#recordWithNextWrite}).
     */
    public void effectDoneWithNextWrite(HeldJob lock, String name, String detail) {
        effects.recordWithNextWrite(lock, name, "done", detail);
    }

    /** Records an effect as done with its result (right after the call), under the job's lock. */
    public JobEffects effectDone(HeldJob lock, String name, String detail) {
        return effects.record(lock, name, "done", detail);
    }

    /** Writes the job's identifiers at once (an ARK just minted), under its lock. */
    private void writeIdentifiersNode(HeldJob lock, Identifiers identifiers) {
        String jid = lock.jid();
        String path = QueuePaths.jobNode(jid, "identifiers");
        List<Op> ops = List.of(Op.check(QueuePaths.jobLock(jid), -1),
                Op.check(QueuePaths.jobStatus(jid), lock.job().statusVersion()), // a broken lock moved it: fenced
                identifiersWrite(jid, identifiers));
        try {
            long sent = System.nanoTime();
            MultiCommit.AppliedCheck applied =
                    () -> identifiers.equals(QueueJson.read(path, zk.readOrNull(path), Identifiers.class));
            if (!zk.commit(lock.lease().zk, ops, applied).isEmpty()) {
                lock.chain(c -> c.confirmed(sent));
            }
        } catch (KeeperException.NoNodeException | KeeperException.BadVersionException e) {
            throw new StaleLockException("job " + jid + ": lock lost before identifiers were written");
        } catch (KeeperException.SessionExpiredException e) {
            throw new StaleLockException("job " + jid + ": session expired before identifiers were written");
        } catch (KeeperException e) {
            throw new QueueException("job " + jid + ": cannot write identifiers: " + e.getMessage(), e);
        }
        identifiersWritten(lock, identifiers);
    }

    /**
     * Shows {@code message} in the job's status (mrt-zk's {@code message}; null clears it) while it stays in its
     * state, say why it waits: one transaction under its lock, and only when the message changes, so a job tried
     * again and again for the same reason writes once. True when it wrote. The move that takes the job on clears it.
     */
    public boolean statusMessage(HeldJob lock, String message) {
        Job job = lock.job();
        JobStatus old = job.status();
        JobStatus status = new JobStatus(old.status(), old.lastSuccessfulStatus(), old.lastModified(),
                old.retryCount(), message, old.history(), old.summary(), old.heldBy());
        if (status.message().equals(old.message())) {
            return false;
        }
        String jid = job.id();
        String path = QueuePaths.jobStatus(jid);
        byte[] data = QueueJson.write(status);
        List<Op> ops = List.of(Op.check(QueuePaths.jobLock(jid), -1),
                ZooKeeperCalls.setData(path, data, job.statusVersion())); // a broken lock moved it: fenced
        try {
            long sent = System.nanoTime();
            MultiCommit.AppliedCheck applied = () -> Arrays.equals(data, zk.readOrNull(path));
            if (!zk.commit(lock.lease().zk, ops, applied).isEmpty()) {
                lock.chain(c -> c.confirmed(sent));
            }
        } catch (KeeperException.NoNodeException | KeeperException.BadVersionException e) {
            throw new StaleLockException("job " + jid + ": lock lost before its status message was written");
        } catch (KeeperException.SessionExpiredException e) {
            throw new StaleLockException("job " + jid + ": session expired before its status message was written");
        } catch (KeeperException e) {
            throw new QueueException("job " + jid + ": cannot write its status message: " + e.getMessage(), e);
        }
        lock.chain(c -> c.withJob(new Job(jid, job.batchId(), job.configuration(), status, job.priority(),
                job.spaceNeeded(), job.identifiers(), job.statusVersion() + 1, job.lockOwner())));
        return true;
    }

    static Op identifiersWrite(String jid, Identifiers identifiers) {
        return ZooKeeperCalls.setData(QueuePaths.jobNode(jid, "identifiers"), QueueJson.write(identifiers), -1);
    }

    /** The lock's job carries the identifiers a transaction under it wrote. */
    static void identifiersWritten(HeldJob lock, Identifiers identifiers) {
        lock.chain(c -> {
            Job j = c.job();
            return c.withJob(new Job(j.id(), j.batchId(), j.configuration(), j.status(), j.priority(), j.spaceNeeded(),
                    identifiers, j.statusVersion(), j.lockOwner()));
        });
    }
}
