package org.cdlib.mrt.ingestqueue.queue.jobs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.zookeeper.OpResult;
import org.cdlib.mrt.ingestqueue.queue.errors.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.lease.EphemeralLocks;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldLocks;
import org.cdlib.mrt.ingestqueue.queue.lease.JobChain;
import org.cdlib.mrt.ingestqueue.queue.lease.JobLock;
import org.cdlib.mrt.ingestqueue.queue.lease.KnownEffects;
import org.cdlib.mrt.ingestqueue.queue.lease.LockBreaks;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.LockOwner;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * Taking a job to work on: its ephemeral lock ({@code /jobs/JID/lock}) and its nodes, read in the
 * same round trip. A claim never blocks on another holder, and re-checks after locking that the
 * job is still in the state its reference was seen in.
 */
public final class JobClaims {
    private final EphemeralLocks locks;
    private final Jobs jobs;
    private final Path ingestHome;
    /** Jobs read with their sizes looked at first when claimed ({@link #readBehindLock}). */
    private final Set<String> readSized = ConcurrentHashMap.newKeySet();
    private static final int READ_SIZED_MAX = 10_000;

    public JobClaims(EphemeralLocks locks, Jobs jobs, Path ingestHome) {
        this.locks = locks;
        this.jobs = jobs;
        this.ingestHome = ingestHome;
    }

    /**
     * Takes {@code /jobs/JID/lock} if nobody holds it and loads the job, both in one round trip
     * (the read is sent right behind the lock's create); never blocks on another holder.
     */
    public Optional<HeldJob> tryLockJob(String jid, String worker) {
        LockOwner owner = locks.owner(worker);
        return locked(jid, owner, locks.send(QueuePaths.jobLock(jid), owner, readBehindLock(jid)));
    }

    /**
     * What is read right behind the lock's create: the job's nodes, unless the job was found damaged
     * before. A node larger than its kind may hold, read blind, can make an answer larger than a
     * ZooKeeper packet, which drops the host's connection (every consumer pauses, every request in
     * flight is lost); a damaged job is read with its sizes looked at first from then on
     * ({@code Jobs.find}), and named damaged there again, so it drops the connection once per
     * process, not on every retry of its claim.
     */
    private List<String> readBehindLock(String jid) {
        if (readSized.contains(jid)) {
            return List.of();
        }
        List<String> paths = new ArrayList<>(JobNodes.paths(jid));
        // every child a job may have, and the job node's Stat that counts them: completing then knows
        // which to delete without listing them (JobCompaction)
        JobNodes.NOT_READ.forEach(c -> paths.add(QueuePaths.jobNode(jid, c)));
        paths.add(QueuePaths.job(jid));
        return paths;
    }

    /** The job's children the read found, when they are all it has (their count is the node's); else null. */
    private static Set<String> present(String jid, Map<String, OpResult> read, int count) {
        Set<String> names = Stream.concat(JobNodes.CHILDREN.stream(), JobNodes.NOT_READ.stream())
                .filter(c -> ZooKeeperCalls.dataOf(read.get(QueuePaths.jobNode(jid, c))) != null)
                .collect(Collectors.toSet());
        return names.size() == count ? names : null;
    }

    /** What the lease chain knows from the claim's read behind the lock (only the job, without one). */
    private static JobChain claimed(String jid, Job job, Map<String, OpResult> read) {
        if (read == null) {
            return JobChain.claimed(job, null, null, -1);
        }
        OpResult.GetDataResult jobNode = ZooKeeperCalls.dataOf(read.get(QueuePaths.job(jid)));
        int count = jobNode == null ? -1 : jobNode.getStat().getNumChildren();
        Set<String> children = jobNode == null ? null : present(jid, read, count);
        String path = QueuePaths.jobNode(jid, "effects");
        KnownEffects effects = KnownEffects.of(path, read.get(path));
        if (effects != null && effects.version() < 0) {
            effects = new KnownEffects(EffectsNode.summarised(job), -1);
        }
        return JobChain.claimed(job, effects, children, count);
    }

    /** A job found damaged when claimed; bounded. */
    private void damaged(String jid) {
        if (readSized.size() >= READ_SIZED_MAX) {
            readSized.clear(); // forgotten jobs drop the connection once more, at worst
        }
        readSized.add(jid);
    }

    private Optional<HeldJob> locked(String jid, LockOwner owner, EphemeralLocks.Pending sent) {
        Optional<EphemeralLocks.Taken> taken = locks.await(sent);
        if (taken.isEmpty()) {
            return Optional.empty();
        }
        JobLock lease = new JobLock(jid, owner, taken.get().handle());
        try {
            Map<String, OpResult> read = taken.get().read();
            Optional<Job> job;
            try {
                job = read != null ? Jobs.one(JobNodes.parse(List.of(jid), read, Jobs::corrupt, ingestHome))
                        : jobs.find(jid);
            } catch (CorruptNodeException e) {
                damaged(jid);
                throw e;
            }
            if (read == null && job.isPresent()) {
                readSized.remove(jid); // repaired: read behind the lock again
            }
            if (job.isEmpty()) {
                locks.release(new HeldJob(lease, JobChain.NONE));
                return Optional.empty();
            }
            return Optional.of(new HeldJob(lease, claimed(jid, job.get(), read)));
        } catch (RuntimeException e) {
            locks.release(new HeldJob(lease, JobChain.NONE));
            throw e;
        }
    }

    /**
     * Claims many references of a state at once: every lock create and read is sent before any
     * answer is awaited (one round trip for all). Each element, when called, finishes its own
     * claim as {@link #claim} does, and throws for its own job only.
     */
    public List<Supplier<Optional<HeldJob>>> claimAll(JobState state, List<String> refNames, String worker) {
        List<Supplier<Optional<HeldJob>>> out = new ArrayList<>();
        try {
            for (String ref : refNames) {
                String jid = QueuePaths.jidOfRef(ref);
                LockOwner owner = locks.owner(worker);
                EphemeralLocks.Pending sent = locks.send(QueuePaths.jobLock(jid), owner, readBehindLock(jid));
                out.add(() -> inState(state, locked(jid, owner, sent)));
            }
        } catch (RuntimeException e) {
            for (var sent : out) { // what went out may have locked: no lock of ours stays behind
                try {
                    sent.get().ifPresent(locks::release);
                } catch (RuntimeException ignored) {
                    // that one's own trouble; the lock (if any) goes with the session at worst
                }
            }
            throw e;
        }
        return out;
    }

    private Optional<HeldJob> inState(JobState state, Optional<HeldJob> lock) {
        if (lock.isPresent() && lock.get().job().state() != state) {
            locks.release(lock.get());
            return Optional.empty();
        }
        return lock;
    }

    /** The ledger of the job locks this process holds on purpose (fsck never breaks one it names). */
    public HeldLocks held() {
        return locks.held();
    }

    /** The one path by which a job lock that is not its holder's own is removed (fsck, repairs, an operator). */
    public LockBreaks breaks() {
        return locks.breaks();
    }

    /** A lock taken here was removed by its holder's own transaction (a repair): out of the ledger. */
    public void removed(HeldJob lock) {
        locks.removed(lock.lease());
    }

    /** Takes the lock without reading the job (to repair or delete a damaged one). */
    public Optional<HeldJob> lockJobNode(String jid, String worker) {
        LockOwner owner = locks.owner(worker);
        // nothing known of the job: a lock taken to repair or delete it
        return locks.take(QueuePaths.jobLock(jid), owner)
                .map(h -> new HeldJob(new JobLock(jid, owner, h), JobChain.NONE));
    }

    /**
     * Locks the job behind a reference seen in {@code state} and re-checks, after locking, that
     * the job is still in that state; empty when someone else has it or it moved on.
     */
    public Optional<HeldJob> claim(JobState state, String refName, String worker) {
        return inState(state, tryLockJob(QueuePaths.jidOfRef(refName), worker));
    }

    /** The first job of the state, in priority order, that this caller could lock. */
    public Optional<HeldJob> claimNext(JobState state, String worker) {
        for (String ref : jobs.refs(state)) {
            Optional<HeldJob> lock = claim(state, ref, worker);
            if (lock.isPresent()) {
                return lock;
            }
        }
        return Optional.empty();
    }
}
