package org.cdlib.mrt.ingestqueue.camel;

import org.cdlib.mrt.ingestqueue.queue.BatchState;
import org.cdlib.mrt.ingestqueue.queue.JobState;

/** What a zkqueue endpoint consumes: the jobs of one job state, or the batches of one batch state. */
record QueueKind(JobState jobState, BatchState batchState) {

    static final java.util.Set<BatchState> BATCH_STATES = java.util.EnumSet.of(
            BatchState.PENDING, BatchState.REPORTING, BatchState.UPDATE_REPORTING);

    static QueueKind parse(String remaining) {
        String[] parts = remaining.split("/", 2);
        if (parts.length == 2 && parts[0].equals("job")) {
            JobState s = JobState.fromWire(parts[1]);
            if (!s.isWorking()) {
                throw new IllegalArgumentException("zkqueue:job/" + parts[1] + ": only pending through notify are worked on");
            }
            return new QueueKind(s, null);
        }
        if (parts.length == 2 && parts[0].equals("batch")) {
            BatchState s = BatchState.fromWire(parts[1]);
            if (!BATCH_STATES.contains(s)) {
                throw new IllegalArgumentException("zkqueue:batch/" + parts[1] + ": only pending, reporting and update-reporting are worked on");
            }
            return new QueueKind(null, s);
        }
        throw new IllegalArgumentException("zkqueue:" + remaining + ": expected job/<state> or batch/<state>");
    }

    boolean isJob() {
        return jobState != null;
    }

    String name() {
        return isJob() ? "job/" + jobState.wire() : "batch/" + batchState.wire();
    }
}
