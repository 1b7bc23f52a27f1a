package org.cdlib.mrt.ingestqueue.figures;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;

/**
 * The jobs that pass a state before a job (or a batch's last job) is through it: the open states
 * in pipeline order, each one's references sorted in run order (priority, then job id), and
 * the ones a worker holds. Built once an answer from the open states' views: in memory, no read.
 */
final class RunOrder {
    /** The working states, pending to notify. */
    static final List<JobState> PIPELINE = OpenStates.OPEN.stream().filter(JobState::isWorking).toList();

    private final List<List<String>> sorted = new ArrayList<>();
    private final List<List<String>> active = new ArrayList<>();
    private final Map<String, String> refOf = new HashMap<>();
    private final Map<String, Integer> stateOf = new HashMap<>();

    RunOrder(Map<JobState, List<String>> states, Set<String> workedOn) {
        for (int i = 0; i < PIPELINE.size(); i++) {
            List<String> refs = new ArrayList<>(states.getOrDefault(PIPELINE.get(i), List.of()));
            Collections.sort(refs);
            sorted.add(refs);
            List<String> held = new ArrayList<>();
            for (String ref : refs) {
                String jid = QueuePaths.jidOfRef(ref);
                refOf.put(jid, ref);
                stateOf.put(jid, i);
                if (workedOn.contains(jid)) {
                    held.add(ref);
                }
            }
            active.add(held);
        }
    }

    /** Open jobs of other batches whose priority goes before {@code priority}. */
    int higherThan(int priority, Batch b) {
        int n = 0;
        for (List<String> refs : sorted) {
            for (String ref : refs) {
                int p = QueuePaths.priorityOfRef(ref);
                n += p >= 0 && p < priority && !b.status().holds(QueuePaths.jidOfRef(ref)) ? 1 : 0;
            }
        }
        return n;
    }

    /**
     * What the model needs for these jobs (and {@code notMade} more, not created yet, that will
     * start in pending last in line): from the earliest state one of them is in, per state the
     * jobs ahead of their last one in run order and the ones after it a worker holds, and (in the
     * later states) the ones waiting there after it, which it passes once it gets there ({@link
     * BatchEstimates} counts those its workers take first). Null when none of them is in the pipeline
     * (held or gone).
     */
    Target target(List<String> jids, int notMade) {
        int from = notMade > 0 ? 0 : Integer.MAX_VALUE;
        String last = null;
        for (String jid : jids) {
            Integer i = stateOf.get(jid);
            if (i != null) {
                from = Math.min(from, i);
                String ref = refOf.get(jid);
                last = last == null || ref.compareTo(last) > 0 ? ref : last;
            }
        }
        if (from == Integer.MAX_VALUE) {
            return null;
        }
        int[] inOrder = new int[PIPELINE.size()];
        int[] after = new int[PIPELINE.size()];
        for (int i = from; i < PIPELINE.size(); i++) {
            List<String> busy = active.get(i);
            // those before the last in run order, and the ones after it a worker holds now
            inOrder[i] = upTo(sorted.get(i), last) + busy.size() - upTo(busy, last) + (i == 0 ? notMade : 0);
            // waiting after it in run order: passed by it, unless a worker takes them before it arrives
            after[i] = i == from ? 0 : sorted.get(i).size() - upTo(sorted.get(i), last) - busy.size()
                    + upTo(busy, last);
        }
        return new Target(from, inOrder, after);
    }

    /** How many of the sorted references go before {@code last} or are it (none when it is null). */
    private static int upTo(List<String> sorted, String last) {
        if (last == null) {
            return 0;
        }
        int i = Collections.binarySearch(sorted, last);
        return i >= 0 ? i + 1 : -i - 1;
    }

    /**
     * From the earliest state on, per state: the jobs that pass it before the last of these in run order
     * (and the ones after it in a worker's hands), and those waiting after it in run order.
     */
    record Target(int from, int[] inOrder, int[] after) {
    }
}
