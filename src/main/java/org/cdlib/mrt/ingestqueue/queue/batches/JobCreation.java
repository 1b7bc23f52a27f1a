package org.cdlib.mrt.ingestqueue.queue.batches;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionEvent;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionLog;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchStatus;
import org.cdlib.mrt.ingestqueue.queue.model.IllegalTransitionException;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.model.JobHistory;
import org.cdlib.mrt.ingestqueue.queue.model.JobMetadata;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.JobStatus;
import org.cdlib.mrt.ingestqueue.queue.model.NewJob;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.model.QueueTime;
import org.cdlib.mrt.ingestqueue.queue.model.Transitions;
import org.cdlib.mrt.ingestqueue.queue.space.IdBlocks;
import org.cdlib.mrt.ingestqueue.queue.space.LockedCommitFailures;
import org.cdlib.mrt.ingestqueue.queue.zk.Probes;
import org.cdlib.mrt.ingestqueue.queue.zk.StaleCounter;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates a batch's jobs, a window at a time, in transactions sized by bytes. Their ids come from
 * blocks reserved below mrt-zk's next sequential id ({@link IdBlocks}), recorded in the batch's
 * status ({@code job_runs}) by the transaction that first uses them; each transaction writes every node of its jobs,
 * their references, and the batch's {@code jobs_created} and cursor together, so creation resumes exactly where a
 * crash left it and never creates a job twice. Each transaction also passes the open-jobs gate ({@link CapGate}): it
 * creates only what fits under the queue's cap on the count read after the gate, and fails whole if another creator
 * (any host) passed the gate since, in which case the count is read again and the room decided again.
 */
public final class JobCreation {
    private static final Logger LOG = LoggerFactory.getLogger(JobCreation.class);
    private static final int MAX_COUNTER_RETRIES = 50;
    /** Operations of one job's creation beyond its data: node paths and headers. */
    private static final int JOB_OVERHEAD_BYTES = 1200;

    private final ZooKeeperCalls zk;
    private final TransitionLog log;
    private final Path ingestHome;
    private final int maxJobsPerTransaction;

    public JobCreation(ZooKeeperCalls zk, TransitionLog log, Path ingestHome, int maxJobsPerTransaction) {
        this.zk = zk;
        this.log = log;
        this.ingestHome = ingestHome;
        this.maxJobsPerTransaction = maxJobsPerTransaction;
    }

    /**
     * Creates {@code next}, the jobs that follow the ones the batch already has, out of
     * {@code total}; the batch must be pending. Creates only as many as fit while the queue has
     * at most {@code maxOpen} open jobs, in order: those that do not fit are left for a later
     * call (the batch's cursor and {@code jobs_created} say where it goes on). Returns the ids created.
     */
    List<String> create(HeldBatch lock, List<NewJob> next, int total, int maxOpen) {
        Batch batch = lock.batch();
        String bid = batch.id();
        if (batch.state() != BatchState.PENDING) {
            throw new IllegalTransitionException(
                    "batch " + bid + " is " + batch.state() + "; jobs are created only while it is pending",
                    Transitions.allowedFrom(Transitions.BATCH, batch.state()));
        }
        if (batch.status().jobsCreated() + next.size() > total
                || (batch.status().jobsTotal() != null && batch.status().jobsTotal() != total)) {
            throw new IllegalArgumentException("batch " + bid + ": " + next.size() + " more jobs after "
                    + batch.status().jobsCreated() + " would not make " + total);
        }
        List<String> created = new ArrayList<>();
        int from = 0;
        while (from < next.size()) {
            int to = from;
            long bytes = 0;
            while (to < next.size() && to - from < maxJobsPerTransaction) {
                byte[] config = QueueLimits.checkNode(QueuePaths.jobNode("jid", "configuration"),
                        QueueJson.write(next.get(to).configuration()));
                JobMetadata metadata = JobMetadata.of(next.get(to).configuration());
                long need = config.length + (metadata == null ? 0 : QueueJson.write(metadata).length)
                        + QueueJson.write(next.get(to).identifiers()).length + JOB_OVERHEAD_BYTES;
                if (to > from && bytes + need > QueueLimits.TRANSACTION_BYTES) {
                    break;
                }
                bytes += need;
                to++;
            }
            List<String> made = chunk(lock, next.subList(from, to), total, maxOpen);
            created.addAll(made);
            zk.probes().reached(Probes.Point.AFTER_CHUNK);
            if (made.size() < to - from) {
                break; // the queue reached its cap: the rest waits for room
            }
            from = to;
        }
        return created;
    }

    /** One transaction: the first jobs of {@code wanted} that fit under the cap (none when the queue is full). */
    private List<String> chunk(HeldBatch lock, List<NewJob> wanted, int total, int maxOpen) {
        String bid = lock.bid();
        IdBlocks.Block block = null; // reserved once, kept across attempts
        for (int attempt = 0; attempt < MAX_COUNTER_RETRIES; attempt++) {
            Batch batch = lock.batch();
            BatchStatus before = batch.status();
            CapGate.Reading gate = CapGate.jobs(zk);
            int room = gate.room(maxOpen);
            if (room == 0) {
                LOG.debug("batch {}: {} open jobs, the cap is {}; no job created now", bid, gate.open(), maxOpen);
                return List.of();
            }
            List<NewJob> chunk = wanted.subList(0, Math.min(room, wanted.size()));
            List<Op> ops = new ArrayList<>();
            ops.add(Op.check(QueuePaths.batchLock(bid), -1));
            ops.add(gate.pass(gate.number() + chunk.size())); // the version check is the gate
            int done = before.jobsCreated();
            List<List<Long>> runs = before.jobRuns();
            if (before.idsLeft() < chunk.size()) {
                if (block == null) {
                    block = IdBlocks.reserve(zk, lock.lease().zk, QueuePaths.JOBS,
                            Math.max(chunk.size(), total - done));
                }
                runs = before.withRun(block.first(), block.count());
            }
            BatchStatus status = before.created(done + chunk.size(), total, chunk.get(chunk.size() - 1).cursor(), runs);
            ops.add(ZooKeeperCalls.setData(
                    QueuePaths.batchStatus(bid), QueueJson.write(status), batch.statusVersion()));
            int statusOp = ops.size() - 1;
            if (done == 0) { // a batch adopted from Merritt has them already (MerrittBatches)
                List<String> folders = new ArrayList<>(List.of(QueuePaths.batchStates(bid)));
                for (BatchRef ref : BatchRef.values()) {
                    folders.add(QueuePaths.batchRefs(bid, ref));
                }
                Map<String, OpResult> there = zk.readMany(folders);
                for (String folder : folders) {
                    if (ZooKeeperCalls.dataOf(there.get(folder)) == null) {
                        ops.add(ZooKeeperCalls.create(folder, ZooKeeperCalls.EMPTY));
                    }
                }
            }
            List<String> jids = new ArrayList<>();
            String now = QueueTime.now();
            for (int i = 0; i < chunk.size(); i++) {
                NewJob job = chunk.get(i);
                String jid = status.jobIds().get(done + i);
                jids.add(jid);
                JobConfiguration config = job.configuration().withBatchId(bid)
                        .withWorkingDir(ingestHome.resolve(bid).resolve(jid).toString());
                ops.add(ZooKeeperCalls.create(QueuePaths.job(jid), ZooKeeperCalls.EMPTY));
                ops.add(ZooKeeperCalls.create(QueuePaths.jobNode(jid, "configuration"), QueueJson.write(config)));
                ops.add(ZooKeeperCalls.create(
                        QueuePaths.jobStatus(jid),
                        QueueJson.write(new JobStatus(
                                JobState.PENDING.zk(),
                                null,
                                now,
                                0,
                                null,
                                List.of(JobHistory.entry(
                                        null,
                                        JobState.PENDING,
                                        lock.owner().holder(),
                                        "created from batch " + bid))))));
                ops.add(ZooKeeperCalls.create(QueuePaths.jobNode(jid, "priority"), QueueJson.text(job.priority())));
                ops.add(ZooKeeperCalls.create(QueuePaths.jobNode(jid, "space_needed"), QueueJson.text(0)));
                ops.add(ZooKeeperCalls.create(
                        QueuePaths.jobNode(jid, "identifiers"), QueueJson.write(job.identifiers())));
                JobMetadata metadata = JobMetadata.of(config);
                if (metadata != null) {
                    ops.add(ZooKeeperCalls.create(QueuePaths.jobNode(jid, "metadata"), QueueJson.write(metadata)));
                }
                ops.add(ZooKeeperCalls.create(QueuePaths.jobNode(jid, "bid"), QueueJson.text(bid)));
                ops.add(ZooKeeperCalls.create(
                        QueuePaths.jobRef(JobState.PENDING, job.priority(), jid), ZooKeeperCalls.EMPTY));
                ops.add(ZooKeeperCalls.create(
                        QueuePaths.batchRef(bid, BatchRef.PROCESSING, jid), ZooKeeperCalls.EMPTY));
            }
            try {
                List<OpResult> results = zk.commitLocked(lock.lease().zk, lock.lease().sessionId, "batch " + bid, ops,
                        QueuePaths.batchStatus(bid), batch.statusVersion(), LockedCommitFailures.QUEUE);
                // results is empty when a lost connection hid a commit that did apply
                int newVersion = results.isEmpty() ? batch.statusVersion() + 1
                        : ((OpResult.SetDataResult) results.get(statusOp)).getStat().getVersion();
                lock.batch(batch.withStatus(status, batch.statusReport(), newVersion, lock.owner()));
                LOG.info("batch {}: created jobs {}..{} ({} of {})", bid, jids.get(0), jids.get(jids.size() - 1),
                        status.jobsCreated(), total);
                for (String jid : jids) {
                    log.fire(TransitionEvent.JOB, jid, bid, null, JobState.PENDING.wire(), "created");
                }
                return jids;
            } catch (StaleCounter e) {
                // another creator (here or on another host) passed the gate since it was read: count again
            }
        }
        throw new QueueException("cannot create jobs for " + bid + ": other creators passed the open-jobs gate ("
                + QueuePaths.JOB_COUNTER + ") " + MAX_COUNTER_RETRIES
                + " times in a row; the batch is tried again later");
    }
}
