package org.cdlib.mrt.ingestqueue.queue;

import java.io.Closeable;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.curator.RetryLoop;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one layer that reads and writes the queue in ZooKeeper (no Camel here).
 *
 * <p>Guarantees:
 * <ul>
 * <li>Every state change is one {@code multi()}: the status node (version-checked), the old
 * {@code /jobs/states} reference deleted, the new one created, the batch reference moved and
 * the lock released commit together or not at all. A job never has zero or two references.</li>
 * <li>Writes made under a lock go through the ZooKeeper handle that took the lock; a writer whose
 * session expired gets {@link StaleLockException} and changes nothing.</li>
 * <li>A batch moves to reporting exactly once, when its {@code batch-processing} category is
 * empty: every job move between categories bumps that node's version, which the batch's
 * transaction checks.</li>
 * </ul>
 * Caveat: a connection loss during a commit leaves the outcome unknown for a moment; the store
 * waits for the connection and reads back whether the commit applied before answering.
 */
public final class QueueStore implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(QueueStore.class);
    private static final Logger TRANSITIONS = LoggerFactory.getLogger("ingestqueue.transitions");
    private static final byte[] EMPTY = new byte[0];
    private static final int MAX_COUNTER_RETRIES = 50;

    private final CuratorFramework client;
    private final Path ingestHome;
    private final int creationChunk;
    private final AtomicLong operations = new AtomicLong();
    private final List<Consumer<TransitionEvent>> listeners = new CopyOnWriteArrayList<>();

    /**
     * @param client        a started Curator client; its one session serves the whole process
     * @param ingestHome    root of the jobs' working directories ({@code ingestHome/BID/JID})
     * @param creationChunk how many jobs one creation transaction writes
     */
    public QueueStore(CuratorFramework client, Path ingestHome, int creationChunk) {
        this.client = client;
        this.ingestHome = ingestHome.toAbsolutePath().normalize();
        this.creationChunk = creationChunk;
    }

    public QueueStore(CuratorFramework client, Path ingestHome) {
        this(client, ingestHome, 100);
    }

    /** Creates the fixed nodes of the layout if they are missing; safe to call on every start. */
    public QueueStore start() {
        List<String> paths = new ArrayList<>(List.of(QueuePaths.BATCHES, QueuePaths.JOBS, QueuePaths.JOB_STATES,
                QueuePaths.IDS, QueuePaths.COLLECTION_HOLDS, "/locks/queue"));
        for (JobState s : JobState.values()) {
            if (s != JobState.DELETED) {
                paths.add(QueuePaths.jobState(s));
            }
        }
        try {
            for (String p : paths) {
                if (client.checkExists().forPath(p) == null) {
                    try {
                        client.create().creatingParentsIfNeeded().forPath(p, EMPTY);
                    } catch (KeeperException.NodeExistsException e) {
                        // another host created it first
                    }
                }
            }
            for (String counter : List.of(QueuePaths.BATCH_COUNTER, QueuePaths.JOB_COUNTER)) {
                try {
                    client.create().forPath(counter, QueueJson.text(0));
                } catch (KeeperException.NodeExistsException e) {
                    // already initialised
                }
            }
        } catch (Exception e) {
            throw new QueueException("cannot create the queue's base nodes: " + e.getMessage(), e);
        }
        return this;
    }

    public CuratorFramework client() {
        return client;
    }

    public Path ingestHome() {
        return ingestHome;
    }

    /** ZooKeeper operations issued so far (each op of a multi counts), for the benchmark. */
    public long operations() {
        return operations.get();
    }

    public void addListener(Consumer<TransitionEvent> listener) {
        listeners.add(listener);
    }

    public void removeListener(Consumer<TransitionEvent> listener) {
        listeners.remove(listener);
    }

    @Override
    public void close() {
        listeners.clear();
    }

    // ------------------------------------------------------------------ batches

    /** Creates a batch: the id counter, the batch node, its submission and status, in one transaction. */
    public String createBatch(BatchSubmission submission) {
        byte[] submissionData = QueueJson.write(submission);
        byte[] statusData = QueueJson.write(BatchStatus.pending());
        for (int attempt = 0; attempt < MAX_COUNTER_RETRIES; attempt++) {
            Stat counterStat = new Stat();
            long last = QueueJson.readLong(QueuePaths.BATCH_COUNTER, read(QueuePaths.BATCH_COUNTER, counterStat));
            String bid = QueuePaths.batchId(last + 1);
            List<Op> ops = List.of(
                    Op.setData(QueuePaths.BATCH_COUNTER, QueueJson.text(last + 1), counterStat.getVersion()),
                    create(QueuePaths.batch(bid), EMPTY),
                    create(QueuePaths.batchSubmission(bid), submissionData),
                    create(QueuePaths.batchStatus(bid), statusData));
            try {
                commit(currentHandle(), ops, () -> Arrays.equals(submissionData, readOrNull(QueuePaths.batchSubmission(bid))));
                LOG.info("batch {} created for {} ({}, profile {})", bid, submission.submitter(), submission.type(),
                        submission.profileName());
                fire(TransitionEvent.BATCH, bid, bid, null, BatchState.PENDING.wire(), "submitted");
                return bid;
            } catch (KeeperException.BadVersionException | KeeperException.NodeExistsException e) {
                // another host took the same number: draw again
            } catch (KeeperException e) {
                throw new QueueException("cannot create batch: " + e.getMessage(), e);
            }
        }
        throw new QueueException("cannot create batch: the batch id counter is too contended");
    }

    /** Takes {@code /batches/BID/lock} if nobody holds it and loads the batch; never blocks. */
    public Optional<BatchLock> tryLockBatch(String bid, String worker) {
        LockOwner owner = LockOwner.of(worker);
        Optional<ZooKeeper> zk = takeEphemeral(QueuePaths.batchLock(bid), owner);
        if (zk.isEmpty()) {
            return Optional.empty();
        }
        BatchLock lock = new BatchLock(bid, owner, zk.get());
        try {
            lock.batch(loadBatch(bid));
            return Optional.of(lock);
        } catch (RuntimeException e) {
            unlock(lock);
            throw e;
        }
    }

    public void unlock(BatchLock lock) {
        releaseEphemeral(lock.zk, lock.sessionId, QueuePaths.batchLock(lock.bid()));
    }

    /** Ids of every batch, oldest first. */
    public List<String> batchIds() {
        return children(QueuePaths.BATCHES).stream().filter(n -> n.startsWith("bid")).sorted().toList();
    }

    public Batch loadBatch(String bid) {
        Map<String, OpResult> r = readMany(List.of(QueuePaths.batchSubmission(bid), QueuePaths.batchStatus(bid),
                QueuePaths.batchStatusReport(bid), QueuePaths.batchLock(bid)));
        OpResult.GetDataResult status = dataOf(r.get(QueuePaths.batchStatus(bid)));
        if (status == null) {
            throw new NotFoundException("no batch " + bid);
        }
        OpResult.GetDataResult submission = dataOf(r.get(QueuePaths.batchSubmission(bid)));
        if (submission == null) {
            throw new CorruptNodeException(QueuePaths.batchSubmission(bid), "missing");
        }
        OpResult.GetDataResult report = dataOf(r.get(QueuePaths.batchStatusReport(bid)));
        OpResult.GetDataResult lock = dataOf(r.get(QueuePaths.batchLock(bid)));
        Map<BatchRef, List<String>> jobs = new EnumMap<>(BatchRef.class);
        for (BatchRef ref : BatchRef.values()) {
            jobs.put(ref, childrenOrEmpty(QueuePaths.batchRefs(bid, ref)).stream().sorted().toList());
        }
        return new Batch(bid,
                QueueJson.read(QueuePaths.batchSubmission(bid), submission.getData(), BatchSubmission.class),
                QueueJson.read(QueuePaths.batchStatus(bid), status.getData(), BatchStatus.class),
                report == null ? null : QueueJson.read(QueuePaths.batchStatusReport(bid), report.getData(), StatusReport.class),
                jobs, status.getStat().getVersion(), lockOwner(QueuePaths.batchLock(bid), lock));
    }

    /** Statuses of many batches in one round trip; a batch that vanished meanwhile is left out. */
    public Map<String, BatchStatus> batchStatuses(List<String> bids) {
        List<String> paths = bids.stream().map(QueuePaths::batchStatus).toList();
        Map<String, OpResult> r = readMany(paths);
        Map<String, BatchStatus> out = new LinkedHashMap<>();
        for (String bid : bids) {
            OpResult.GetDataResult d = dataOf(r.get(QueuePaths.batchStatus(bid)));
            if (d != null) {
                out.put(bid, QueueJson.read(QueuePaths.batchStatus(bid), d.getData(), BatchStatus.class));
            }
        }
        return out;
    }

    /** Submissions of many batches in one round trip; a batch that vanished meanwhile is left out. */
    public Map<String, BatchSubmission> batchSubmissions(List<String> bids) {
        Map<String, OpResult> r = readMany(bids.stream().map(QueuePaths::batchSubmission).toList());
        Map<String, BatchSubmission> out = new LinkedHashMap<>();
        for (String bid : bids) {
            OpResult.GetDataResult d = dataOf(r.get(QueuePaths.batchSubmission(bid)));
            if (d != null) {
                out.put(bid, QueueJson.read(QueuePaths.batchSubmission(bid), d.getData(), BatchSubmission.class));
            }
        }
        return out;
    }

    public Map<BatchState, Integer> batchCounts() {
        Map<BatchState, Integer> counts = new EnumMap<>(BatchState.class);
        for (BatchState s : BatchState.values()) {
            counts.put(s, 0);
        }
        for (BatchStatus s : batchStatuses(batchIds()).values()) {
            counts.merge(s.state(), 1, Integer::sum);
        }
        return counts;
    }

    /**
     * Moves a locked batch; with a report, {@code /batches/BID/status-report} is written in the
     * same transaction. The lock is released by the same transaction.
     */
    public Batch transition(BatchLock lock, BatchState to, String reason, StatusReport report, String errorMessage) {
        return moveBatch(lock, to, reason, report, errorMessage, Transition.By.WORKER, true);
    }

    Batch moveBatch(BatchLock lock, BatchState to, String reason, StatusReport report, String errorMessage,
                    Transition.By by, boolean releaseLock) {
        Batch batch = lock.batch();
        String bid = batch.id();
        Transitions.requireBatch(bid, batch.state(), to);
        BatchStatus status = new BatchStatus(to.wire(), Instant.now().toString(), batch.status().jobsCreated(),
                errorMessage != null ? errorMessage : batch.status().errorMessage());
        List<Op> ops = new ArrayList<>();
        ops.add(Op.setData(QueuePaths.batchStatus(bid), QueueJson.write(status), batch.statusVersion()));
        if (report != null) {
            ops.add(batch.statusReport() == null
                    ? create(QueuePaths.batchStatusReport(bid), QueueJson.write(report))
                    : Op.setData(QueuePaths.batchStatusReport(bid), QueueJson.write(report), -1));
        }
        ops.add(releaseLock ? Op.delete(QueuePaths.batchLock(bid), -1) : Op.check(QueuePaths.batchLock(bid), -1));
        commitLocked(lock.zk, lock.sessionId, "batch " + bid, ops, QueuePaths.batchStatus(bid), batch.statusVersion());
        Batch moved = new Batch(bid, batch.submission(), status, report != null ? report : batch.statusReport(),
                batch.jobs(), batch.statusVersion() + 1, releaseLock ? null : lock.owner());
        lock.batch(moved);
        logBatch(bid, batch.state(), to, reason);
        return moved;
    }

    /**
     * Processing → reporting when no job of the batch is left in batch-processing. Exact: the
     * transaction checks that the category did not change since it was seen empty, and that no
     * one holds the batch lock. Returns true when this call moved the batch.
     */
    public boolean startReportingIfDone(String bid) {
        try {
            Stat refsStat = new Stat();
            List<String> processing = client.getChildren().storingStatIn(refsStat).forPath(QueuePaths.batchRefs(bid, BatchRef.PROCESSING));
            operations.incrementAndGet();
            if (!processing.isEmpty()) {
                return false;
            }
            Stat statusStat = new Stat();
            BatchStatus status = QueueJson.read(QueuePaths.batchStatus(bid), read(QueuePaths.batchStatus(bid), statusStat), BatchStatus.class);
            if (status.state() != BatchState.PROCESSING) {
                return false;
            }
            BatchStatus next = new BatchStatus(BatchState.REPORTING.wire(), Instant.now().toString(), status.jobsCreated(), status.errorMessage());
            List<Op> ops = List.of(
                    Op.check(QueuePaths.batchRefs(bid, BatchRef.PROCESSING), refsStat.getVersion()),
                    Op.setData(QueuePaths.batchStatus(bid), QueueJson.write(next), statusStat.getVersion()),
                    Op.create(QueuePaths.batchLock(bid), EMPTY, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL),
                    Op.delete(QueuePaths.batchLock(bid), -1));
            commit(currentHandle(), ops, () -> false);
            logBatch(bid, BatchState.PROCESSING, BatchState.REPORTING, "last job ended");
            return true;
        } catch (KeeperException.NoNodeException | KeeperException.BadVersionException | KeeperException.NodeExistsException e) {
            return false; // a job moved, the batch moved, or someone holds the batch: a later check decides
        } catch (KeeperException e) {
            throw new QueueException("cannot check batch " + bid + " for completion: " + e.getMessage(), e);
        } catch (Exception e) {
            throw wrap("check batch " + bid + " for completion", e);
        }
    }

    // ------------------------------------------------------------------ job creation

    /**
     * Creates the batch's jobs in transactions of bounded size; each transaction writes every
     * node of its jobs, their references, the id counter and the batch's {@code jobs_created}
     * together. Resumes after the jobs a crashed earlier run created (the batch must still be
     * pending). Returns the ids created by this call.
     */
    public List<String> createJobs(BatchLock lock, List<NewJob> jobs) {
        Batch batch = lock.batch();
        String bid = batch.id();
        if (batch.state() != BatchState.PENDING) {
            throw new IllegalTransitionException("batch " + bid + " is " + batch.state() + "; jobs are created only while it is pending",
                    Transitions.allowedFrom(Transitions.BATCH, batch.state()));
        }
        List<String> created = new ArrayList<>();
        int done = batch.status().jobsCreated();
        boolean statesExist = exists(QueuePaths.batchStates(bid));
        while (done < jobs.size()) {
            List<NewJob> chunk = jobs.subList(done, Math.min(jobs.size(), done + creationChunk));
            created.addAll(createChunk(lock, chunk, done, statesExist));
            statesExist = true;
            done += chunk.size();
        }
        return created;
    }

    private List<String> createChunk(BatchLock lock, List<NewJob> chunk, int doneBefore, boolean statesExist) {
        String bid = lock.bid();
        for (int attempt = 0; attempt < MAX_COUNTER_RETRIES; attempt++) {
            Batch batch = lock.batch();
            Stat counterStat = new Stat();
            long last = QueueJson.readLong(QueuePaths.JOB_COUNTER, read(QueuePaths.JOB_COUNTER, counterStat));
            List<Op> ops = new ArrayList<>();
            ops.add(Op.check(QueuePaths.batchLock(bid), -1));
            ops.add(Op.setData(QueuePaths.JOB_COUNTER, QueueJson.text(last + chunk.size()), counterStat.getVersion()));
            BatchStatus status = new BatchStatus(batch.status().status(), Instant.now().toString(),
                    doneBefore + chunk.size(), batch.status().errorMessage());
            ops.add(Op.setData(QueuePaths.batchStatus(bid), QueueJson.write(status), batch.statusVersion()));
            if (!statesExist) {
                ops.add(create(QueuePaths.batchStates(bid), EMPTY));
                for (BatchRef ref : BatchRef.values()) {
                    ops.add(create(QueuePaths.batchRefs(bid, ref), EMPTY));
                }
            }
            List<String> jids = new ArrayList<>();
            String now = Instant.now().toString();
            for (int i = 0; i < chunk.size(); i++) {
                NewJob job = chunk.get(i);
                String jid = QueuePaths.jobId(last + 1 + i);
                jids.add(jid);
                JobConfiguration config = job.configuration().withBatchId(bid)
                        .withWorkingDir(ingestHome.resolve(bid).resolve(jid).toString());
                ops.add(create(QueuePaths.job(jid), EMPTY));
                ops.add(create(QueuePaths.jobNode(jid, "configuration"), QueueJson.write(config)));
                ops.add(create(QueuePaths.jobStatus(jid), QueueJson.write(
                        new JobStatus(JobState.PENDING.wire(), null, now, 0, null))));
                ops.add(create(QueuePaths.jobNode(jid, "priority"), QueueJson.text(job.priority())));
                ops.add(create(QueuePaths.jobNode(jid, "space_needed"), QueueJson.text(0)));
                ops.add(create(QueuePaths.jobNode(jid, "identifiers"), QueueJson.write(job.identifiers())));
                ops.add(create(QueuePaths.jobNode(jid, "bid"), QueueJson.text(bid)));
                ops.add(create(QueuePaths.jobRef(JobState.PENDING, job.priority(), jid), EMPTY));
                ops.add(create(QueuePaths.batchRef(bid, BatchRef.PROCESSING, jid), EMPTY));
            }
            try {
                List<OpResult> results = commitLocked(lock.zk, lock.sessionId, "batch " + bid, ops,
                        QueuePaths.batchStatus(bid), batch.statusVersion());
                // results is empty when a lost connection hid a commit that did apply
                int newVersion = results.isEmpty() ? batch.statusVersion() + 1
                        : ((OpResult.SetDataResult) results.get(2)).getStat().getVersion();
                lock.batch(new Batch(bid, batch.submission(), status, batch.statusReport(), batch.jobs(), newVersion, lock.owner()));
                LOG.info("batch {}: created jobs {}..{} ({} of them)", bid, jids.get(0), jids.get(jids.size() - 1), jids.size());
                for (String jid : jids) {
                    fire(TransitionEvent.JOB, jid, bid, null, JobState.PENDING.wire(), "created");
                }
                return jids;
            } catch (StaleCounter e) {
                // another host drew the same job ids: draw again
            }
        }
        throw new QueueException("cannot create jobs for " + bid + ": the job id counter is too contended");
    }

    // ------------------------------------------------------------------ jobs

    /** Reference names {@code PP-JID} of a state, in the order they should run. */
    public List<String> jobRefs(JobState state) {
        List<String> refs = new ArrayList<>(childrenOrEmpty(QueuePaths.jobState(state)));
        Collections.sort(refs);
        return refs;
    }

    /** How many jobs each state holds, from the reference folders' child counts. */
    public Map<JobState, Integer> jobCounts() {
        Map<JobState, Integer> counts = new EnumMap<>(JobState.class);
        for (JobState s : JobState.values()) {
            if (s == JobState.DELETED) {
                continue;
            }
            try {
                Stat st = client.checkExists().forPath(QueuePaths.jobState(s));
                operations.incrementAndGet();
                counts.put(s, st == null ? 0 : st.getNumChildren());
            } catch (Exception e) {
                throw wrap("count jobs in " + s, e);
            }
        }
        return counts;
    }

    public Job loadJob(String jid) {
        List<Job> jobs = loadJobs(List.of(jid));
        if (jobs.isEmpty()) {
            throw new NotFoundException("no job " + jid);
        }
        return jobs.get(0);
    }

    public Optional<Job> findJob(String jid) {
        List<Job> jobs = loadJobs(List.of(jid));
        return jobs.isEmpty() ? Optional.empty() : Optional.of(jobs.get(0));
    }

    private static final List<String> JOB_CHILDREN = List.of("configuration", "status", "priority", "space_needed",
            "identifiers", "bid", "lock");

    /** Loads jobs in one read transaction per 100 jobs; a job without a status node is left out. */
    public List<Job> loadJobs(List<String> jids) {
        List<Job> out = new ArrayList<>();
        for (int from = 0; from < jids.size(); from += 100) {
            List<String> chunk = jids.subList(from, Math.min(jids.size(), from + 100));
            List<String> paths = new ArrayList<>();
            for (String jid : chunk) {
                for (String c : JOB_CHILDREN) {
                    paths.add(QueuePaths.jobNode(jid, c));
                }
            }
            Map<String, OpResult> r = readMany(paths);
            for (String jid : chunk) {
                OpResult.GetDataResult status = dataOf(r.get(QueuePaths.jobStatus(jid)));
                if (status == null) {
                    continue;
                }
                out.add(toJob(jid, r, status));
            }
        }
        return out;
    }

    private Job toJob(String jid, Map<String, OpResult> r, OpResult.GetDataResult status) {
        String pc = QueuePaths.jobNode(jid, "configuration");
        String pp = QueuePaths.jobNode(jid, "priority");
        String ps = QueuePaths.jobNode(jid, "space_needed");
        String pi = QueuePaths.jobNode(jid, "identifiers");
        String pb = QueuePaths.jobNode(jid, "bid");
        OpResult.GetDataResult config = required(pc, r.get(pc));
        OpResult.GetDataResult ids = dataOf(r.get(pi));
        OpResult.GetDataResult space = dataOf(r.get(ps));
        OpResult.GetDataResult bid = dataOf(r.get(pb));
        JobConfiguration configuration = QueueJson.read(pc, config.getData(), JobConfiguration.class);
        JobStatus jobStatus = QueueJson.read(QueuePaths.jobStatus(jid), status.getData(), JobStatus.class);
        try {
            jobStatus.state();
            if (jobStatus.lastSuccessfulStatus() != null) {
                jobStatus.lastSuccessful();
            }
        } catch (IllegalArgumentException e) {
            throw new CorruptNodeException(QueuePaths.jobStatus(jid), e.getMessage());
        }
        return new Job(jid,
                bid != null ? QueueJson.text(bid.getData()) : configuration.batchId(),
                configuration,
                jobStatus,
                QueuePaths.checkPriorityNode(pp, QueueJson.readInt(pp, required(pp, r.get(pp)).getData())),
                space == null ? 0 : QueueJson.readLong(ps, space.getData()),
                ids == null ? new Identifiers(null, List.of()) : QueueJson.read(pi, ids.getData(), Identifiers.class),
                status.getStat().getVersion(),
                lockOwner(QueuePaths.jobLock(jid), dataOf(r.get(QueuePaths.jobLock(jid)))));
    }

    /** Takes {@code /jobs/JID/lock} if nobody holds it, then loads the job; never blocks. */
    public Optional<JobLock> tryLockJob(String jid, String worker) {
        LockOwner owner = LockOwner.of(worker);
        Optional<ZooKeeper> zk = takeEphemeral(QueuePaths.jobLock(jid), owner);
        if (zk.isEmpty()) {
            return Optional.empty();
        }
        JobLock lock = new JobLock(jid, owner, zk.get());
        try {
            Optional<Job> job = findJob(jid);
            if (job.isEmpty()) {
                unlock(lock);
                return Optional.empty();
            }
            lock.job(job.get());
            return Optional.of(lock);
        } catch (RuntimeException e) {
            unlock(lock);
            throw e;
        }
    }

    /**
     * Locks the job behind a reference seen in {@code state} and re-checks, after locking, that
     * the job is still in that state; empty when someone else has it or it moved on.
     */
    public Optional<JobLock> claim(JobState state, String refName, String worker) {
        Optional<JobLock> lock = tryLockJob(QueuePaths.jidOfRef(refName), worker);
        if (lock.isPresent() && lock.get().job().state() != state) {
            unlock(lock.get());
            return Optional.empty();
        }
        return lock;
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
        releaseEphemeral(lock.zk, lock.sessionId, QueuePaths.jobLock(lock.jid()));
    }

    /** Moves a locked job as a worker does; the lock is released by the same transaction. */
    public Job transition(JobLock lock, JobState to, Change change) {
        return move(lock, to, change, Transition.By.WORKER);
    }

    /** Writes the job's identifiers at once (an ARK just minted), under its lock. */
    public void writeIdentifiers(JobLock lock, Identifiers identifiers) {
        String jid = lock.jid();
        List<Op> ops = List.of(Op.check(QueuePaths.jobLock(jid), -1),
                Op.setData(QueuePaths.jobNode(jid, "identifiers"), QueueJson.write(identifiers), -1));
        try {
            commit(lock.zk, ops, () -> identifiers.equals(QueueJson.read("identifiers",
                    readOrNull(QueuePaths.jobNode(jid, "identifiers")), Identifiers.class)));
        } catch (KeeperException.NoNodeException e) {
            throw new StaleLockException("job " + jid + ": lock lost before identifiers were written");
        } catch (KeeperException.SessionExpiredException e) {
            throw new StaleLockException("job " + jid + ": session expired before identifiers were written");
        } catch (KeeperException e) {
            throw new QueueException("job " + jid + ": cannot write identifiers: " + e.getMessage(), e);
        }
        Job j = lock.job();
        lock.job(new Job(j.id(), j.batchId(), j.configuration(), j.status(), j.priority(), j.spaceNeeded(),
                identifiers, j.statusVersion(), j.lockOwner()));
        LOG.info("job {} batch {}: identifiers {} {}", jid, j.batchId(), identifiers.primary(), identifiers.localId());
    }

    Job move(JobLock lock, JobState to, Change change, Transition.By by) {
        Job job = lock.job();
        String jid = job.id();
        JobState from = job.state();
        Transitions.requireJob(jid, from, to);
        if (to == JobState.DELETED) {
            throw new IllegalArgumentException("deleting goes through AdminActions.deleteJob");
        }
        JobStatus old = job.status();
        JobState lastSuccessful = old.lastSuccessful();
        if (to == from.successor() && from != JobState.PENDING) {
            lastSuccessful = from;
        }
        int retries = old.retryCount() + (from == JobState.FAILED ? 1 : 0);
        String error = to == JobState.FAILED
                ? Objects.requireNonNullElse(change.errorMessage(), change.reason())
                : null;
        JobStatus status = new JobStatus(to.wire(), lastSuccessful == null ? null : lastSuccessful.wire(),
                Instant.now().toString(), retries, error);
        int priority = change.priority() != null ? change.priority() : job.priority();
        long space = change.spaceNeeded() != null ? change.spaceNeeded() : job.spaceNeeded();

        List<Op> ops = new ArrayList<>();
        ops.add(Op.setData(QueuePaths.jobStatus(jid), QueueJson.write(status), job.statusVersion()));
        if (priority != job.priority()) {
            ops.add(Op.setData(QueuePaths.jobNode(jid, "priority"), QueueJson.text(priority), -1));
        }
        if (space != job.spaceNeeded()) {
            ops.add(Op.setData(QueuePaths.jobNode(jid, "space_needed"), QueueJson.text(space), -1));
        }
        ops.add(Op.delete(QueuePaths.jobRef(from, job.priority(), jid), -1));
        ops.add(create(QueuePaths.jobRef(to, priority, jid), EMPTY));
        addBatchRefMove(ops, job.batchId(), jid, from.batchRef(), to.batchRef());
        ops.add(Op.delete(QueuePaths.jobLock(jid), -1));
        commitLocked(lock.zk, lock.sessionId, "job " + jid, ops, QueuePaths.jobStatus(jid), job.statusVersion());

        Job moved = new Job(jid, job.batchId(), job.configuration(), status, priority, space, job.identifiers(),
                job.statusVersion() + 1, null);
        lock.job(moved);
        logJob(jid, job.batchId(), from, to, change.reason());
        if (from.batchRef() == BatchRef.PROCESSING && to.batchRef() != BatchRef.PROCESSING) {
            reportIfDone(job.batchId());
        }
        return moved;
    }

    /** The committed transition stands whatever happens here; the reporting sweep retries. */
    private void reportIfDone(String bid) {
        try {
            startReportingIfDone(bid);
        } catch (RuntimeException e) {
            LOG.warn("batch {}: not checked for completion now ({}); the reporting sweep will", bid, e.getMessage());
        }
    }

    /** Moves the job's batch reference between categories and bumps batch-processing's version. */
    static void addBatchRefMove(List<Op> ops, String bid, String jid, BatchRef from, BatchRef to) {
        if (from == to) {
            return;
        }
        if (from != null) {
            ops.add(Op.delete(QueuePaths.batchRef(bid, from, jid), -1));
        }
        if (to != null) {
            ops.add(Op.create(QueuePaths.batchRef(bid, to, jid), EMPTY, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
        }
        ops.add(Op.setData(QueuePaths.batchRefs(bid, BatchRef.PROCESSING), EMPTY, -1));
    }

    /**
     * Deletes every node of a locked job (children, the job node, its reference and its batch
     * reference) in one transaction.
     */
    void deleteJobNodes(JobLock lock, String reason) {
        Job job = lock.job();
        String jid = job.id();
        List<Op> ops = new ArrayList<>();
        for (String child : children(QueuePaths.job(jid))) {
            if (!child.equals("lock")) {
                ops.add(Op.delete(QueuePaths.jobNode(jid, child), -1));
            }
        }
        ops.add(0, Op.check(QueuePaths.jobStatus(jid), job.statusVersion()));
        ops.add(Op.delete(QueuePaths.jobRef(job.state(), job.priority(), jid), -1));
        BatchRef ref = job.state().batchRef();
        if (exists(QueuePaths.batchRef(job.batchId(), ref, jid))) {
            addBatchRefMove(ops, job.batchId(), jid, ref, null);
        }
        ops.add(Op.delete(QueuePaths.jobLock(jid), -1));
        ops.add(Op.delete(QueuePaths.job(jid), -1));
        commitLocked(lock.zk, lock.sessionId, "job " + jid, ops, QueuePaths.jobStatus(jid), job.statusVersion());
        logJob(jid, job.batchId(), job.state(), JobState.DELETED, reason);
        if (ref == BatchRef.PROCESSING) {
            reportIfDone(job.batchId());
        }
    }

    /** Removes what is left of a batch (its jobs already deleted): the batch node and everything under it. */
    void deleteBatchNodes(String bid) {
        try {
            client.delete().deletingChildrenIfNeeded().forPath(QueuePaths.batch(bid));
            operations.incrementAndGet();
        } catch (KeeperException.NoNodeException e) {
            // already gone
        } catch (Exception e) {
            throw wrap("delete batch " + bid, e);
        }
        fire(TransitionEvent.BATCH, bid, bid, null, BatchState.DELETED.wire(), "removed");
    }

    // ------------------------------------------------------------------ holds

    public void holdCollection(String profile, String by) {
        createPersistent(QueuePaths.collectionHold(profile), holdData(by));
        LOG.info("collection {} held by {}", profile, by);
    }

    public boolean releaseCollection(String profile) {
        boolean released = deleteIfExists(QueuePaths.collectionHold(profile));
        LOG.info("collection {} released", profile);
        return released;
    }

    public boolean isCollectionHeld(String profile) {
        return profile != null && exists(QueuePaths.collectionHold(profile));
    }

    public List<String> heldCollections() {
        return childrenOrEmpty(QueuePaths.COLLECTION_HOLDS).stream().sorted().toList();
    }

    public void holdQueue(String by) {
        createPersistent(QueuePaths.QUEUE_HOLD, holdData(by));
        LOG.info("queue held by {}", by);
    }

    public boolean releaseQueue() {
        boolean released = deleteIfExists(QueuePaths.QUEUE_HOLD);
        LOG.info("queue released");
        return released;
    }

    public boolean isQueueHeld() {
        return exists(QueuePaths.QUEUE_HOLD);
    }

    private static byte[] holdData(String by) {
        return QueueJson.write(Map.of("by", by == null ? "unknown" : by, "since", Instant.now().toString()));
    }

    // ------------------------------------------------------------------ watches (for the queue consumers)

    /**
     * The references of a state in run order, leaving a one-shot watch that calls
     * {@code onChange} when the folder's children change. Pass the same {@code onChange} on
     * every call: ZooKeeper keeps one watch per watcher and path, so repeated calls do not pile up.
     */
    public List<String> watchJobRefs(JobState state, CuratorWatcher onChange) {
        return watchChildren(QueuePaths.jobState(state), onChange).stream().sorted().toList();
    }

    /** Every batch id, oldest first, leaving a one-shot watch for a batch being created or removed. */
    public List<String> watchBatchIds(CuratorWatcher onChange) {
        return watchChildren(QueuePaths.BATCHES, onChange).stream().filter(n -> n.startsWith("bid")).sorted().toList();
    }

    /** Whether the whole queue is held, leaving a one-shot watch for the hold being set or lifted. */
    public boolean watchQueueHold(CuratorWatcher onChange) {
        return watchExists(QueuePaths.QUEUE_HOLD, onChange);
    }

    /**
     * Whether the job's lock is taken, leaving a one-shot watch for its release: a consumer that
     * lost a race for a job hears when it is free again instead of waiting for the next change.
     */
    public boolean watchJobLock(String jid, CuratorWatcher onRelease) {
        return watchExists(QueuePaths.jobLock(jid), onRelease);
    }

    public boolean watchBatchLock(String bid, CuratorWatcher onRelease) {
        return watchExists(QueuePaths.batchLock(bid), onRelease);
    }

    private boolean watchExists(String path, CuratorWatcher onChange) {
        try {
            operations.incrementAndGet();
            return client.checkExists().usingWatcher(onChange).forPath(path) != null;
        } catch (Exception e) {
            throw wrap("watch " + path, e);
        }
    }

    private List<String> watchChildren(String path, CuratorWatcher onChange) {
        try {
            operations.incrementAndGet();
            return client.getChildren().usingWatcher(onChange).forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (Exception e) {
            throw wrap("watch " + path, e);
        }
    }

    // ------------------------------------------------------------------ plumbing (package-private for fsck and admin)

    private void logJob(String jid, String bid, JobState from, JobState to, String reason) {
        TRANSITIONS.info("job {} batch {}: {} -> {}: {}", jid, bid, from, to, reason);
        fire(TransitionEvent.JOB, jid, bid, from.wire(), to.wire(), reason);
    }

    void logBatch(String bid, BatchState from, BatchState to, String reason) {
        TRANSITIONS.info("batch {}: {} -> {}: {}", bid, from, to, reason);
        fire(TransitionEvent.BATCH, bid, bid, from.wire(), to.wire(), reason);
    }

    private void fire(String kind, String id, String bid, String from, String to, String reason) {
        if (listeners.isEmpty()) {
            return;
        }
        TransitionEvent event = new TransitionEvent(kind, id, bid, from, to, reason, Instant.now());
        for (Consumer<TransitionEvent> l : listeners) {
            try {
                l.accept(event);
            } catch (RuntimeException e) {
                LOG.warn("transition listener failed: {}", e.toString());
            }
        }
    }

    static Op create(String path, byte[] data) {
        return Op.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }

    ZooKeeper currentHandle() {
        try {
            return client.getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            throw wrap("reach ZooKeeper", e);
        }
    }

    /** Signals that the counter moved under us, so the id draw is repeated. */
    private static final class StaleCounter extends RuntimeException {
        StaleCounter() {
            super(null, null, false, false);
        }
    }

    /**
     * Commits a transaction made under a lock. A failed version check on {@code versionedPath}
     * or a missing lock means someone else moved first: {@link StaleLockException}.
     */
    List<OpResult> commitLocked(ZooKeeper zk, long sessionId, String what, List<Op> ops, String versionedPath, int version) {
        if (zk.getSessionId() != sessionId || !zk.getState().isAlive()) {
            throw new StaleLockException(what + ": the session that held the lock has expired");
        }
        try {
            return commit(zk, ops, () -> {
                Stat st = statOrNull(zk, versionedPath);
                return st != null && st.getVersion() == version + 1;
            });
        } catch (KeeperException.SessionExpiredException e) {
            throw new StaleLockException(what + ": the session that held the lock has expired; nothing was written");
        } catch (KeeperException e) {
            int failed = firstFailed(e);
            Op op = failed >= 0 && failed < ops.size() ? ops.get(failed) : null;
            String path = op == null ? e.getPath() : op.getPath();
            if (path != null && path.equals(QueuePaths.JOB_COUNTER) && e.code() == KeeperException.Code.BADVERSION) {
                throw new StaleCounter();
            }
            if (path != null && path.equals(versionedPath) && e.code() == KeeperException.Code.BADVERSION) {
                throw new StaleLockException(what + " was changed by someone else since it was read; nothing was written");
            }
            if (path != null && path.endsWith("/lock") && e.code() == KeeperException.Code.NONODE) {
                throw new StaleLockException(what + ": the lock is no longer held; nothing was written");
            }
            throw new CorruptNodeException(path == null ? what : path,
                    e.code() + " during " + what + " transition (run the consistency check); nothing was written");
        }
    }

    interface AppliedCheck {
        boolean applied() throws Exception;
    }

    /**
     * Runs a multi on the given handle. On connection loss it waits for the connection, asks
     * {@code applied} whether the commit went through, and retries once if it did not.
     */
    List<OpResult> commit(ZooKeeper zk, List<Op> ops, AppliedCheck applied) throws KeeperException {
        for (int attempt = 0; ; attempt++) {
            try {
                operations.addAndGet(ops.size());
                return zk.multi(ops);
            } catch (KeeperException.ConnectionLossException e) {
                if (attempt >= 3) {
                    throw e;
                }
                awaitConnection();
                if (zk.getState() == ZooKeeper.States.CLOSED || !zk.getState().isAlive()) {
                    throw new KeeperException.SessionExpiredException();
                }
                try {
                    if (applied.applied()) {
                        return List.of();
                    }
                } catch (KeeperException ke) {
                    throw ke;
                } catch (Exception ex) {
                    throw new QueueException("cannot tell whether a commit applied: " + ex.getMessage(), ex);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new QueueException("interrupted during commit", e);
            }
        }
    }

    private void awaitConnection() {
        try {
            client.getZookeeperClient().blockUntilConnectedOrTimedOut();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new QueueException("interrupted while waiting for ZooKeeper", e);
        }
    }

    private static int firstFailed(KeeperException e) {
        List<OpResult> results = e.getResults();
        if (results == null) {
            return -1;
        }
        for (int i = 0; i < results.size(); i++) {
            if (results.get(i) instanceof OpResult.ErrorResult er
                    && er.getErr() != KeeperException.Code.OK.intValue()
                    && er.getErr() != KeeperException.Code.RUNTIMEINCONSISTENCY.intValue()) {
                return i;
            }
        }
        return -1;
    }

    private Optional<ZooKeeper> takeEphemeral(String path, LockOwner owner) {
        byte[] data = QueueJson.write(owner);
        for (int attempt = 0; attempt < 3; attempt++) {
            ZooKeeper zk = currentHandle();
            try {
                operations.incrementAndGet();
                zk.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
                return Optional.of(zk);
            } catch (KeeperException.NodeExistsException e) {
                Stat st = statOrNull(zk, path);
                if (st != null && st.getEphemeralOwner() == zk.getSessionId() && Arrays.equals(data, readOrNull(path))) {
                    return Optional.of(zk); // our own create, applied before a connection loss
                }
                return Optional.empty();
            } catch (KeeperException.NoNodeException e) {
                return Optional.empty(); // the job or batch is gone
            } catch (KeeperException.ConnectionLossException e) {
                awaitConnection();
            } catch (KeeperException e) {
                throw new QueueException("cannot lock " + path + ": " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new QueueException("interrupted while locking " + path, e);
            }
        }
        throw new QueueException("cannot lock " + path + ": ZooKeeper connection keeps dropping");
    }

    /** Deletes an ephemeral lock only if this session owns it. */
    private void releaseEphemeral(ZooKeeper zk, long sessionId, String path) {
        if (zk.getSessionId() != sessionId || !zk.getState().isAlive()) {
            return; // the session is gone, and its ephemeral lock with it
        }
        try {
            Stat st = statOrNull(zk, path);
            if (st != null && st.getEphemeralOwner() == sessionId) {
                operations.incrementAndGet();
                zk.delete(path, st.getVersion());
            }
        } catch (KeeperException.NoNodeException e) {
            // already gone
        } catch (KeeperException e) {
            LOG.warn("cannot release {}: {} (it goes with the session)", path, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    Stat statOrNull(ZooKeeper zk, String path) {
        try {
            operations.incrementAndGet();
            return zk.exists(path, false);
        } catch (KeeperException e) {
            throw new QueueException("cannot read " + path + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new QueueException("interrupted reading " + path, e);
        }
    }

    /** Reads many nodes in one read transaction; a missing node maps to an error result. */
    Map<String, OpResult> readMany(List<String> paths) {
        Map<String, OpResult> out = new LinkedHashMap<>();
        if (paths.isEmpty()) {
            return out;
        }
        List<Op> ops = paths.stream().map(Op::getData).toList();
        try {
            List<OpResult> results = RetryLoop.callWithRetry(client.getZookeeperClient(),
                    () -> client.getZookeeperClient().getZooKeeper().multi(ops));
            operations.addAndGet(ops.size());
            for (int i = 0; i < paths.size(); i++) {
                out.put(paths.get(i), results.get(i));
            }
            return out;
        } catch (Exception e) {
            throw wrap("read " + paths.get(0) + (paths.size() > 1 ? " and " + (paths.size() - 1) + " more" : ""), e);
        }
    }

    private static OpResult.GetDataResult dataOf(OpResult r) {
        return r instanceof OpResult.GetDataResult d ? d : null;
    }

    private static OpResult.GetDataResult required(String path, OpResult r) {
        OpResult.GetDataResult d = dataOf(r);
        if (d == null) {
            throw new CorruptNodeException(path, "missing");
        }
        return d;
    }

    private static LockOwner lockOwner(String path, OpResult.GetDataResult d) {
        if (d == null) {
            return null;
        }
        try {
            return QueueJson.read(path, d.getData(), LockOwner.class);
        } catch (CorruptNodeException e) {
            return new LockOwner("unknown", 0, "unknown", null);
        }
    }

    byte[] read(String path, Stat stat) {
        try {
            operations.incrementAndGet();
            return client.getData().storingStatIn(stat).forPath(path);
        } catch (KeeperException.NoNodeException e) {
            throw new NotFoundException("no node " + path);
        } catch (Exception e) {
            throw wrap("read " + path, e);
        }
    }

    byte[] readOrNull(String path) {
        try {
            operations.incrementAndGet();
            return client.getData().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return null;
        } catch (Exception e) {
            throw wrap("read " + path, e);
        }
    }

    boolean exists(String path) {
        try {
            operations.incrementAndGet();
            return client.checkExists().forPath(path) != null;
        } catch (Exception e) {
            throw wrap("look up " + path, e);
        }
    }

    List<String> children(String path) {
        try {
            operations.incrementAndGet();
            return client.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            throw new NotFoundException("no node " + path);
        } catch (Exception e) {
            throw wrap("list " + path, e);
        }
    }

    List<String> childrenOrEmpty(String path) {
        try {
            operations.incrementAndGet();
            return client.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (Exception e) {
            throw wrap("list " + path, e);
        }
    }

    private void createPersistent(String path, byte[] data) {
        try {
            operations.incrementAndGet();
            client.create().creatingParentsIfNeeded().forPath(path, data);
        } catch (KeeperException.NodeExistsException e) {
            // already held
        } catch (Exception e) {
            throw wrap("create " + path, e);
        }
    }

    private boolean deleteIfExists(String path) {
        try {
            operations.incrementAndGet();
            client.delete().forPath(path);
            return true;
        } catch (KeeperException.NoNodeException e) {
            return false;
        } catch (Exception e) {
            throw wrap("delete " + path, e);
        }
    }

    /** Runs a multi that needs no lock (admin repairs, cleanup), with the current handle. */
    void commitUnlocked(String what, List<Op> ops) {
        try {
            commit(currentHandle(), ops, () -> false);
        } catch (KeeperException e) {
            int failed = firstFailed(e);
            String path = failed >= 0 ? ops.get(failed).getPath() : e.getPath();
            throw new QueueException(what + ": " + e.code() + " at " + path + "; nothing was written", e);
        }
    }

    static QueueException wrap(String action, Exception e) {
        if (e instanceof QueueException qe) {
            return qe;
        }
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        return new QueueException("cannot " + action + ": " + e, e);
    }

    /** Time to wait for a session to come back before declaring ZooKeeper gone. */
    static final long CONNECT_WAIT_MS = TimeUnit.SECONDS.toMillis(15);
}
