package org.cdlib.mrt.ingestqueue.queue;

import java.io.Closeable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one layer that reads and writes the queue in ZooKeeper (no Camel here). It moves jobs and
 * batches, and hands out the parts of one concern: {@link #batches()}, {@link #jobs()} (reads),
 * {@link #claims()} (locking jobs to work on), {@link #records()} (what a step records under its
 * job's lock), {@link #holds()} (the operator's holds) and {@link #hosts()}; underneath,
 * {@link BatchRecords}, {@link JobRecords}, {@link JobCreation}, {@link EphemeralLocks} and
 * {@link ZooKeeperCalls}.
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
    private final BatchRecords batchRecords;
    private final JobRecords jobRecords;
    private final ObjectLocks objects;
    private final MerrittBatches merrittBatches = new MerrittBatches(this);
    private final JobDeletion deletion;
    private final QueueHolds holds;
    private final JobClaims claims;
    private final StepRecords records;
    private final Batches batches;
    private final Jobs jobs;
    private final Path ingestHome;
    private final Set<String> damagedSeen = ConcurrentHashMap.newKeySet();
    private final AtomicLong damagedSkips = new AtomicLong();
    private final QueueHealth health = new QueueHealth();
    /** Jobs this process works on, counted: a job handed to the next state's worker is briefly in two hands. */
    private final Map<String, Integer> workInHand = new ConcurrentHashMap<>();
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
        this.batchRecords = new BatchRecords(zk, log, this.ingestHome);
        this.objects = new ObjectLocks(zk);
        this.jobRecords = new JobRecords(zk, log, objects, this.ingestHome);
        this.deletion = new JobDeletion(zk, log, jobRecords.spaceCounters());
        this.holds = new QueueHolds(zk, locks, client);
        this.jobs = new Jobs(zk, jobRecords, this::damaged);
        this.claims = new JobClaims(locks, this);
        this.records = new StepRecords(jobRecords, new EffectRecords(zk), objects, zk);
        this.batches = new Batches(zk, locks, batchRecords, new JobCreation(zk, log, this.ingestHome, creationChunk), this::damaged);
    }

    public QueueStore(CuratorFramework client, Path ingestHome) {
        this(client, ingestHome, 100);
    }

    /** Creates the fixed nodes of the layout if they are missing; safe to call on every start. */
    public QueueStore start() {
        List<String> paths = new ArrayList<>(List.of(QueuePaths.BATCHES, QueuePaths.JOBS, QueuePaths.JOB_STATES,
                QueuePaths.IDS, QueuePaths.COLLECTION_HOLDS, "/locks/queue", QueuePaths.BATCH_STATES, QueuePaths.OBJECT_LOCKS,
                QueuePaths.BATCH_UUIDS));
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
            new WireMigration(zk).moveBatchIndex();
            batchRecords.batchIds.forget();
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

    /** The batches: creating, locking and reading them, and creating their jobs. */
    public Batches batches() {
        return batches;
    }

    /** Reading jobs: one, many, a state's references, counts. */
    public Jobs jobs() {
        return jobs;
    }

    /** The operator's holds on the queue and on collections. */
    /** The dashboard's per-minute figures, shared by the hosts. */
    public ActivityRecords activity() {
        return new ActivityRecords(zk);
    }

    public QueueHolds holds() {
        return holds;
    }

    /** Locking jobs to work on them. */
    public JobClaims claims() {
        return claims;
    }

    /** What a step records under its job's lock: identifiers, outside effects, the object lock. */
    public StepRecords records() {
        return records;
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

    @Override
    public void close() {
        log.clear();
        holds.close();
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

    // ------------------------------------------------------------------ batch moves and locks

    /**
     * Moves a locked batch as a worker does; with a report, the status report is written in the
     * same transaction. A batch entering processing may find its jobs all ended while it was
     * pending: whether it is done is decided here, as for the move of its last job.
     */
    public Batch transition(BatchLock lock, BatchState to, String reason, StatusReport report, String errorMessage) {
        Batch moved = batchRecords.move(lock, to, reason, report, errorMessage, Transition.By.WORKER, true);
        if (to == BatchState.PROCESSING) {
            reportIfDone(lock.bid());
        }
        return moved;
    }

    public void unlock(BatchLock lock) {
        batches.unlock(lock);
    }

    // ------------------------------------------------------------------ job moves and locks

    /** Releases a job lock without moving the job (e.g. it stays in provisioning). */
    public void unlock(JobLock lock) {
        locks.release(lock);
    }

    /** Moves a locked job as a worker does; the lock is released by the same transaction. */
    public Job transition(JobLock lock, JobState to, Change change) {
        return move(lock, to, change, Transition.By.WORKER);
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
        Job moved = jobRecords.move(lock, to, change, by, keepFor, n -> openLeft[0] = n);
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
            batchRecords.startReportingIfDone(bid);
        } catch (RuntimeException e) {
            LOG.warn("batch {}: not checked for completion now ({}); the reporting sweep will", bid, e.getMessage());
        }
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

    /**
     * Takes into this queue the batches Merritt's ingest front end created through mrt-zk since the
     * last pass ({@link MerrittBatches}); the batches taken.
     */
    public List<String> adoptMerrittBatches() {
        return merrittBatches.adopt();
    }

    ObjectLocks objectLocks() {
        return objects;
    }

    SpaceCounters spaceCounters() {
        return jobRecords.spaceCounters();
    }

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
