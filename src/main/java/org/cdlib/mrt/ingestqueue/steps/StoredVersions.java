package org.cdlib.mrt.ingestqueue.steps;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.JobSummary;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.services.StoredVersion;

/**
 * What storage made of each job — mode (add | update), version, deletions — as storing recorded it
 * under the job: its effects' {@code storage} record, "done" with storage's answer, which a completed
 * job keeps in its status's summary. Recording and the depositor's report read it there. Releases
 * before kept it in files too ({@code working_dir/.stored.json} and
 * {@code <ingest.home>/.versions/<bid>/<jid>.json}): they are still read when a job has no such
 * record, and cleanup removes a gone batch's folder ({@link #prune}).
 */
public final class StoredVersions {
    private StoredVersions() {
    }

    static Path file(Path ingestHome, String bid, String jid) {
        return ingestHome.resolve(".versions").resolve(bid).resolve(jid + ".json");
    }

    /** Removes {@code .versions/<bid>} of every batch that {@code exists} no longer knows; returns how many. */
    public static int prune(Path ingestHome, Predicate<String> exists) throws IOException {
        Path root = ingestHome.resolve(".versions");
        if (!Files.isDirectory(root)) {
            return 0;
        }
        int removed = 0;
        List<Path> batches;
        try (Stream<Path> list = Files.list(root)) {
            batches = list.filter(Files::isDirectory).toList();
        }
        for (Path b : batches) {
            if (exists.test(b.getFileName().toString())) {
                continue;
            }
            try (Stream<Path> walk = Files.walk(b)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
            removed++;
        }
        return removed;
    }

    /**
     * Storage's answer as storing recorded it ({@code StoreStep.keep}), or null when no add is recorded
     * as done. A "done" record that does not read as an answer throws (a {@code CorruptNodeException}
     * naming it): an add recorded as done is never taken for one not made, so it is never sent again.
     */
    public static StoredVersion of(JobEffects fx) {
        JobEffects.Effect e = fx.get(JobEffects.STORAGE);
        if (e == null || !fx.done(JobEffects.STORAGE)) {
            return null;
        }
        return QueueJson.read(
                "effects/storage", String.valueOf(e.detail()).getBytes(StandardCharsets.UTF_8), StoredVersion.class);
    }

    /**
     * For the report: a completed job's from its summary (nothing read), any other's from its effects
     * node, else from the file a release before wrote; null when it has none (failed before storage) or
     * its record cannot be read (the report says what it can).
     */
    public static StoredVersion of(Job job, QueueStore store, Path ingestHome) {
        return of(List.of(job), store, ingestHome).get(job.id());
    }

    /**
     * As {@link #of(Job, QueueStore, Path)} for a report's listed jobs at once: the effects of those
     * without a summary are read together, in bounded transactions, not one request a job. By job
     * id; a job without one is absent.
     */
    public static Map<String, StoredVersion> of(List<Job> jobs, QueueStore store, Path ingestHome) {
        List<String> unsummarised = jobs.stream().filter(j -> j.status().summary() == null).map(Job::id).toList();
        Map<String, JobEffects> read;
        try {
            read = unsummarised.isEmpty() ? Map.of() : store.jobs().effects(unsummarised);
        } catch (RuntimeException unreadable) {
            read = Map.of(); // each job's older file, if any, still says what it can
        }
        Map<String, StoredVersion> out = new HashMap<>();
        for (Job job : jobs) {
            JobSummary summary = job.status().summary();
            StoredVersion v;
            try {
                v = of(summary != null ? summary.jobEffects() : read.getOrDefault(job.id(), JobEffects.none()));
            } catch (RuntimeException unreadable) {
                v = null;
            }
            v = v != null ? v : read(ingestHome, job.batchId(), job.id());
            if (v != null) {
                out.put(job.id(), v);
            }
        }
        return out;
    }

    /** The job's stored version from the file of a release before, or null when it has none. */
    static StoredVersion read(Path ingestHome, String bid, String jid) {
        Path f = file(ingestHome, bid, jid);
        try {
            return Files.isRegularFile(f)
                    ? QueueJson.read(f.toString(), Files.readAllBytes(f), StoredVersion.class)
                    : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
