package org.cdlib.mrt.ingestqueue.queue.model;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * What a completed job keeps of the nodes its completion removed ({@code configuration},
 * {@code identifiers}, {@code effects}), inside its status node: the API's job view, the batch
 * report, update-reporting, search and fsck read a completed job from here. The effects are kept
 * whole (the ledger of what the job did outside); the configuration and the local ids are cut to
 * fit the status node ({@link #of}): whole for any ordinary job, each long value cut with
 * {@code ...} and the Dublin Core left out only when a job's values are unusually long. It carries
 * the job's priority and space_needed too (no node holds them once the job is compacted: {@code
 * JobCompaction}), so a report reads the job from its status alone. A summary written before issue
 * 42 beside kept bid/priority/space_needed/identifiers nodes may have them null (it was cut): its
 * job is read from those nodes.
 */
public record JobSummary(
        JobConfiguration configuration,
        Identifiers identifiers,
        Map<String, JobEffects.Effect> effects,
        Integer priority,
        Long spaceNeeded) {

    /** The cuts tried in turn: the first whose summary fits is kept (the last always fits: see {@link #of}). */
    private static final int[] FIELD_CUTS = {Integer.MAX_VALUE, 1024, 256, 64};
    private static final int[] LOCAL_IDS = {Integer.MAX_VALUE, 20, 5, 1};

    public JobSummary {
        identifiers = identifiers == null ? new Identifiers(null, List.of()) : identifiers;
        effects = effects == null ? Map.of() : Map.copyOf(effects);
    }

    public JobEffects jobEffects() {
        return new JobEffects(effects);
    }

    /**
     * The summary of a job, at most {@code budget} bytes of JSON when that can be had by cutting the
     * configuration and identifiers (the effects, at most one effects node's 8 KiB, are never cut).
     */
    public static JobSummary of(
            JobConfiguration c, Identifiers ids, JobEffects fx, int priority, long spaceNeeded, int budget) {
        JobSummary s = null;
        for (int level = 0; level < FIELD_CUTS.length; level++) {
            int cut = FIELD_CUTS[level];
            UnaryOperator<String> f = v -> cut == Integer.MAX_VALUE ? v : JobHistory.cut(v, cut);
            List<String> local = ids.localId().stream().limit(LOCAL_IDS[level]).map(f).toList();
            s = new JobSummary(
                    c == null ? null : cut(c, f, level == 0),
                    new Identifiers(f.apply(ids.primaryId()), local),
                    fx.effects(),
                    priority,
                    spaceNeeded);
            if (QueueJson.write(s).length <= budget) {
                return s;
            }
        }
        return s;
    }

    private static JobConfiguration cut(JobConfiguration c, UnaryOperator<String> f, boolean keepDublinCore) {
        Map<String, List<String>> dc = keepDublinCore ? c.dublinCore() : null;
        return new JobConfiguration(
                f.apply(c.batchId()),
                f.apply(c.profileName()),
                f.apply(c.submitter()),
                f.apply(c.payloadUrl()),
                f.apply(c.payloadType()),
                f.apply(c.responseType()),
                f.apply(c.submissionMode()),
                f.apply(c.workingDir()),
                f.apply(c.localId()),
                f.apply(c.fileName()),
                f.apply(c.digestType()),
                f.apply(c.digestValue()),
                c.fileSize(),
                f.apply(c.ercWho()),
                f.apply(c.ercWhat()),
                f.apply(c.ercWhen()),
                f.apply(c.ercWhere()),
                dc == null ? null : new LinkedHashMap<>(dc));
    }
}
