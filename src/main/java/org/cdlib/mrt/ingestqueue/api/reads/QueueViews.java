package org.cdlib.mrt.ingestqueue.api.reads;

import java.time.Instant;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.cdlib.mrt.ingestqueue.figures.OpenStates;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchStatus;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.JobStatus;
import org.cdlib.mrt.ingestqueue.queue.model.QueueTime;

/**
 * What the API shows of jobs and batches: every node, in the API's own field names and lower-case
 * states, which stayed as they were when the nodes took mrt-zk's spelling ({@code Pending},
 * {@code message}, {@code primary_id}): scripts and the dashboard read the API, not the nodes.
 */
public final class QueueViews {
    private QueueViews() {
    }

    public static Map<String, Object> job(Job j) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("job_id", j.id());
        m.put("batch_id", j.batchId());
        m.put("status", status(j.status()));
        m.put("priority", j.priority());
        m.put("space_needed", j.spaceNeeded());
        Map<String, Object> ids = new LinkedHashMap<>();
        ids.put("primary", j.identifiers().primary());
        ids.put("local_id", j.identifiers().localId());
        m.put("identifiers", ids);
        m.put("configuration", j.configuration() == null ? null : j.configuration().shown());
        m.put("lock", j.lockOwner());
        return m;
    }

    /**
     * One job with its outside effects ({@code /jobs/JID/effects}) and, for the operator, the ARKs
     * it may have left unused at the minter ({@code unused_arks}: a lost mint answer, an ARK
     * another job's binding displaced), to be removed there.
     */
    static Map<String, Object> job(Job j, JobEffects effects) {
        Map<String, Object> m = job(j);
        m.put("effects", effects.effects());
        m.put("unused_arks", effects.unusedArks(j.identifiers().primary()));
        return m;
    }

    static final Set<BatchState> OPEN_BATCH_STATES = EnumSet.of(
            BatchState.PENDING, BatchState.HELD,
            BatchState.PROCESSING, BatchState.REPORTING,
            BatchState.UPDATE_REPORTING);

    public static Map<String, Object> batch(Batch b, Map<JobState, Integer> jobStates) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("batch_id", b.id());
        m.put("status", status(b.status()));
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

    static Map<String, Object> status(JobStatus s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("status", wire(s.status()));
        m.put("last_successful_status", s.lastSuccessfulStatus() == null ? null : wire(s.lastSuccessfulStatus()));
        m.put("last_modification_date", iso(s.lastModified()));
        m.put("retry_count", s.retryCount());
        m.put("error_message", s.errorMessage());
        m.put("history", s.history());
        return m;
    }

    static Map<String, Object> status(BatchStatus s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("status", s.status() == null ? null : safeBatchState(s.status()));
        m.put("last_modified", iso(s.lastModified()));
        m.put("jobs_created", s.jobsCreated());
        m.put("error_message", s.errorMessage());
        m.put("first_job", s.firstJob());
        m.put("jobs_total", s.jobsTotal());
        m.put("cursor", s.cursor());
        return m;
    }

    private static String wire(String state) {
        try {
            return JobState.fromWire(state).wire();
        } catch (IllegalArgumentException e) {
            return state;
        }
    }

    private static String safeBatchState(String state) {
        try {
            return BatchState.fromWire(state).wire();
        } catch (IllegalArgumentException e) {
            return state;
        }
    }

    /** A node's stamp as ISO-8601, as the API always gave it; as stored when it cannot be read. */
    public static String iso(String stamp) {
        Instant at = QueueTime.parse(stamp);
        return at == null ? stamp : at.toString();
    }

    /** Jobs and batches per state, each folder counted by its {@code Stat}: what every live update carries. */
    public static Map<String, Object> counts(QueueStore store) {
        Map<String, Integer> jobs = new LinkedHashMap<>();
        store.jobs().counts().forEach((s, n) -> jobs.put(s.wire(), n));
        Map<String, Integer> batches = new LinkedHashMap<>();
        store.batches().counts().forEach((s, n) -> batches.put(s.wire(), n));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("jobs", jobs);
        m.put("batches", batches);
        m.put("work", OpenStates.work(store, jobs));
        return m;
    }
}
