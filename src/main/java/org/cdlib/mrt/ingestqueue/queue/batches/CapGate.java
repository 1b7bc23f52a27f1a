package org.cdlib.mrt.ingestqueue.queue.batches;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.cdlib.mrt.ingestqueue.queue.errors.NotFoundException;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * The version-checked gate in front of the queue's open caps ({@code ingest.queue.max-open-jobs},
 * {@code ingest.queue.max-open-batches}), so that no number of hosts passes them. Each cap's gate
 * is the id counter its creations already write ({@code /ids/job}, {@code /ids/batch}). A creator
 * reads the gate and then the open count in one read transaction, decides how much fits, and
 * sets the gate in its creation transaction with a check on the version it read. Two creators
 * that decided on the same count cannot both commit: the loser's transaction fails whole and it
 * reads again, now counting the winner's jobs or batch. Only increases pass the gate; a job or
 * batch that closes only makes room, so it needs no check. Counting stays O(1) reads: the
 * {@code Stat} of the open state folders.
 */
final class CapGate {
    private static final List<String> OPEN_JOB_FOLDERS = Arrays.stream(JobState.values())
            .filter(s -> s.batchRef() == BatchRef.PROCESSING).map(QueuePaths::jobState).toList();
    private static final List<String> OPEN_BATCH_FOLDERS =
            BatchState.OPEN.stream().map(QueuePaths::batchIndex).toList();

    private CapGate() {
    }

    /**
     * The gate's number and version, and the open count read after them.
     *
     * @param gate    the gate node
     * @param number  the number it holds (the last id drawn)
     * @param version its version, which {@link #pass(long)} checks
     * @param open    jobs (or batches) in the open states
     * @param depositorOpen the open batches of the submitting depositor (0 when not asked, -1 when the
     *                      depositor has no folder yet: the creation makes it)
     */
    record Reading(String gate, long number, int version, int open, int depositorOpen) {
        /** How many more fit under {@code cap}; 0 when the cap is reached or passed. */
        int room(int cap) {
            return Math.max(0, cap - open);
        }

        /**
         * The op that passes the gate: sets it to {@code next},
         * failing the transaction if anyone passed since this reading.
         */
        Op pass(long next) {
            return Op.setData(gate, QueueJson.text(next), version);
        }
    }

    /** The job gate and the jobs in pending … notify and held (what {@code max-open-jobs} caps). */
    static Reading jobs(ZooKeeperCalls zk) {
        return read(zk, QueuePaths.JOB_COUNTER, OPEN_JOB_FOLDERS, null);
    }

    /** The batch gate and the batches in pending … reporting, update-reporting (what {@code max-open-batches} caps). */
    static Reading batches(ZooKeeperCalls zk) {
        return read(zk, QueuePaths.BATCH_COUNTER, OPEN_BATCH_FOLDERS, null);
    }

    /**
     * As {@link #batches(ZooKeeperCalls)}, with the depositor's open batches ({@code depositorFolder}'s
     * entries) counted in the same reading: every creation passes the one gate, so this count is
     * exact across hosts as the queue's is.
     */
    static Reading batches(ZooKeeperCalls zk, String depositorFolder) {
        return read(zk, QueuePaths.BATCH_COUNTER, OPEN_BATCH_FOLDERS, depositorFolder);
    }

    private static Reading read(ZooKeeperCalls zk, String gate, List<String> folders, String depositorFolder) {
        List<String> paths = new ArrayList<>(folders.size() + 2);
        // the gate first: a read transaction's reads run in order, so every creation that passed the
        // gate before the version seen here is in the counts that follow it
        paths.add(gate);
        paths.addAll(folders);
        if (depositorFolder != null) {
            paths.add(depositorFolder);
        }
        Map<String, OpResult> r = zk.readMany(paths);
        OpResult.GetDataResult g = ZooKeeperCalls.dataOf(r.get(gate));
        if (g == null) {
            throw new NotFoundException("no node " + gate + " (the queue's start creates it)");
        }
        int open = 0;
        for (String folder : folders) {
            OpResult.GetDataResult d = ZooKeeperCalls.dataOf(r.get(folder));
            open += d == null ? 0 : d.getStat().getNumChildren();
        }
        OpResult.GetDataResult dep = depositorFolder == null ? null : ZooKeeperCalls.dataOf(r.get(depositorFolder));
        return new Reading(gate, QueueJson.readLong(gate, g.getData()), g.getStat().getVersion(), open,
                dep == null ? (depositorFolder == null ? 0 : -1) : dep.getStat().getNumChildren());
    }
}
