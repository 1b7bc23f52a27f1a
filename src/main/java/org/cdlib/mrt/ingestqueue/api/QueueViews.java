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

    static Map<String, Object> batch(Batch b, Map<JobState, Integer> jobStates) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("batch_id", b.id());
        m.put("status", b.status());
        m.put("submission", b.submission());
        m.put("status_report", b.statusReport());
        Map<String, Integer> progress = new LinkedHashMap<>();
        for (BatchRef r : BatchRef.values()) {
            progress.put(r.name().toLowerCase(), b.jobs(r).size());
        }
        progress.put("total", b.jobCount());
        m.put("jobs", progress);
        if (jobStates != null) {
            Map<String, Integer> states = new LinkedHashMap<>();
            jobStates.forEach((s, n) -> states.put(s.wire(), n));
            m.put("job_states", states);
        }
        m.put("lock", b.lockOwner());
        return m;
    }

    static List<String> wire(List<? extends org.cdlib.mrt.ingestqueue.queue.Transition<?>> allowed) {
        return allowed.stream().map(t -> t.to() + " (" + t.name() + ")").distinct().toList();
    }
}
