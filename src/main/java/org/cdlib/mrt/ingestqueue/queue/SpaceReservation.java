package org.cdlib.mrt.ingestqueue.queue;

import java.util.List;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.data.Stat;

/**
 * The bytes reserved on the working disk by the jobs in downloading, kept in one node
 * ({@link QueuePaths#SPACE_RESERVED}) so that provisioning can admit jobs on several threads and
 * hosts at once: an admission reads the node, decides, and the provisioning → downloading
 * transaction sets it with a check on the version it read. A job admitted elsewhere in between
 * fails that check; the job is then decided again against the new figure, so the disk threshold
 * holds exactly. Every other move into downloading (a requeue, a release) adds the job's bytes,
 * and every move out of it gives them back, in the move's own transaction: they are re-read and
 * committed again when the node moved meanwhile, as nothing was decided on them.
 *
 * @param bytes   reserved when read
 * @param version the node's data version when read
 */
public record SpaceReservation(long bytes, int version) {

    /** Reads the reservation (one small read). */
    static SpaceReservation read(ZooKeeperCalls zk) {
        Stat st = new Stat();
        byte[] data = zk.read(QueuePaths.SPACE_RESERVED, st);
        return new SpaceReservation(QueueJson.readLong(QueuePaths.SPACE_RESERVED, data), st.getVersion());
    }

    /** Whether a move from {@code from} to {@code to} changes what downloading holds. */
    static boolean concerns(JobState from, JobState to) {
        return (from == JobState.DOWNLOADING) != (to == JobState.DOWNLOADING);
    }

    /**
     * Adds to {@code ops} the reservation's update for a move: + {@code spaceAfter} into
     * downloading, − {@code spaceBefore} out of it. Into downloading with an {@code admission},
     * the update is checked against the version that admission decided on; otherwise the node is
     * read now. Nothing is added for a job of no bytes.
     */
    static void addUpdate(ZooKeeperCalls zk, List<Op> ops, JobState from, JobState to, long spaceBefore, long spaceAfter,
                          SpaceReservation admission) {
        if (!concerns(from, to)) {
            return;
        }
        long delta = to == JobState.DOWNLOADING ? spaceAfter : -spaceBefore;
        if (delta == 0) {
            return;
        }
        SpaceReservation base = to == JobState.DOWNLOADING && admission != null ? admission : read(zk);
        // never below zero: jobs that were downloading before the node existed give back what they never added
        ops.add(Op.setData(QueuePaths.SPACE_RESERVED, QueueJson.text(Math.max(0, base.bytes + delta)), base.version));
    }

    /** The reservation moved between an admission's read and its commit: the job is to be decided again. */
    public static final class Conflict extends QueueException {
        Conflict(String jid) {
            super("job " + jid + ": another job was admitted meanwhile; decided again");
        }
    }
}
