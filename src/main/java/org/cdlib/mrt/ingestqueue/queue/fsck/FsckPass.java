package org.cdlib.mrt.ingestqueue.queue.fsck;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.apache.zookeeper.Op;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One run of the consistency check: what it found, the open references it listed, the jobs it walked. */
final class FsckPass {
    private static final Logger LOG = LoggerFactory.getLogger(ConsistencyCheck.class);
    final boolean repair;
    /**
     * Whether a damaged job a worker holds has its lock broken to
     * be repaired (the periodic pass), or waits for a later run.
     */
    final boolean breakLocks;
    final List<Violation> found = new ArrayList<>();
    /** Not inconsistencies: what the operator cleans up elsewhere (an unused ARK at the minter). */
    final List<Violation> notices = new ArrayList<>();
    final Map<String, List<String>> openRefs = new HashMap<>();
    final Set<String> seen = new LinkedHashSet<>();
    int jobs;
    int batches;
    /** Asked between batches: false ends the pass there (its host no longer leads). */
    BooleanSupplier goOn = () -> true;
    /** The batch number the pass stopped at, or -1. */
    long stoppedAt = -1;

    FsckPass(boolean repair, boolean breakLocks) {
        this.repair = repair;
        this.breakLocks = breakLocks;
    }

    /**
     * A violation whose repair needs no job's lock: judged only when {@code stillWrong} (a synced
     * re-read) finds it still so, then applied in one transaction when the pass repairs; null when
     * it was not confirmed (something moved meanwhile: not a finding).
     */
    Violation unlocked(QueueStore store, String kind, String path, String detail, List<Op> ops,
                       BooleanSupplier stillWrong) {
        if (!stillWrong.getAsBoolean()) {
            LOG.debug("consistency check: {} at {} not confirmed by a synced re-read: not a finding", kind, path);
            return null;
        }
        boolean repaired = false;
        if (repair) {
            try {
                ReadBack.commit(store.calls(), "repair " + kind + " at " + path, ops);
                repaired = true;
                LOG.info("repaired {} at {}: {}", kind, path, detail);
            } catch (QueueException e) {
                LOG.warn("cannot repair {} at {}: {}", kind, path, e.getMessage());
            }
        }
        finding(kind, path, detail);
        return new Violation(kind, path, detail, repaired);
    }

    /** Adds a confirmed violation (a null one was not confirmed). */
    void add(Violation v) {
        if (v != null) {
            found.add(v);
        }
    }

    /** One line per finding, for an operator and for a soak that counts them. */
    static void finding(String kind, String path, String detail) {
        LOG.info("fsck finding: {} at {}: {}", kind, path, detail);
    }
}
