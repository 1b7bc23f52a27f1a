package org.cdlib.mrt.ingestqueue.queue;

import java.io.Closeable;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one layer that reads and writes the queue in ZooKeeper (no Camel here): a façade over
 * {@link BatchRecords}, {@link JobRecords}, {@link JobCreation}, {@link EphemeralLocks} and
 * {@link ZooKeeperCalls}, each of one concern.
 *
 * <p>Guarantees:
 * <ul>
 * <li>Every state change is one {@code multi()}; a job never has zero or two references, a
 * batch's index entry always matches its status.</li>
 * <li>Writes made under a lock go through the ZooKeeper handle that took the lock; a writer whose
 * session expired gets {@link StaleLockException} and changes nothing.</li>
 * <li>No request or answer grows with the queue: folders are counted by {@code Stat}, listed
 * only while small, read in transactions sized by their nodes' limits.</li>
 * <li>A damaged node affects only its own job or batch: reads of many items return the healthy
 * ones and name the damaged ({@link Damaged}).</li>
 * </ul>
 */
public final class QueueStore implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(QueueStore.class);

    private final ZooKeeperCalls zk;
    private final TransitionLog log = new TransitionLog();
    private final EphemeralLocks locks;
    private final BatchRecords batches;
    private final JobRecords jobs;
    private final JobDeletion deletion;
    private final CollectionHolds collectionHolds;
    private final ObjectLocks objects;
    private final EffectRecords effects;
    private final JobCreation creation;
    private final Path ingestHome;
    private final Set<String> damagedSeen = ConcurrentHashMap.newKeySet();
    private final AtomicLong damagedSkips = new AtomicLong();
    private final QueueHealth health = new QueueHealth();
    /** Jobs this process works on, counted: a job handed to the next state's worker is briefly in two hands. */
    private final Map<String, Integer> workInHand = new ConcurrentHashMap<>();
    private volatile int maxOpenBatches = 10_000;
    private volatile Hosts hosts;

    /**
     * @param client        a started Curator client; its one session serves the whole process
     * @param ingestHome    root of the jobs' working directories ({@code ingestHome/BID/JID})
     * @param creationChunk the most jobs one creation transaction writes (bytes bound it too)
     */
    public QueueStore(CuratorFramework client, Path ingestHome, int creationChunk) {
        this.zk = new ZooKeeperCalls(client);
        this.ingestHome = ingestHome.toAbsolutePath().normalize();
        this.locks = new EphemeralLocks(zk);
        this.batches = new BatchRecords(zk, log);
        this.objects = new ObjectLocks(zk);
        this.effects = new EffectRecords(zk);
        this.jobs = new JobRecords(zk, log, objects);
        this.deletion = new JobDeletion(zk, log, jobs.spaceCounters());
        this.collectionHolds = new CollectionHolds(locks, client);
        this.creation = new JobCreation(zk, log, this.ingestHome, creationChunk);
    }

    public QueueStore(CuratorFramework client, Path ingestHome) {
        this(client, ingestHome, 100);
    }

    /** Creates the fixed nodes of the layout if they are missing; safe to call on every start. */
    public QueueStore start() {
        List<String> paths = new ArrayList<>(List.of(QueuePaths.BATCHES, QueuePaths.JOBS, QueuePaths.JOB_STATES,
                QueuePaths.IDS, QueuePaths.COLLECTION_HOLDS, "/locks/queue", QueuePaths.BATCH_STATES, QueuePaths.OBJECT_LOCKS));
        for (JobState s : JobState.values()) {
            if (s != JobState.DELETED) {
                paths.add(QueuePaths.jobState(s));
            }
        }
        for (BatchState s : BatchState.values()) {
            paths.add(QueuePaths.batchIndex(s));
        }
        try {
            for (String p : paths) {
                if (!zk.exists(p)) {
                    zk.createPersistent(p, ZooKeeperCalls.EMPTY);
                }
            }
            for (String counter : List.of(QueuePaths.BATCH_COUNTER, QueuePaths.JOB_COUNTER, QueuePaths.SPACE_ADMITTED,
                    QueuePaths.SPACE_RELEASED)) {
                if (!zk.exists(counter)) {
                    zk.createPersistent(counter, QueueJson.text(0));
                }
            }
        } catch (Exception e) {
            throw new QueueException("cannot create the queue's base nodes: " + e.getMessage(), e);
        }
        return this;
    }

    public CuratorFramework client() {
        return zk.client();
    }

    public Path ingestHome() {
        return ingestHome;
    }

    /** ZooKeeper operations issued so far (each op of a multi counts), for the benchmark. */
    public long operations() {
        return zk.operations();
    }

    public void addListener(Consumer<TransitionEvent> listener) {
        log.add(listener);
    }

    public void removeListener(Consumer<TransitionEvent> listener) {
        log.remove(listener);
    }

    public QueueHealth health() {
        return health;
    }

    /** The consumers of this process say which jobs they are working on, so fsck can tell a forgotten lock. */
    public void workStarted(String jid) {
        workInHand.merge(jid, 1, Integer::sum);
        hosts().started(jid);
    }

    public void workEnded(String jid) {
        if (workInHand.computeIfPresent(jid, (k, n) -> n > 1 ? n - 1 : null) == null) {
            hosts().ended(jid); // not while the job's next state's worker, handed it, still has it
        }
    }

    // ------------------------------------------------------------------ hosts

    /** This instance's registration and drain node ({@link Hosts}); made on first use, registered by {@link #registerHost}. */
    public Hosts hosts() {
        Hosts h = hosts;
        if (h == null) {
            synchronized (this) {
                if (hosts == null) {
                    hosts = new Hosts(zk, null);
                }
                h = hosts;
            }
        }
        return h;
    }

    /** Registers this instance under {@code /hosts} (an ephemeral node), named {@code id} or host-pid. */
    public synchronized void registerHost(String id) {
        if (hosts == null) {
            hosts = new Hosts(zk, id);
        }
        hosts.register();
    }


    boolean inHand(String jid) {
        return workInHand.containsKey(jid);
    }

    /** Open batches (pending to reporting) beyond which submissions are refused with {@link QueueFullException}. */
    public void maxOpenBatches(int max) {
        this.maxOpenBatches = max;
    }

    @Override
    public void close() {
        log.clear();
        collectionHolds.close();
        locks.close();
        if (hosts != null) {
            hosts.close();
        }
    }

    // ------------------------------------------------------------------ damaged items

    /** Notes a damaged job or batch: logged the first time it is seen, counted every time it is skipped. */
    public void damaged(Damaged d) {
        damagedSkips.incrementAndGet();
        if (damagedSeen.add(d.kind() + " " + d.id())) {
            LOG.warn("{} {} is damaged and skipped until repaired or deleted (POST /api/fsck?repair=true, "
                    + "or delete it): {}", d.kind(), d.id(), d.problem());
        }
    }

    /** Tells this process's consumers that a damaged job was repaired, so they take it again at once. */
    void repaired(String jid, String bid, JobState state) {
        log.fire(TransitionEvent.JOB, jid, bid, "damaged", state.wire(), "repaired by the consistency check");
    }

    /** How often a damaged item was skipped, for {@code /metrics}. */
    public long damagedSkips() {
        return damagedSkips.get();
    }

    // ------------------------------------------------------------------ batches

    /** Creates a batch (refused with {@link QueueFullException} when the open batches are at their cap). */
    public String createBatch(BatchSubmission submission) {
        return batches.create(submission, maxOpenBatches);
    }

    /** Takes {@code /batches/BID/lock} if nobody holds it and loads the batch; never blocks. */
    public Optional<BatchLock> tryLockBatch(String bid, String worker) {
        LockOwner owner = LockOwner.of(worker);
        Optional<ZooKeeper> handle = locks.take(QueuePaths.batchLock(bid), owner);
        if (handle.isEmpty()) {
            return Optional.empty();
        }
        BatchLock lock = new BatchLock(bid, owner, handle.get());
        try {
            lock.batch(batches.load(bid));
            return Optional.of(lock);
        } catch (RuntimeException e) {
            unlock(lock);
            throw e;
        }
    }

    public void unlock(BatchLock lock) {
        locks.release(lock.zk, lock.sessionId, QueuePaths.batchLock(lock.bid()));
    }

    /** Whether a batch of this id exists (a malformed id does not). */
    public boolean batchExists(String bid) {
        return QueuePaths.batchNumber(bid) >= 0 && zk.exists(QueuePaths.batch(bid));
    }

    public Batch loadBatch(String bid) {
        return batches.load(bid);
    }

    /** The batches of an open state (pending, held, processing, reporting, update-reporting), oldest first. */
    public List<String> batchIds(BatchState state) {
        return batches.ids(state);
    }

    /** Statuses of many batches; a vanished batch is left out, a damaged one noted and left out. */
    public Map<String, BatchStatus> batchStatuses(List<String> bids) {
        return batches.statuses(bids, this::damaged);
    }

    public Map<String, BatchStatus> batchStatuses(List<String> bids, Consumer<Damaged> damaged) {
        return batches.statuses(bids, damaged);
    }

    public Map<BatchState, Integer> batchCounts() {
        return batches.counts();
    }

    /** The newest batch number drawn, and the lowest that may still exist: the range walks go over. */
    public long newestBatchNumber() {
        return batches.newestNumber();
    }

    public long oldestBatchNumber() {
        return batches.oldestNumber();
    }

    void oldestBatchNumber(long n) {
        batches.oldestNumber(n);
    }

    /** The job ids listed under one category of a batch; refused when the category is too large to list. */
    public List<String> batchJobs(String bid, BatchRef ref) {
        return zk.children(QueuePaths.batchRefs(bid, ref)).stream().sorted().toList();
    }

    /** Moves a locked batch as a worker does; with a report, the status report is written in the same transaction. */
    public Batch transition(BatchLock lock, BatchState to, String reason, StatusReport report, String errorMessage) {
        return batches.move(lock, to, reason, report, errorMessage, Transition.By.WORKER, true);
    }

    Batch moveBatch(BatchLock lock, BatchState to, String reason, StatusReport report, String errorMessage,
                    Transition.By by, boolean releaseLock) {
        return batches.move(lock, to, reason, report, errorMessage, by, releaseLock);
    }

    /** Processing → reporting when no job of the batch is open; true when this call moved it. */
    public boolean startReportingIfDone(String bid) {
        return batches.startReportingIfDone(bid);
    }

    void removeBatchNodes(String bid) {
        batches.remove(bid);
    }

    // ------------------------------------------------------------------ job creation

    /** Creates the batch's jobs from the whole list, after the ones a crashed earlier run created. */
    public List<String> createJobs(BatchLock lock, List<NewJob> all) {
        int done = lock.batch().status().jobsCreated();
        return creation.create(lock, all.subList(Math.min(done, all.size()), all.size()), all.size());
    }

    /** Creates the next jobs of a batch of {@code total}: {@code next} follow the ones it already has. */
    public List<String> createMoreJobs(BatchLock lock, List<NewJob> next, int total) {
        return creation.create(lock, next, total);
    }

    // ------------------------------------------------------------------ jobs

    /** Reference names {@code PP-JID} of a state, in run order (a terminal state only while it is small). */
    public List<String> jobRefs(JobState state) {
        return jobs.refs(state);
    }

    public Map<JobState, Integer> jobCounts() {
        return jobs.counts();
    }

    /** Jobs in the open states (pending … notify, held), the ones the creation windows count. */
    public int openJobCount() {
        return jobs.openCount();
    }

    public Job loadJob(String jid) {
        return findJob(jid).orElseThrow(() -> new NotFoundException("no job " + jid));
    }

    /** The job, empty when it does not exist; a damaged job throws {@link CorruptNodeException}. */
    public Optional<Job> findJob(String jid) {
        return one(jobs.load(List.of(jid), QueueStore::corrupt));
    }

    private static Optional<Job> one(List<Job> found) {
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
    }

    private static void corrupt(Damaged d) {
        throw new CorruptNodeException(d.path(), d.problem().replaceFirst("^znode \\S+ is corrupt: ", ""));
    }

    /** Loads jobs in bounded read transactions; a damaged job is noted and left out. */
    public List<Job> loadJobs(List<String> jids) {
        return jobs.load(jids, this::damaged);
    }

    public List<Job> loadJobs(List<String> jids, Consumer<Damaged> damaged) {
        return jobs.load(jids, damaged);
    }

    /** The jobs' identifiers only (for search), in bounded read transactions; a vanished or damaged job is left out. */
    public Map<String, Identifiers> identifiers(List<String> jids) {
        return jobs.nodes(jids, "identifiers", Identifiers.class, this::damaged);
    }

    /** The jobs' configurations only (for search by title), read alike. */
    public Map<String, JobConfiguration> configurations(List<String> jids) {
        return jobs.nodes(jids, "configuration", JobConfiguration.class, this::damaged);
    }

    /** The sum of the jobs' space_needed, reading only those nodes; an unreadable one counts 0 and is noted. */
    public long spaceNeeded(List<String> jids) {
        return jobs.spaceNeeded(jids, this::damaged);
    }

    /** The bytes the jobs in downloading have reserved on the working disk, with the version admissions check. */
    public SpaceReservation spaceReserved() {
        return SpaceReservation.read(zk);
    }

    /** How many jobs a state holds now (its folder's {@code Stat}). */
    public int jobCount(JobState state) {
        var st = zk.stat(QueuePaths.jobState(state));
        return st == null ? 0 : st.getNumChildren();
    }

    /** How many of these jobs are in each state, reading only their status nodes; damaged ones are noted. */
    public Map<JobState, Integer> jobStates(List<String> jids) {
        return jobs.states(jids, this::damaged);
    }

    /** Each job's state, read from its status node alone (a vanished or damaged job is left out). */
    public Map<String, JobState> statesOf(List<String> jids) {
        return jobs.stateOf(jids, this::damaged);
    }

    /**
     * Takes {@code /jobs/JID/lock} if nobody holds it and loads the job, both in one round trip
     * (the read is sent right behind the lock's create); never blocks on another holder.
     */
    public Optional<JobLock> tryLockJob(String jid, String worker) {
        LockOwner owner = LockOwner.of(worker);
        return locked(jid, owner, locks.send(QueuePaths.jobLock(jid), owner, JobRecords.paths(jid)));
    }

    private Optional<JobLock> locked(String jid, LockOwner owner, EphemeralLocks.Pending sent) {
        Optional<EphemeralLocks.Taken> taken = locks.await(sent);
        if (taken.isEmpty()) {
            return Optional.empty();
        }
        Optional<JobLock> lock = Optional.of(new JobLock(jid, owner, taken.get().handle()));
        try {
            Map<String, org.apache.zookeeper.OpResult> read = taken.get().read();
            Optional<Job> job = read != null ? one(JobRecords.parse(List.of(jid), read, QueueStore::corrupt)) : findJob(jid);
            if (job.isEmpty()) {
                unlock(lock.get());
                return Optional.empty();
            }
            lock.get().job(job.get());
            if (read != null) {
                String effects = QueuePaths.jobNode(jid, "effects");
                lock.get().effects = EffectRecords.Known.of(effects, read.get(effects));
            }
            return lock;
        } catch (RuntimeException e) {
            unlock(lock.get());
            throw e;
        }
    }

    /**
     * Claims many references of a state at once: every lock create and read is sent before any
     * answer is awaited (one round trip for all). Each element, when called, finishes its own
     * claim as {@link #claim} does, and throws for its own job only.
     */
    public List<java.util.function.Supplier<Optional<JobLock>>> claimAll(JobState state, List<String> refNames, String worker) {
        List<java.util.function.Supplier<Optional<JobLock>>> out = new ArrayList<>();
        try {
            for (String ref : refNames) {
                String jid = QueuePaths.jidOfRef(ref);
                LockOwner owner = LockOwner.of(worker);
                EphemeralLocks.Pending sent = locks.send(QueuePaths.jobLock(jid), owner, JobRecords.paths(jid));
                out.add(() -> inState(state, locked(jid, owner, sent)));
            }
        } catch (RuntimeException e) {
            for (var sent : out) { // what went out may have locked: no lock of ours stays behind
                try {
                    sent.get().ifPresent(this::unlock);
                } catch (RuntimeException ignored) {
                    // that one's own trouble; the lock (if any) goes with the session at worst
                }
            }
            throw e;
        }
        return out;
    }

    private Optional<JobLock> inState(JobState state, Optional<JobLock> lock) {
        if (lock.isPresent() && lock.get().job().state() != state) {
            unlock(lock.get());
            return Optional.empty();
        }
        return lock;
    }

    /** Takes the lock without reading the job (to repair or delete a damaged one). */
    Optional<JobLock> lockJobNode(String jid, String worker) {
        LockOwner owner = LockOwner.of(worker);
        return locks.take(QueuePaths.jobLock(jid), owner).map(h -> new JobLock(jid, owner, h));
    }

    /**
     * Locks the job behind a reference seen in {@code state} and re-checks, after locking, that
     * the job is still in that state; empty when someone else has it or it moved on.
     */
    public Optional<JobLock> claim(JobState state, String refName, String worker) {
        return inState(state, tryLockJob(QueuePaths.jidOfRef(refName), worker));
    }

    /** The first job of the state, in priority order, that this caller could lock. */
    public Optional<JobLock> claimNext(JobState state, String worker) {
        for (String ref : jobRefs(state)) {
            Optional<JobLock> lock = claim(state, ref, worker);
            if (lock.isPresent()) {
                return lock;
            }
        }
        return Optional.empty();
    }

    /** Releases a job lock without moving the job (e.g. it stays in provisioning). */
    public void unlock(JobLock lock) {
        locks.release(lock.zk, lock.sessionId, QueuePaths.jobLock(lock.jid()));
    }

    /** Moves a locked job as a worker does; the lock is released by the same transaction. */
    public Job transition(JobLock lock, JobState to, Change change) {
        return move(lock, to, change, Transition.By.WORKER);
    }

    public void writeIdentifiers(JobLock lock, Identifiers identifiers) {
        jobs.writeIdentifiers(lock, identifiers);
        LOG.info("job {} batch {}: identifiers {} {}", lock.jid(), lock.job().batchId(), identifiers.primary(),
                identifiers.localId());
    }

    /** The identifiers a mint gave and the mint's record as done, in one transaction under the job's lock. */
    public JobEffects writeMintedIdentifiers(JobLock lock, Identifiers identifiers) {
        JobEffects fx = effects.record(lock, JobEffects.MINT, "done", identifiers.primary(),
                List.of(JobRecords.identifiersWrite(lock.jid(), identifiers)));
        JobRecords.identifiersWritten(lock, identifiers);
        LOG.info("job {} batch {}: identifiers {} {} (minted)", lock.jid(), lock.job().batchId(), identifiers.primary(),
                identifiers.localId());
        return fx;
    }

    /**
     * One writer per object: takes the ARK's object lock for this job until it leaves recording
     * (or fails, or is held). Null when the job holds it now; else the job that is writing the
     * object, for which this one waits (it stays in its state, no worker thread is held).
     */
    public String lockObject(JobLock lock, String ark) {
        return objects.lock(lock, ark);
    }

    /** The job's recorded outside effects (none yet: empty). */
    public JobEffects effects(JobLock lock) {
        return effects.read(lock);
    }

    /** Records an effect as started (just before the call), under the job's lock. */
    public JobEffects effectStarted(JobLock lock, String name, String detail) {
        return effects.record(lock, name, "started", detail);
    }

    /** Records an effect as done with its result (right after the call), under the job's lock. */
    public JobEffects effectDone(JobLock lock, String name, String detail) {
        return effects.record(lock, name, "done", detail);
    }

    /**
     * Moves a locked job on as a worker does and keeps its lock for {@code nextWorker}, this
     * process's worker of the state it enters: the same transaction renames the lock instead of
     * deleting it, so the next state's work starts without a claim (no lock create, no read: the
     * moved job is known). The lock stays fenced as before: same session, same handle.
     */
    public JobLock transitionAndKeep(JobLock lock, JobState to, Change change, String nextWorker) {
        LockOwner owner = LockOwner.of(nextWorker);
        Job moved = move(lock, to, change, Transition.By.WORKER, owner);
        JobLock next = new JobLock(lock.jid(), owner, lock.zk);
        next.job(moved);
        next.effects = lock.effects; // a move does not touch them
        return next;
    }

    Job move(JobLock lock, JobState to, Change change, Transition.By by) {
        return move(lock, to, change, by, null);
    }

    private Job move(JobLock lock, JobState to, Change change, Transition.By by, LockOwner keepFor) {
        JobState from = lock.job().state();
        int[] openLeft = {-1};
        Job moved = jobs.move(lock, to, change, by, keepFor, n -> openLeft[0] = n);
        // the commit's answer says whether jobs are still open: only the last one's move reads the batch
        if (from.batchRef() == BatchRef.PROCESSING && to.batchRef() != BatchRef.PROCESSING && openLeft[0] <= 0) {
            reportIfDone(moved.batchId());
        }
        return moved;
    }

    /** Deletes every node of a locked job (a damaged one too) in one transaction. */
    void deleteJobNodes(JobLock lock, String bid, String reason) {
        if (deletion.deleteNodes(lock, bid, reason) && bid != null) {
            reportIfDone(bid);
        }
    }

    /** The committed transition stands whatever happens here; the reporting sweep retries. */
    private void reportIfDone(String bid) {
        try {
            batches.startReportingIfDone(bid);
        } catch (RuntimeException e) {
            LOG.warn("batch {}: not checked for completion now ({}); the reporting sweep will", bid, e.getMessage());
        }
    }

    // ------------------------------------------------------------------ holds

    public void holdCollection(String profile, String by) {
        zk.createPersistent(QueuePaths.collectionHold(profile), holdData(by));
        collectionHolds.forget(); // this process knows at once; others when their watch fires
        LOG.info("collection {} held by {}", profile, by);
    }

    public boolean releaseCollection(String profile) {
        boolean released = zk.deleteIfExists(QueuePaths.collectionHold(profile));
        collectionHolds.forget();
        LOG.info("collection {} released", profile);
        return released;
    }

    /** Whether a collection is held, as its watched answer says (no request while nothing changed). */
    public boolean isCollectionHeld(String profile) {
        return profile != null && collectionHolds.held(profile);
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

    // ------------------------------------------------------------------ watches (for the queue consumers)

    /** A watched, incrementally kept view of a state's references (jobs) or index entries (batches). */
    public StateView jobStateView(JobState state) {
        return new StateView(zk.client(), QueuePaths.jobState(state));
    }

    public StateView batchStateView(BatchState state) {
        return new StateView(zk.client(), QueuePaths.batchIndex(state));
    }

    /**
     * Whether this host may take no work: the whole queue is held or this host is drained. A
     * one-shot watch is left on both nodes (not short-circuited), so either being set or lifted
     * wakes the caller.
     */
    public boolean watchQueueHold(CuratorWatcher onChange) {
        boolean held = locks.watch(QueuePaths.QUEUE_HOLD, onChange);
        return locks.watch(hosts().drainPath(), onChange) | held;
    }

    /** Whether the job's lock is taken, leaving a one-shot watch for its release. */
    public boolean watchJobLock(String jid, CuratorWatcher onRelease) {
        return locks.watch(QueuePaths.jobLock(jid), onRelease);
    }

    public boolean watchBatchLock(String bid, CuratorWatcher onRelease) {
        return locks.watch(QueuePaths.batchLock(bid), onRelease);
    }

    // ------------------------------------------------------------------ plumbing for fsck, admin and cleanup

    /** The bounded ZooKeeper calls, for fsck, admin actions and cleanup in this package. */
    ZooKeeperCalls calls() {
        return zk;
    }

    /** Commits under a job lock that holds no readable job (a repair), checking only the lock. */
    void commitUnderLock(JobLock lock, String what, List<org.apache.zookeeper.Op> ops) {
        List<org.apache.zookeeper.Op> all = new ArrayList<>(ops);
        all.add(0, org.apache.zookeeper.Op.check(QueuePaths.jobLock(lock.jid()), -1));
        try {
            zk.commit(lock.zk, all, () -> false);
        } catch (KeeperException e) {
            throw new QueueException(what + ": " + e.code() + "; nothing was written", e);
        }
    }

    static QueueException wrap(String action, Exception e) {
        return ZooKeeperCalls.wrap(action, e);
    }
}
