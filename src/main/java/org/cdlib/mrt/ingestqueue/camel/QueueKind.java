package org.cdlib.mrt.ingestqueue.camel;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;

/** What a zkqueue endpoint consumes: the jobs of one job state, or the batches of one batch state. */
record QueueKind(JobState jobState, BatchState batchState) {

    static final Set<BatchState> BATCH_STATES = EnumSet.of(
            BatchState.PENDING, BatchState.REPORTING, BatchState.UPDATE_REPORTING);

    static QueueKind parse(String remaining) {
        String[] parts = remaining.split("/", 2);
        if (parts.length == 2 && parts[0].equals("job")) {
            for (JobState s : JobState.values()) {
                if (s.isWorking() && s.wire().equals(parts[1])) {
                    return new QueueKind(s, null);
                }
            }
            throw new IllegalArgumentException("zkqueue:job/" + parts[1] + ": a job state worked on is one of "
                    + wires(Arrays.stream(JobState.values()).filter(JobState::isWorking)));
        }
        if (parts.length == 2 && parts[0].equals("batch")) {
            for (BatchState s : BATCH_STATES) {
                if (s.wire().equals(parts[1])) {
                    return new QueueKind(null, s);
                }
            }
            throw new IllegalArgumentException("zkqueue:batch/" + parts[1] + ": a batch state worked on is one of "
                    + wires(BATCH_STATES.stream()));
        }
        throw new IllegalArgumentException("zkqueue:" + remaining + ": expected job/<state> or batch/<state>");
    }

    private static String wires(Stream<? extends Enum<?>> states) {
        return states.map(Object::toString).collect(Collectors.joining(", "));
    }

    boolean isJob() {
        return jobState != null;
    }

    String name() {
        return isJob() ? "job/" + jobState.wire() : "batch/" + batchState.wire();
    }
}
