package org.cdlib.mrt.ingestqueue.queue.fsck;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.zookeeper.Op;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.QueueException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One run of the consistency check: what it found, the open references it listed, the jobs it walked. */
final class FsckPass {
    private static final Logger LOG = LoggerFactory.getLogger(ConsistencyCheck.class);
    final boolean repair;
    /** Whether a damaged job a worker holds has its lock broken to be repaired (the periodic pass), or waits for a later run. */
    final boolean breakLocks;
    final List<Violation> found = new ArrayList<>();
    /** Not inconsistencies: what the operator cleans up elsewhere (an unused ARK at the minter). */
    final List<Violation> notices = new ArrayList<>();
    final Map<String, List<String>> openRefs = new HashMap<>();
    final Set<String> seen = new LinkedHashSet<>();
    int jobs;
    int batches;

    FsckPass(boolean repair, boolean breakLocks) {
        this.repair = repair;
        this.breakLocks = breakLocks;
    }

    /** A violation whose repair needs no job's lock: applied in one transaction when the pass repairs. */
    Violation unlocked(QueueStore store, String kind, String path, String detail, List<Op> ops) {
        boolean repaired = false;
        if (repair) {
            try {
                store.calls().commitUnlocked("repair " + kind + " at " + path, ops);
                repaired = true;
                LOG.info("repaired {} at {}: {}", kind, path, detail);
            } catch (QueueException e) {
                LOG.warn("cannot repair {} at {}: {}", kind, path, e.getMessage());
            }
        }
        return new Violation(kind, path, detail, repaired);
    }
}
