package org.cdlib.mrt.ingestqueue.queue.fsck;

import java.util.Optional;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.space.SpaceHeal;
import org.cdlib.mrt.ingestqueue.queue.zk.Probes;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * fsck's look at the disk reservation: what the counters say is reserved (admitted − released)
 * against what the jobs in downloading need. They drift by hand, by a release that was never
 * written (a job deleted while downloading by a version before the delete released it), or by a
 * move of mrt-zk's workers that the running service's {@link SpaceHeal} has not healed yet; then
 * admissions see too much reserved, or too little. Judged on {@link SpaceHeal#check}'s consistent
 * cut, repaired as it heals (a counter only ever raised, checked against both versions read).
 */
public final class SpaceCheck {
    private SpaceCheck() {
    }

    public static Optional<Violation> run(QueueStore store, boolean repair) {
        ZooKeeperCalls zk = store.calls();
        // a move between the sum and the second cut must not be judged: a test makes one at the probe
        // a repair's lost answer is read back, so the repair is reported
        SpaceHeal.Downloading downloading = SpaceHeal.Downloading.of(store.jobs()::refs, store.jobs()::spaceNeeded);
        SpaceHeal.Result r = SpaceHeal.check(zk, downloading, repair,
                () -> zk.probes().reached(Probes.Point.BEFORE_SECOND_CUT),
                ops -> ReadBack.commit(zk, "repair the disk reservation", ops));
        if (r.detail() == null) {
            return Optional.empty();
        }
        if (r.mark() != null) {
            FsckPass.finding("space-reservation", QueuePaths.SPACE_RELEASED, r.detail());
        }
        return Optional.of(new Violation("space-reservation", QueuePaths.SPACE_RELEASED, r.detail(), r.repaired()));
    }
}
