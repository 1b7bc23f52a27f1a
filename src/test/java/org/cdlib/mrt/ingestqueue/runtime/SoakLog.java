package org.cdlib.mrt.ingestqueue.runtime;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The soak's failures as they happen, from every thread (the operator, the neighbour, the checks), by check. */
final class SoakLog {
    private final Map<String, List<String>> failures = new LinkedHashMap<>();
    private final ChaosTimeline timeline;

    SoakLog(ChaosTimeline timeline) {
        this.timeline = timeline;
    }

    synchronized void fail(String check, String what) {
        List<String> list = failures.computeIfAbsent(check, k -> new ArrayList<>());
        list.add(what);
        if (list.size() <= 5) {
            timeline.note("FAILURE " + check + ": " + what);
        }
    }

    synchronized int count() {
        return failures.values().stream().mapToInt(List::size).sum();
    }

    /** Hands every failure to the ledger that reports the run. */
    synchronized void into(ChaosLedger ledger) {
        failures.forEach((check, list) -> list.forEach(f -> ledger.fail(check, f)));
    }
}
