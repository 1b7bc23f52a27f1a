package org.cdlib.mrt.ingestqueue.queue.fsck;

import java.util.List;
import java.util.Optional;
import org.apache.zookeeper.Op;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueueException;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.space.SpaceReservation;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * fsck's look at the disk reservation: what the counters say is reserved (admitted − released)
 * against what the jobs in downloading need. They drift only by hand or by a release that was
 * never written (a job deleted while downloading by a version before the delete released it);
 * then admissions see too much reserved, or too little. The jobs are summed between two reads of
 * the counters that must agree (a move that changes the counters meanwhile makes it look again);
 * repair sets the released counter so the difference is what the jobs need, checked against both
 * versions read, so it never overwrites a move.
 */
public final class SpaceCheck {
    private static final int JOBS_PER_READ = 500;
    private static final int ATTEMPTS = 20;
    /** Tests only: runs after the jobs are summed, before the second cut is read (a move there must not be judged). */
    static volatile Runnable beforeSecondCut;

    private SpaceCheck() {
    }

    public static Optional<Violation> run(QueueStore store, boolean repair) {
        ZooKeeperCalls zk = store.calls();
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            // a consistent cut: after a sync, the counters and the downloading folder's children version
            // read before and after the sum; a move into or out of downloading changes both
            org.apache.zookeeper.data.Stat folderBefore = zk.syncedStat(QueuePaths.jobState(JobState.DOWNLOADING));
            SpaceReservation.Counts before = SpaceReservation.Counts.read(zk);
            List<String> jids = store.jobs().refs(JobState.DOWNLOADING).stream().map(QueuePaths::jidOfRef).toList();
            long needed = 0;
            for (int i = 0; i < jids.size(); i += JOBS_PER_READ) {
                needed += store.jobs().spaceNeeded(jids.subList(i, Math.min(jids.size(), i + JOBS_PER_READ)));
            }
            Runnable hook = beforeSecondCut;
            if (hook != null) {
                hook.run();
            }
            SpaceReservation.Counts after = SpaceReservation.Counts.read(zk);
            org.apache.zookeeper.data.Stat folderAfter = zk.stat(QueuePaths.jobState(JobState.DOWNLOADING));
            boolean folderMoved = folderBefore == null || folderAfter == null || folderBefore.getCversion() != folderAfter.getCversion();
            if (folderMoved || after.admittedVersion() != before.admittedVersion() || after.releasedVersion() != before.releasedVersion()) {
                continue; // a job moved into or out of downloading meanwhile: sum again
            }
            long reserved = after.admitted() - after.released();
            if (reserved == needed) {
                return Optional.empty();
            }
            String detail = "the counters reserve " + reserved + " bytes; the " + jids.size() + " job(s) in downloading need "
                    + needed;
            FsckPass.finding("space-reservation", QueuePaths.SPACE_RELEASED, detail);
            if (!repair) {
                return Optional.of(new Violation("space-reservation", QueuePaths.SPACE_RELEASED, detail, false));
            }
            try {
                // read back after a sync when a lost connection hid the answer: sent again, it would fail
                // on its own write and the next look would find nothing, leaving the repair unreported
                ReadBack.commit(zk, "repair the disk reservation", List.of(
                        Op.check(QueuePaths.SPACE_ADMITTED, after.admittedVersion()),
                        Op.setData(QueuePaths.SPACE_RELEASED, QueueJson.text(after.admitted() - needed), after.releasedVersion())));
                return Optional.of(new Violation("space-reservation", QueuePaths.SPACE_RELEASED,
                        detail + "; released set to " + (after.admitted() - needed), true));
            } catch (QueueException e) {
                // a move got in between: look again
            }
        }
        return Optional.of(new Violation("space-reservation", QueuePaths.SPACE_RELEASED,
                "jobs kept moving in and out of downloading during " + ATTEMPTS + " attempts; run the check again", false));
    }
}
