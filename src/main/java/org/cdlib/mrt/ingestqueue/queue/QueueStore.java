package org.cdlib.mrt.ingestqueue.queue;

import java.io.Closeable;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.cdlib.mrt.ingestqueue.queue.batches.BatchTransactions;
import org.cdlib.mrt.ingestqueue.queue.batches.Batches;
import org.cdlib.mrt.ingestqueue.queue.batches.JobCreation;
import org.cdlib.mrt.ingestqueue.queue.batches.MerrittBatches;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.hosts.ActivityMinutes;
import org.cdlib.mrt.ingestqueue.queue.hosts.Hosts;
import org.cdlib.mrt.ingestqueue.queue.hosts.ThisHost;
import org.cdlib.mrt.ingestqueue.queue.jobs.EffectsNode;
import org.cdlib.mrt.ingestqueue.queue.jobs.JobClaims;
import org.cdlib.mrt.ingestqueue.queue.jobs.JobDeletion;
import org.cdlib.mrt.ingestqueue.queue.jobs.JobTransactions;
import org.cdlib.mrt.ingestqueue.queue.jobs.Jobs;
import org.cdlib.mrt.ingestqueue.queue.jobs.StepWrites;
import org.cdlib.mrt.ingestqueue.queue.layout.BaseNodes;
import org.cdlib.mrt.ingestqueue.queue.lease.EphemeralLocks;
import org.cdlib.mrt.ingestqueue.queue.lease.ObjectLocks;
import org.cdlib.mrt.ingestqueue.queue.lease.QueueHolds;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionEvent;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionLog;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Damaged;
import org.cdlib.mrt.ingestqueue.queue.model.DamagedItems;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueueHealth;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.outcome.Moves;
import org.cdlib.mrt.ingestqueue.queue.space.SpaceCounters;
import org.cdlib.mrt.ingestqueue.queue.space.SpaceHeal;
import org.cdlib.mrt.ingestqueue.queue.zk.Probes;
import org.cdlib.mrt.ingestqueue.queue.zk.StateView;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * The one layer that reads and writes the queue in ZooKeeper (no Camel here). It moves jobs and
 * batches, and hands out the parts of one concern: {@link #batches()}, {@link #jobs()} (reads),
 * {@link #claims()} (locking jobs to work on), {@link #stepWrites()} (what a step records under its
 * job's lock), {@link #holds()} (the operator's holds) and {@link #hosts()}; underneath,
 * {@link BatchTransactions}, {@link JobTransactions}, {@link JobCreation}, {@link EphemeralLocks} and
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
    private final ZooKeeperCalls zk;
    private final TransitionLog log = new TransitionLog();
    private final EphemeralLocks locks;
    private final BatchTransactions batchTransactions;
    private final JobTransactions jobTransactions;
    private final ObjectLocks objects;
    private final MerrittBatches merrittBatches;
    private final QueueHolds holds;
    private final JobClaims claims;
    private final StepWrites stepWrites;
    private final Batches batches;
    private final Jobs jobs;
    private final Moves moves;
    private final Path ingestHome;
    private final DamagedItems damaged = new DamagedItems();
    private final QueueHealth health = new QueueHealth();
    private final ThisHost thisHost;
    private volatile SpaceHeal spaceHeal;
    /** Asked before a finished batch is removed: true when what it held is kept elsewhere (history). */
    private volatile Predicate<Batch> keptBeforeRemoval = b -> true;

    /**
     * @param client        a started Curator client; its one session serves the whole process
     * @param ingestHome    root of the jobs' working directories ({@code ingestHome/BID/JID})
     * @param creationChunk the most jobs one creation transaction writes (bytes bound it too)
     */
    public QueueStore(CuratorFramework client, Path ingestHome, int creationChunk) {
        this.zk = new ZooKeeperCalls(client);
        this.thisHost = new ThisHost(zk);
        this.ingestHome = ingestHome.toAbsolutePath().normalize();
        this.locks = new EphemeralLocks(zk, thisHost::id);
        this.batchTransactions = new BatchTransactions(zk, log, this.ingestHome);
        this.objects = new ObjectLocks(zk);
        this.jobTransactions = new JobTransactions(zk, log, objects, locks);
        JobDeletion deletion = new JobDeletion(zk, log, jobTransactions.spaceCounters(), locks);
        this.holds = new QueueHolds(zk, locks, client);
        this.jobs = new Jobs(zk, jobTransactions, this.ingestHome, this::damaged);
        this.claims = new JobClaims(locks, jobs, this.ingestHome);
        EffectsNode effects = new EffectsNode(zk);
        this.stepWrites = new StepWrites(zk, effects, objects);
        JobCreation creation = new JobCreation(zk, log, this.ingestHome, creationChunk);
        this.batches = new Batches(zk, locks, batchTransactions, creation, this::damaged);
        this.merrittBatches = new MerrittBatches(batches, zk);
        this.moves = new Moves(zk, locks, jobTransactions, batchTransactions, deletion, effects, log);
    }

    public QueueStore(CuratorFramework client, Path ingestHome) {
        this(client, ingestHome, 100);
    }

    /** Creates the fixed nodes of the layout if they are missing; safe to call on every start. */
    public QueueStore start() {
        BaseNodes.create(zk);
        batchTransactions.batchIds.forget();
        return this;
    }

    /**
     * Starts healing the disk counters from mrt-zk's moves into and out of downloading (a watch,
     * {@link SpaceHeal}); provisioning then waits for them to be accounted. The running service's.
     */
    public synchronized SpaceHeal healSpace() {
        if (spaceHeal == null) {
            spaceHeal = new SpaceHeal(zk, SpaceHeal.Downloading.of(jobs::refs, jobs::spaceNeeded)).start(zk.client());
        }
        return spaceHeal;
    }

    /** The disk counters' healer, or null when this store does not heal them ({@link #healSpace}). */
    public SpaceHeal spaceHeal() {
        return spaceHeal;
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

    /** The dashboard's per-minute figures, shared by the hosts. */
    public ActivityMinutes activity() {
        return new ActivityMinutes(zk);
    }

    /** The operator's holds on the queue and on collections. */
    public QueueHolds holds() {
        return holds;
    }

    /** Locking jobs to work on them. */
    public JobClaims claims() {
        return claims;
    }

    /** What a step records under its job's lock: identifiers, outside effects, the object lock. */
    public StepWrites stepWrites() {
        return stepWrites;
    }

    /**
     * Who keeps a finished batch before it leaves ZooKeeper (the service's history): asked by every
     * removal (cleanup, an operator's or Merritt's deletion), so nothing is removed it has not taken.
     */
    public void keepBeforeRemoval(Predicate<Batch> keep) {
        this.keptBeforeRemoval = keep;
    }

    /** True when the batch may leave ZooKeeper: whoever keeps finished work has it. */
    public boolean keptBeforeRemoval(Batch batch) {
        return keptBeforeRemoval.test(batch);
    }

    public QueueHealth health() {
        return health;
    }

    /** The consumers of this process say which jobs they are working on, so fsck can tell a forgotten lock. */
    public void workStarted(String jid) {
        thisHost.workStarted(jid);
    }

    public void workEnded(String jid) {
        thisHost.workEnded(jid);
    }

    public boolean inHand(String jid) {
        return thisHost.inHand(jid);
    }

    /**
     * This instance's registration and drain node ({@link Hosts}); made on first use, registered by
     * {@link #registerHost}.
     */
    public Hosts hosts() {
        return thisHost.hosts();
    }

    /** Registers this instance under {@code /hosts} (an ephemeral node), named {@code id} or host-pid. */
    public void registerHost(String id) {
        thisHost.register(id);
    }

    @Override
    public void close() {
        log.clear();
        if (spaceHeal != null) {
            spaceHeal.close();
        }
        holds.close();
        locks.close();
        thisHost.close();
    }

    // ------------------------------------------------------------------ damaged items

    /** Notes a damaged job or batch: logged the first time it is seen, counted every time it is skipped. */
    public void damaged(Damaged d) {
        damaged.note(d);
    }

    /** How often a damaged item was skipped, for {@code /metrics}. */
    public long damagedSkips() {
        return damaged.skips();
    }

    // ------------------------------------------------------------------ moves (see Moves)

    /** Moving jobs and batches under their locks; batch completion when a batch's last job ends. */
    public Moves moves() {
        return moves;
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
        return locks.watchLock(QueuePaths.jobLock(jid), onRelease);
    }

    public boolean watchBatchLock(String bid, CuratorWatcher onRelease) {
        return locks.watchLock(QueuePaths.batchLock(bid), onRelease);
    }

    // ------------------------------------------------------------------ plumbing for fsck, admin and cleanup

    /**
     * Takes into this queue the batches Merritt's ingest front end created through mrt-zk since the
     * last pass ({@link MerrittBatches}); the batches taken.
     */
    public List<String> adoptMerrittBatches() {
        return merrittBatches.adopt();
    }

    /** The intake of Merritt's batches, for the batch watch ({@code BatchWatch}) and its grace setting. */
    public MerrittBatches merrittBatches() {
        return merrittBatches;
    }

    ObjectLocks objectLocks() {
        return objects;
    }

    SpaceCounters spaceCounters() {
        return jobTransactions.spaceCounters();
    }

    /** Where a test steps in between two of this store's calls to ZooKeeper; nothing sets them in production. */
    public Probes probes() {
        return zk.probes();
    }

    /** The bounded ZooKeeper calls, for fsck, admin actions and cleanup in this package. */
    public ZooKeeperCalls calls() {
        return zk;
    }

    public static QueueException wrap(String action, Exception e) {
        return ZooKeeperCalls.wrap(action, e);
    }
}
