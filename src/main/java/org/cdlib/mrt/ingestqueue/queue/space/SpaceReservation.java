package org.cdlib.mrt.ingestqueue.queue.space;

import java.util.List;
import org.apache.zookeeper.Op;
import org.cdlib.mrt.ingestqueue.queue.errors.NotFoundException;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * The bytes reserved on the working disk by the jobs in downloading, so that provisioning can
 * admit jobs on several threads and hosts at once. Two counters: bytes ever admitted into
 * downloading ({@link QueuePaths#SPACE_ADMITTED}) and ever released from it
 * ({@link QueuePaths#SPACE_RELEASED}); reserved is their difference. An admission decides how
 * much may be reserved already for the job to fit ({@link Change#admittedWhileReservedAtMost});
 * the provisioning → downloading transaction reads both, checks that figure and sets the admitted
 * counter with a check on the version it read. A job admitted elsewhere in between fails that
 * check: both are read and the figure checked again, so the disk threshold holds exactly, and a
 * job that no longer fits is decided again ({@link Conflict}). A release only makes the
 * reservation smaller, so it counts on its own node and never makes an admission wait. Every
 * other move into downloading (a requeue, a release from hold) is added as admitted; every move
 * out of it is released; each in the move's own transaction.
 *
 * @param bytes   reserved when read (admitted − released)
 * @param version the admitted counter's data version when read
 */
public record SpaceReservation(long bytes, int version) {

    /** Reads the reservation (one read transaction of two small nodes). */
    public static SpaceReservation read(ZooKeeperCalls zk) {
        Counts c = Counts.read(zk);
        return new SpaceReservation(Math.max(0, c.admitted - c.released), c.admittedVersion);
    }

    /** Both counters with their versions, as read or as this process last wrote them. */
    public record Counts(long admitted, int admittedVersion, long released, int releasedVersion) {
        public static Counts read(ZooKeeperCalls zk) {
            var r = zk.readMany(List.of(QueuePaths.SPACE_ADMITTED, QueuePaths.SPACE_RELEASED));
            var a = ZooKeeperCalls.dataOf(r.get(QueuePaths.SPACE_ADMITTED));
            var d = ZooKeeperCalls.dataOf(r.get(QueuePaths.SPACE_RELEASED));
            if (a == null || d == null) {
                throw new NotFoundException("no node " + QueuePaths.SPACE_ADMITTED + " or " + QueuePaths.SPACE_RELEASED
                        + " (the queue's start creates them)");
            }
            return new Counts(QueueJson.readLong(QueuePaths.SPACE_ADMITTED, a.getData()), a.getStat().getVersion(),
                    QueueJson.readLong(QueuePaths.SPACE_RELEASED, d.getData()), d.getStat().getVersion());
        }
    }

    /** Whether a move from {@code from} to {@code to} changes what downloading holds. */
    static boolean concerns(JobState from, JobState to) {
        return (from == JobState.DOWNLOADING) != (to == JobState.DOWNLOADING);
    }

    /**
     * Adds to {@code ops} the reservation's update for a move, checked against the versions in
     * {@code now}: + {@code spaceAfter} admitted into downloading, + {@code spaceBefore} released
     * out of it. Into downloading with an admission ({@code atMost} not null), the job must still
     * fit: else {@link Conflict}. Returns the counts the transaction leaves when it commits (null
     * when it adds nothing).
     */
    public static Counts addUpdate(Counts now, List<Op> ops, String jid, JobState from, JobState to, long spaceBefore,
                            long spaceAfter, Long atMost) {
        boolean into = to == JobState.DOWNLOADING;
        long bytes = into ? spaceAfter : spaceBefore;
        if (admission(to, atMost) && now.admitted - now.released > atMost) {
            throw new Conflict(jid);
        }
        if (into) {
            // bytes 0 is still checked: it fits only while nobody else is admitted
            ops.add(Op.setData(QueuePaths.SPACE_ADMITTED, QueueJson.text(now.admitted + bytes), now.admittedVersion));
            return new Counts(now.admitted + bytes, now.admittedVersion + 1, now.released, now.releasedVersion);
        }
        // not clamped here: the admitted count known to this process may be behind another host's
        long released = now.released + bytes;
        ops.add(Op.setData(QueuePaths.SPACE_RELEASED, QueueJson.text(released), now.releasedVersion));
        return new Counts(now.admitted, now.admittedVersion, released, now.releasedVersion + 1);
    }

    /** Whether the move needs an update of the counters at all. */
    public static boolean needsUpdate(JobState from, JobState to, long spaceBefore, long spaceAfter, Long atMost) {
        if (!concerns(from, to)) {
            return false;
        }
        long bytes = to == JobState.DOWNLOADING ? spaceAfter : spaceBefore;
        return bytes != 0 || admission(to, atMost);
    }

    private static boolean admission(JobState to, Long atMost) {
        return to == JobState.DOWNLOADING && atMost != null;
    }

    /** Other jobs were admitted between this job's decision and its commit, and it no longer fits: decide again. */
    public static final class Conflict extends QueueException {
        Conflict(String jid) {
            super("job " + jid + ": other jobs were admitted meanwhile and it no longer fits; decided again");
        }
    }
}
