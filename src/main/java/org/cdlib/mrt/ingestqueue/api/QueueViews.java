package org.cdlib.mrt.ingestqueue.api;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.queue.Batch;
import org.cdlib.mrt.ingestqueue.queue.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.Job;
import org.cdlib.mrt.ingestqueue.queue.JobState;

/** What the API shows of jobs and batches: every node, in the design's field names. */
final class QueueViews {
    private QueueViews() {
    }

    static Map<String, Object> job(Job j) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("job_id", j.id());
        m.put("batch_id", j.batchId());
        m.put("status", j.status());
        m.put("priority", j.priority());
        m.put("space_needed", j.spaceNeeded());
        m.put("identifiers", j.identifiers());
        m.put("configuration", j.configuration());
        m.put("lock", j.lockOwner());
        return m;
    }

    /**
     * One job with its outside effects ({@code /jobs/JID/effects}) and, for the operator, the ARKs
     * it may have left unused at the minter ({@code unused_arks}: a lost mint answer, an ARK
     * another job's binding displaced), to be removed there.
     */
    static Map<String, Object> job(Job j, org.cdlib.mrt.ingestqueue.queue.JobEffects effects) {
        Map<String, Object> m = job(j);
        m.put("effects", effects.effects());
        m.put("unused_arks", effects.unusedArks(j.identifiers().primary()));
        return m;
    }

    static final java.util.Set<org.cdlib.mrt.ingestqueue.queue.BatchState> OPEN_BATCH_STATES = java.util.EnumSet.of(
            org.cdlib.mrt.ingestqueue.queue.BatchState.PENDING, org.cdlib.mrt.ingestqueue.queue.BatchState.HELD,
            org.cdlib.mrt.ingestqueue.queue.BatchState.PROCESSING, org.cdlib.mrt.ingestqueue.queue.BatchState.REPORTING,
            org.cdlib.mrt.ingestqueue.queue.BatchState.UPDATE_REPORTING);

    static Map<String, Object> batch(Batch b, Map<JobState, Integer> jobStates) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("batch_id", b.id());
        m.put("status", b.status());
        m.put("submission", b.submission());
        m.put("status_report", b.statusReport());
        Map<String, Integer> progress = new LinkedHashMap<>();
        for (BatchRef r : BatchRef.values()) {
            progress.put(r.name().toLowerCase(), b.count(r));
        }
        progress.put("total", b.jobCount());
        progress.put("created", b.status().jobsCreated());
        if (b.status().jobsTotal() != null) {
            progress.put("expected", b.status().jobsTotal());
        }
        m.put("jobs", progress);
        if (jobStates != null) {
            Map<String, Integer> states = new LinkedHashMap<>();
            jobStates.forEach((s, n) -> states.put(s.wire(), n));
            m.put("job_states", states);
        }
        m.put("lock", b.lockOwner());
        return m;
    }

    /** Jobs and batches per state, each folder counted by its {@code Stat}: what every live update carries. */
    static Map<String, Object> counts(org.cdlib.mrt.ingestqueue.queue.QueueStore store) {
        Map<String, Integer> jobs = new LinkedHashMap<>();
        store.jobs().counts().forEach((s, n) -> jobs.put(s.wire(), n));
        Map<String, Integer> batches = new LinkedHashMap<>();
        store.batches().counts().forEach((s, n) -> batches.put(s.wire(), n));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("jobs", jobs);
        m.put("batches", batches);
        return m;
    }

    static List<String> wire(List<? extends org.cdlib.mrt.ingestqueue.queue.Transition<?>> allowed) {
        return allowed.stream().map(t -> t.to() + " (" + t.name() + ")").distinct().toList();
    }
}
