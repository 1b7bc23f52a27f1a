package org.cdlib.mrt.ingestqueue.queue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** One run of the consistency check: what it found, the open references it listed, the jobs it walked. */
final class FsckPass {
    final boolean repair;
    /** Whether a damaged job a worker holds has its lock broken to be repaired (the periodic pass), or waits for a later run. */
    final boolean breakLocks;
    final List<ConsistencyCheck.Violation> found = new ArrayList<>();
    /** Not inconsistencies: what the operator cleans up elsewhere (an unused ARK at the minter). */
    final List<ConsistencyCheck.Violation> notices = new ArrayList<>();
    final Map<String, List<String>> openRefs = new HashMap<>();
    final Set<String> seen = new LinkedHashSet<>();
    int jobs;
    int batches;

    FsckPass(boolean repair, boolean breakLocks) {
        this.repair = repair;
        this.breakLocks = breakLocks;
    }
}
