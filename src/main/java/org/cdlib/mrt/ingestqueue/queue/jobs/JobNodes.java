package org.cdlib.mrt.ingestqueue.queue.jobs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.zookeeper.OpResult;
import org.cdlib.mrt.ingestqueue.queue.errors.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.model.Damaged;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.model.JobStatus;
import org.cdlib.mrt.ingestqueue.queue.model.JobSummary;
import org.cdlib.mrt.ingestqueue.queue.model.LockOwner;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.SizedReads;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * The nodes a job is kept in ({@code /jobs/JID/...}) and how a read of them becomes a {@link Job}:
 * a job whose nodes are all gone has vanished; one with a node missing or unreadable is damaged,
 * named, and harms no other job of the same read.
 */
public final class JobNodes {
    public static final List<String> CHILDREN = List.of("configuration", "status", "priority", "space_needed",
            "identifiers", "bid", "lock", "effects");
    /**
     * Children mrt-zk gives a job that no step here reads back; a job's deletion removes them too.
     * A completed job keeps them while Merritt neighbours are configured ({@link JobCompaction}).
     */
    static final List<String> NOT_READ = List.of("metadata", "inventory", "store");

    private JobNodes() {
    }

    /** The nodes one job is read from (one read transaction holds them: well under its byte bound). */
    static List<String> paths(String jid) {
        List<String> paths = new ArrayList<>();
        for (String c : CHILDREN) {
            paths.add(QueuePaths.jobNode(jid, c));
        }
        return paths;
    }

    /**
     * The nodes a job compacted before issue 42 keeps besides its status, read when its summary
     * lacks its priority (it was cut); one compacted since has none of them, and is read from its status.
     */
    static List<String> keptPaths(String jid) {
        return List.of(QueuePaths.jobNode(jid, "bid"), QueuePaths.jobNode(jid, "priority"),
                QueuePaths.jobNode(jid, "space_needed"), QueuePaths.jobNode(jid, "identifiers"));
    }

    /** Whether a status as read is a compacted job's (its summary holds the configuration). */
    static boolean compacted(String path, OpResult status) {
        OpResult.GetDataResult d = ZooKeeperCalls.dataOf(status);
        if (d == null) {
            return false;
        }
        try {
            JobSummary s = QueueJson.read(path, d.getData(), JobStatus.class).summary();
            return s != null && s.configuration() != null;
        } catch (CorruptNodeException e) {
            return false; // read whole, and named damaged there
        }
    }

    /**
     * A compacted job from its status alone (its summary carries its configuration, identifiers,
     * priority and space_needed; nodes kept beside, by a job compacted before issue 42, hold the
     * same); null when the summary lacks any of them (written before they were) or the status
     * cannot be read here: then the job is read from its nodes, and named damaged there if it is.
     */
    static Job fromStatus(String jid, OpResult status) {
        OpResult.GetDataResult d = ZooKeeperCalls.dataOf(status);
        if (d == null) {
            return null;
        }
        try {
            JobStatus s = status(jid, d.getData());
            JobSummary m = s.summary();
            if (m == null || m.configuration() == null || m.configuration().batchId() == null || m.priority() == null
                    || m.spaceNeeded() == null) {
                return null;
            }
            return new Job(
                    jid,
                    m.configuration().batchId(),
                    m.configuration(),
                    s,
                    m.priority(),
                    m.spaceNeeded(),
                    m.identifiers(),
                    d.getStat().getVersion(),
                    null);
        } catch (CorruptNodeException e) {
            return null;
        }
    }

    /** A status node's JSON, its state names checked (a damaged one throws {@link CorruptNodeException}). */
    private static JobStatus status(String jid, byte[] data) {
        JobStatus s = QueueJson.read(QueuePaths.jobStatus(jid), data, JobStatus.class);
        try {
            s.state();
            if (s.lastSuccessfulStatus() != null) {
                s.lastSuccessful();
            }
        } catch (IllegalArgumentException e) {
            throw new CorruptNodeException(QueuePaths.jobStatus(jid), e.getMessage());
        }
        return s;
    }

    /** Jobs from the answers of a read of their {@link #paths}; a vanished job is left out, a damaged one named. */
    static List<Job> parse(List<String> jids, Map<String, OpResult> r, Consumer<Damaged> damaged, Path ingestHome) {
        List<Job> out = new ArrayList<>();
        for (String jid : jids) {
            OpResult.GetDataResult status = ZooKeeperCalls.dataOf(r.get(QueuePaths.jobStatus(jid)));
            String pc = QueuePaths.jobNode(jid, "configuration");
            boolean config = ZooKeeperCalls.dataOf(r.get(pc)) != null || SizedReads.oversizedBytes(r.get(pc)) >= 0;
            if (status == null && !config && SizedReads.oversizedBytes(r.get(QueuePaths.jobStatus(jid))) < 0) {
                continue; // deleted, or never created
            }
            try {
                if (status == null) {
                    throw SizedReads.absence(QueuePaths.jobStatus(jid),
                            r.get(QueuePaths.jobStatus(jid)));
                }
                out.add(toJob(jid, r, status, ingestHome));
            } catch (CorruptNodeException e) {
                damaged.accept(Damaged.of("job", jid, e));
            }
        }
        return out;
    }

    private static Job toJob(String jid, Map<String, OpResult> r, OpResult.GetDataResult status, Path ingestHome) {
        String pc = QueuePaths.jobNode(jid, "configuration");
        String pp = QueuePaths.jobNode(jid, "priority");
        String ps = QueuePaths.jobNode(jid, "space_needed");
        String pi = QueuePaths.jobNode(jid, "identifiers");
        String pb = QueuePaths.jobNode(jid, "bid");
        JobStatus jobStatus = status(jid, status.getData());
        JobSummary summary = jobStatus.summary();
        // a completed job keeps its configuration and identifiers in its status (JobCompaction)
        boolean compacted = summary != null && summary.configuration() != null
                && ZooKeeperCalls.dataOf(r.get(pc)) == null && SizedReads.oversizedBytes(r.get(pc)) < 0;
        OpResult.GetDataResult ids = optional(pi, r.get(pi));
        OpResult.GetDataResult space = optional(ps, r.get(ps));
        OpResult.GetDataResult bid = optional(pb, r.get(pb));
        JobConfiguration configuration = compacted ? summary.configuration() : MerrittConfiguration.read(pc,
                required(pc, r.get(pc)).getData(), ingestHome, bid != null ? QueueJson.text(bid.getData()) : null, jid);
        Identifiers identifiers = ids != null ? QueueJson.read(pi, ids.getData(), Identifiers.class)
                : summary != null ? summary.identifiers() : new Identifiers(null, List.of());
        // compacted without Merritt neighbours, the job has no priority or space_needed node: its summary holds them
        OpResult.GetDataResult priorityNode = compacted && summary.priority() != null ? optional(pp, r.get(pp)) : null;
        int priority = priorityNode == null && compacted && summary.priority() != null ? summary.priority()
                : QueuePaths.checkPriorityNode(pp, QueueJson.readInt(pp, required(pp, r.get(pp)).getData()));
        long spaceNeeded = space != null ? QueueJson.readLong(ps, space.getData())
                : compacted && summary.spaceNeeded() != null ? summary.spaceNeeded() : 0;
        return new Job(jid,
                bid != null ? QueueJson.text(bid.getData()) : configuration.batchId(),
                configuration,
                jobStatus,
                priority,
                spaceNeeded,
                identifiers,
                status.getStat().getVersion(),
                lockOwner(QueuePaths.jobLock(jid), ZooKeeperCalls.dataOf(r.get(QueuePaths.jobLock(jid)))));
    }

    /**
     * A node that may be missing; one left unread for its size
     * makes the job damaged (read as missing it would mislead).
     */
    private static OpResult.GetDataResult optional(String path, OpResult r) {
        if (SizedReads.oversizedBytes(r) >= 0) {
            throw SizedReads.absence(path, r);
        }
        return ZooKeeperCalls.dataOf(r);
    }

    private static OpResult.GetDataResult required(String path, OpResult r) {
        OpResult.GetDataResult d = ZooKeeperCalls.dataOf(r);
        if (d == null) {
            throw SizedReads.absence(path, r);
        }
        return d;
    }

    public static LockOwner lockOwner(String path, OpResult.GetDataResult d) {
        if (d == null) {
            return null;
        }
        try {
            return QueueJson.read(path, d.getData(), LockOwner.class);
        } catch (CorruptNodeException e) {
            return new LockOwner("unknown", 0, "unknown", null, null);
        }
    }
}
