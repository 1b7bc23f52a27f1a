package org.cdlib.mrt.ingestqueue.queue.jobs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.apache.zookeeper.OpResult;
import org.cdlib.mrt.ingestqueue.queue.errors.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.Damaged;
import org.cdlib.mrt.ingestqueue.queue.model.FolderChanges;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.JobStatus;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.SizedReads;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * Reading jobs in ZooKeeper in bounded read transactions: a state's references and counts, jobs
 * whole or one node of each; a vanished job is left out, a damaged one named.
 */
final class JobReads {
    private final ZooKeeperCalls zk;
    private final Path ingestHome;

    JobReads(ZooKeeperCalls zk, Path ingestHome) {
        this.zk = zk;
        this.ingestHome = ingestHome;
    }

    /** Reference names {@code PP-JID} of a state, in run order; refused for a folder too large to list. */
    List<String> refs(JobState state) {
        List<String> refs = new ArrayList<>(zk.children(QueuePaths.jobState(state)));
        refs.sort(null);
        return refs;
    }

    /** How many jobs each state holds, from the reference folders' {@code Stat}, in one read transaction. */
    Map<JobState, Integer> counts() {
        Map<JobState, Integer> counts = new EnumMap<>(JobState.class);
        changes().forEach((s, c) -> counts.put(s, c.children()));
        return counts;
    }

    /**
     * Each state folder's child changes ({@code Stat}), in one read transaction: arrivals are counted from two of them.
     */
    Map<JobState, FolderChanges> changes() {
        List<String> paths = new ArrayList<>();
        List<JobState> states = new ArrayList<>();
        for (JobState s : JobState.values()) {
            if (s != JobState.DELETED) {
                states.add(s);
                paths.add(QueuePaths.jobState(s));
            }
        }
        Map<String, OpResult> r = zk.readMany(paths);
        Map<JobState, FolderChanges> out = new EnumMap<>(JobState.class);
        for (JobState s : states) {
            OpResult.GetDataResult d = ZooKeeperCalls.dataOf(r.get(QueuePaths.jobState(s)));
            out.put(s, FolderChanges.of(d == null ? null : d.getStat()));
        }
        return out;
    }

    /** Jobs in pending … notify and held: the ones that count against the open-job windows. */
    int openCount() {
        Map<JobState, Integer> c = counts();
        return c.entrySet().stream().filter(e -> e.getKey().batchRef() == BatchRef.PROCESSING)
                .mapToInt(Map.Entry::getValue).sum();
    }

    /** The sum of the jobs' space_needed, reading only those nodes; an unreadable one counts 0 and is noted. */
    long spaceNeeded(List<String> jids, Consumer<Damaged> damaged) {
        Map<String, OpResult> r = zk.readMany(jids.stream().map(j -> QueuePaths.jobNode(j, "space_needed")).toList());
        long sum = 0;
        for (String jid : jids) {
            String path = QueuePaths.jobNode(jid, "space_needed");
            var d = ZooKeeperCalls.dataOf(r.get(path));
            if (d == null) {
                continue;
            }
            try {
                sum += QueueJson.readLong(path, d.getData());
            } catch (CorruptNodeException e) {
                damaged.accept(Damaged.of("job", jid, e));
            }
        }
        return sum;
    }

    /**
     * One child node of each job ({@code identifiers}, {@code configuration}), read
     * in bounded transactions; a vanished job is left out, a damaged one noted.
     */
    <T> Map<String, T> nodes(List<String> jids, String child, Class<T> type, Consumer<Damaged> damaged) {
        Map<String, OpResult> r = zk.readMany(jids.stream().map(j -> QueuePaths.jobNode(j, child)).toList());
        Map<String, T> out = new LinkedHashMap<>();
        for (String jid : jids) {
            String path = QueuePaths.jobNode(jid, child);
            var d = ZooKeeperCalls.dataOf(r.get(path));
            if (SizedReads.oversizedBytes(r.get(path)) >= 0) {
                damaged.accept(Damaged.of("job", jid, SizedReads.absence(path, r.get(path))));
            } else if (d != null) {
                try {
                    out.put(jid, QueueJson.read(path, d.getData(), type));
                } catch (CorruptNodeException e) {
                    damaged.accept(Damaged.of("job", jid, e));
                }
            }
        }
        return out;
    }

    /** How many of these jobs are in each state, reading only their status nodes; damaged ones are noted. */
    Map<JobState, Integer> states(List<String> jids, Consumer<Damaged> damaged) {
        Map<JobState, Integer> out = new EnumMap<>(JobState.class);
        stateOf(jids, damaged).values().forEach(s -> out.merge(s, 1, Integer::sum));
        return out;
    }

    /** Each job's state from its status node alone; a vanished job is left out, a damaged one named. */
    Map<String, JobState> stateOf(List<String> jids, Consumer<Damaged> damaged) {
        return stateOf(jids, statuses(jids), damaged);
    }

    /** The jobs' status nodes as read (in bounded read transactions). */
    Map<String, OpResult> statuses(List<String> jids) {
        return zk.readMany(jids.stream().map(QueuePaths::jobStatus).toList());
    }

    /** Each job's state from its status node as read ({@link #statuses}). */
    static Map<String, JobState> stateOf(List<String> jids, Map<String, OpResult> r, Consumer<Damaged> damaged) {
        Map<String, JobState> out = new LinkedHashMap<>();
        for (String jid : jids) {
            var d = ZooKeeperCalls.dataOf(r.get(QueuePaths.jobStatus(jid)));
            if (SizedReads.oversizedBytes(r.get(QueuePaths.jobStatus(jid))) >= 0) {
                damaged.accept(Damaged.of(
                        "job", jid, SizedReads.absence(QueuePaths.jobStatus(jid), r.get(QueuePaths.jobStatus(jid)))));
                continue;
            }
            if (d == null) {
                continue;
            }
            try {
                out.put(jid, QueueJson.read(QueuePaths.jobStatus(jid), d.getData(), JobStatus.class).state());
            } catch (CorruptNodeException e) {
                damaged.accept(Damaged.of("job", jid, e));
            } catch (IllegalArgumentException e) {
                damaged.accept(new Damaged("job", jid, QueuePaths.jobStatus(jid), e.getMessage()));
            }
        }
        return out;
    }

    /**
     * As {@link #load(List, Consumer)}, with the status nodes already read ({@link #statuses}): a
     * compacted job ({@link JobCompaction}: its status holds its configuration) is taken from its
     * status alone when its summary carries its priority and space_needed, else read from the nodes
     * it keeps besides (bid, priority, space_needed, identifiers); the others whole. In {@code jids}' order.
     */
    List<Job> load(List<String> jids, Map<String, OpResult> statuses, Consumer<Damaged> damaged) {
        List<String> paths = new ArrayList<>();
        List<String> compacted = new ArrayList<>();
        List<String> whole = new ArrayList<>();
        Map<String, Job> read = new HashMap<>();
        for (String jid : jids) {
            OpResult status = statuses.get(QueuePaths.jobStatus(jid));
            Job fromStatus = JobNodes.fromStatus(jid, status); // null unless compacted, with its summary whole
            if (fromStatus != null) {
                read.put(jid, fromStatus);
            } else if (JobNodes.compacted(QueuePaths.jobStatus(jid), status)) {
                compacted.add(jid);
                paths.addAll(JobNodes.keptPaths(jid));
            } else {
                whole.add(jid);
            }
        }
        Map<String, OpResult> r = new HashMap<>(zk.readMany(paths));
        compacted.forEach(j -> r.put(QueuePaths.jobStatus(j), statuses.get(QueuePaths.jobStatus(j))));
        JobNodes.parse(compacted, r, damaged, ingestHome).forEach(j -> read.put(j.id(), j));
        load(whole, damaged).forEach(j -> read.put(j.id(), j));
        return jids.stream().map(read::get).filter(Objects::nonNull).toList();
    }

    /** Loads jobs in bounded read transactions; a vanished job is left out, a damaged one named. */
    List<Job> load(List<String> jids, Consumer<Damaged> damaged) {
        List<String> paths = new ArrayList<>();
        for (String jid : jids) {
            paths.addAll(JobNodes.paths(jid));
        }
        return JobNodes.parse(jids, zk.readMany(paths), damaged, ingestHome);
    }
}
