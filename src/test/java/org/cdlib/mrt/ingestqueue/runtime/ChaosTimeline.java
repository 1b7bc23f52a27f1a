package org.cdlib.mrt.ingestqueue.runtime;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** What happened when in one chaos run, in seconds from its start; printed as it goes and whole at the end. */
final class ChaosTimeline {
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final long t0 = System.nanoTime();
    private final long seed;

    ChaosTimeline(long seed) {
        this.seed = seed;
    }

    void note(String what) {
        String line = String.format("%6.1f s  %s", seconds(), what);
        lines.add(line);
        System.out.println("chaos " + seed + ": " + line);
    }

    double seconds() {
        return (System.nanoTime() - t0) / 1e9;
    }

    String text() {
        return "  " + String.join("\n  ", lines);
    }
}
