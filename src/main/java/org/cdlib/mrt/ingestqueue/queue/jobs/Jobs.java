package org.cdlib.mrt.ingestqueue.queue.jobs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.errors.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.errors.NotFoundException;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.Damaged;
import org.cdlib.mrt.ingestqueue.queue.model.FolderChanges;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.JobStatus;
import org.cdlib.mrt.ingestqueue.queue.model.JobSummary;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.space.SpaceReservation;
import org.cdlib.mrt.ingestqueue.queue.zk.SizedReads;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * Reading jobs: one or many (in bounded read transactions), single nodes of many, a state's
 * references and counts. A damaged job is left out of a read of many and named; read alone it
 * throws {@link CorruptNodeException}.
 */
public final class Jobs {
    private final ZooKeeperCalls zk;
    private final JobTransactions transactions;
    private final Path ingestHome;
    private final Consumer<Damaged> damaged;

    /**
     * @param transactions the moves: the settings and figures they keep ({@link #merrittNeighbours},
     *                {@link #spaceReservedGuess})
     */
    public Jobs(ZooKeeperCalls zk, JobTransactions transactions, Path ingestHome, Consumer<Damaged> damaged) {
        this.zk = zk;
        this.transactions = transactions;
        this.ingestHome = ingestHome;
        this.damaged = damaged;
    }

    /**
     * {@code ingest.merritt.neighbours}: true (the default) keeps a completed job in the shape
     * mrt-zk's tools read (every node they read; our effects in their own node); false compacts it
     * to {@code /jobs/JID} and its status ({@link JobCompaction}).
     */
    public void merrittNeighbours(boolean on) {
        transactions.merrittNeighbours(on);
    }

    /** Reference names {@code PP-JID} of a state, in run order (a terminal state only while it is small). */
    public List<String> refs(JobState state) {
        List<String> refs = new ArrayList<>(zk.children(QueuePaths.jobState(state)));
        refs.sort(null);
        return refs;
    }

    public Map<JobState, Integer> counts() {
        Map<JobState, Integer> counts = new EnumMap<>(JobState.class);
        stateChanges().forEach((s, c) -> counts.put(s, c.children()));
        return counts;
    }

    /** Each state folder's child changes, in one read transaction: how many jobs arrived in a state between two. */
    public Map<JobState, FolderChanges> stateChanges() {
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

    /** Jobs in the open states (pending … notify, held), the ones the creation windows count. */
    public int openCount() {
        Map<JobState, Integer> c = counts();
        return c.entrySet().stream().filter(e -> e.getKey().batchRef() == BatchRef.PROCESSING)
                .mapToInt(Map.Entry::getValue).sum();
    }

    public Job load(String jid) {
        return find(jid).orElseThrow(() -> new NotFoundException("no job " + jid));
    }

    /**
     * The session that holds the job's lock ({@code /jobs/JID/lock}'s ephemeral owner) as the leader
     * has it now (synced: a follower's view may predate another host's takeover); 0 when nobody does.
     */
    public long lockSession(String jid) {
        Stat st = zk.syncedStat(QueuePaths.jobLock(jid));
        return st == null ? 0 : st.getEphemeralOwner();
    }

    /** The job, empty when it does not exist; a damaged job throws {@link CorruptNodeException}. */
    public Optional<Job> find(String jid) {
        return one(load(List.of(jid), Jobs::corrupt));
    }

    static Optional<Job> one(List<Job> found) {
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
    }

    static void corrupt(Damaged d) {
        throw new CorruptNodeException(d.path(), d.problem().replaceFirst("^znode \\S+ is corrupt: ", ""));
    }

    /** Loads jobs in bounded read transactions; a damaged job is noted and left out. */
    public List<Job> load(List<String> jids) {
        return load(jids, damaged);
    }

        public List<Job> load(List<String> jids, Consumer<Damaged> onDamaged) {
        List<String> paths = new ArrayList<>();
        for (String jid : jids) {
            paths.addAll(JobNodes.paths(jid));
        }
        return JobNodes.parse(jids, zk.readMany(paths), onDamaged, ingestHome);
    }

    /** The jobs' identifiers only (for search), in bounded read transactions; a vanished or damaged job is left out. */
    public Map<String, Identifiers> identifiers(List<String> jids) {
        Map<String, Identifiers> found = nodes(jids, "identifiers", Identifiers.class, damaged);
        return withSummaries(jids, found, JobSummary::identifiers);
    }

    /** The jobs' configurations only (for search by title), read alike. */
    public Map<String, JobConfiguration> configurations(List<String> jids) {
        return withSummaries(jids, nodes(jids, "configuration", JobConfiguration.class, damaged),
                JobSummary::configuration);
    }

    /** The job's recorded outside effects ({@code /jobs/JID/effects}, one node: none yet, or damaged, is empty). */
    public JobEffects effects(String jid) {
        return effects(List.of(jid)).getOrDefault(jid, JobEffects.none());
    }

    /**
     * The jobs' recorded outside effects, read in bounded transactions; a job with none (or a damaged
     * node) is absent.
     */
    public Map<String, JobEffects> effects(List<String> jids) {
        return withSummaries(jids, nodes(jids, "effects", JobEffects.class, damaged), JobSummary::jobEffects);
    }

    /**
     * What {@code found} lacks, from the summaries of the jobs that have one (completed jobs keep
     * these nodes in their status: {@link JobCompaction}), read in bounded transactions.
     */
    private <T> Map<String, T> withSummaries(List<String> jids, Map<String, T> found, Function<JobSummary, T> part) {
        List<String> rest = jids.stream().filter(j -> !found.containsKey(j)).toList();
        if (rest.isEmpty()) {
            return found;
        }
        Map<String, T> out = new LinkedHashMap<>(found);
        nodes(rest, "status", JobStatus.class, d -> { }).forEach((jid, s) -> { // a damaged status: no summary
            T value = s.summary() == null ? null : part.apply(s.summary());
            if (value != null) {
                out.put(jid, value);
            }
        });
        return out;
    }

    /** The sum of the jobs' space_needed, reading only those nodes; an unreadable one counts 0 and is noted. */
    public long spaceNeeded(List<String> jids) {
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

    /** The bytes the jobs in downloading have reserved on the working disk, with the version admissions check. */
    public SpaceReservation spaceReserved() {
        return SpaceReservation.read(zk);
    }

    /**
     * The reservation as this process's own moves into and out of downloading leave it, with no
     * read; null when unknown. Good for a first look only: another host may have moved since.
     */
    public SpaceReservation spaceReservedGuess() {
        return transactions.spaceGuess();
    }

    /** How many jobs a state holds now (its folder's {@code Stat}). */
    public int count(JobState state) {
        var st = zk.stat(QueuePaths.jobState(state));
        return st == null ? 0 : st.getNumChildren();
    }

    /** How many of these jobs are in each state, reading only their status nodes; damaged ones are noted. */
    public Map<JobState, Integer> states(List<String> jids) {
        Map<JobState, Integer> out = new EnumMap<>(JobState.class);
        stateOf(jids, statuses(jids), damaged).values().forEach(s -> out.merge(s, 1, Integer::sum));
        return out;
    }

    /**
     * What a report reads of a run of jobs: each one's status, then only the jobs it lists, in as
     * few reads as they allow (a completed, compacted job is all in its status and four small nodes).
     */
    public final class Run {
        private final Map<String, OpResult> statuses;
        private final Map<String, JobState> states;

        Run(List<String> jids) {
            this.statuses = statuses(jids);
            this.states = stateOf(jids, statuses, damaged);
        }

        /** Each job's state; a vanished or damaged job is left out. */
        public Map<String, JobState> states() {
            return states;
        }

        /** These jobs of the run, read as {@link Jobs#load(List)} reads them. */
        public List<Job> load(List<String> listed) {
            return Jobs.this.load(listed, statuses, damaged);
        }
    }

    /** The statuses of a run of jobs (bounded reads), to count them and read some of them ({@link Run}). */
    public Run run(List<String> jids) {
        return new Run(jids);
    }

    /**
     * One child node of each job ({@code identifiers}, {@code configuration}), read
     * in bounded transactions; a vanished job is left out, a damaged one noted.
     */
    private <T> Map<String, T> nodes(List<String> jids, String child, Class<T> type, Consumer<Damaged> damaged) {
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

    /** The jobs' status nodes as read (in bounded read transactions). */
    private Map<String, OpResult> statuses(List<String> jids) {
        return zk.readMany(jids.stream().map(QueuePaths::jobStatus).toList());
    }

    /** Each job's state from its status node as read ({@link #statuses}). */
    private static Map<String, JobState> stateOf(
            List<String> jids, Map<String, OpResult> r, Consumer<Damaged> damaged) {
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
    private List<Job> load(List<String> jids, Map<String, OpResult> statuses, Consumer<Damaged> damaged) {
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
}
