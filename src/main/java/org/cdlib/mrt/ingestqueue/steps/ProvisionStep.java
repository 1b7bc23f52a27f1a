package org.cdlib.mrt.ingestqueue.steps;

import java.io.IOException;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.fetch.NoRoomYet;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.jobs.StepWrites;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.space.SpaceHeal;
import org.cdlib.mrt.ingestqueue.queue.space.SpaceReservation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code provisionStep}: lets a job go on to downloading only when the working filesystem can
 * take it. Counted as used: what the filesystem already uses, what the jobs now downloading
 * have reserved (their space_needed, since they may not have written it yet: the reservation
 * node, {@link SpaceReservation}), and this job's space_needed. When that would pass
 * {@code maxUsedPercent} of the filesystem, the job stays in provisioning (an unestimated job,
 * space_needed 0, stays too while the disk is over the threshold); the runtime evaluates it again
 * later. An admitted job carries to its transition how much may already be reserved for it to
 * fit; the transition checks that against the reservation it commits on (a job that no longer
 * fits is decided again), so admissions run on many threads and hosts at once and the threshold
 * still holds exactly.
 * <p>
 * Where storage writes its copy of the object on the same filesystem (local OCFL storage under the
 * same mount as {@code ingest.home}), every object needs its bytes twice ({@code copies} 2): this job's
 * and the downloading jobs' reservations count double, so an object admitted has room for the download
 * and storage's copy both.
 */
public final class ProvisionStep implements Processor {
    private static final Logger LOG = LoggerFactory.getLogger(ProvisionStep.class);

    /** How long an admission waits for the disk counters to be accounted before it is decided again later. */
    private static final long ACCOUNTED_WITHIN_MS = 5_000;
    private final QueueStore store;
    private final FreeSpace disk;
    private final int maxUsedPercent;
    private final int copies;
    private final StepWrites writes;

    public ProvisionStep(QueueStore store, FreeSpace disk, int maxUsedPercent) {
        this(store, disk, maxUsedPercent, 1, null);
    }

    /**
     * {@code copies}: how many times an object's bytes land on the working filesystem (2: storage's copy too);
     * {@code writes}: shows a waiting job's numbers in its status message (null: the log line only).
     */
    public ProvisionStep(QueueStore store, FreeSpace disk, int maxUsedPercent, int copies, StepWrites writes) {
        if (maxUsedPercent < 1 || maxUsedPercent > 100) {
            throw new IllegalArgumentException(
                    "ingest.provisioning.max-used-percent must be 1..100, got " + maxUsedPercent);
        }
        if (copies < 1) {
            throw new IllegalArgumentException("an object lands on the disk at least once, not " + copies + " times");
        }
        this.store = store;
        this.disk = disk;
        this.maxUsedPercent = maxUsedPercent;
        this.copies = copies;
        this.writes = writes;
    }

    @Override
    public void process(Exchange exchange) {
        Job job = JobExchange.job(exchange);
        String never = neverFits(job);
        if (never != null) {
            LOG.info("job {} batch {}: fails: {}", job.id(), job.batchId(), never);
            JobExchange.fail(exchange, never);
            return;
        }
        // never on counters a move of mrt-zk's workers skipped (issue
        // 42): one synced look, shared, healed first if need be
        var heal = store.spaceHeal();
        if (heal != null) {
            try {
                heal.awaitAccounted(ACCOUNTED_WITHIN_MS);
            } catch (SpaceHeal.Stale e) {
                LOG.info("job {} batch {}: stays in provisioning: {}", job.id(), job.batchId(), e.getMessage());
                JobExchange.stay(exchange, e.getMessage());
                return;
            }
        }
        // a first look from the counts this process's own moves left (no read): a job they admit goes on, and its
        // move checks the counter's version; one they would refuse is looked at again on the counts as read
        SpaceReservation guess = store.jobs().spaceReservedGuess();
        String shortage = guess == null ? "unknown" : shortage(job, guess);
        if (shortage != null) {
            shortage = shortage(job, store.jobs().spaceReserved());
        }
        if (shortage != null) {
            LOG.info("job {} batch {}: stays in provisioning: {}", job.id(), job.batchId(), shortage);
            show(exchange, job);
            JobExchange.stay(exchange, shortage);
            return;
        }
        try {
            // in the counters' unit, one copy: used + copies x (reserved + needed) stays within the limit
            long room = Math.floorDiv(limit(disk.totalBytes()) - (disk.totalBytes() - disk.usableBytes()), copies)
                    - job.spaceNeeded(); // floored: a disk past its limit leaves no room, not half a byte of it
            // the transition admits the job only while no more than this is reserved by then (checked, versioned)
            JobExchange.change(exchange, c -> c.admittedWhileReservedAtMost(room));
        } catch (IOException e) {
            JobExchange.stay(exchange, "cannot read the free space of " + disk + ": " + e.getMessage());
        }
    }

    /** Why the job can never fit, even on an empty filesystem (a manifest claiming 100 TB), or null. */
    private String neverFits(Job job) {
        try {
            long total = disk.totalBytes();
            long need = job.spaceNeeded() * copies;
            return need <= limit(total) ? null : "the object is estimated at " + job.spaceNeeded() + " bytes"
                    + (copies == 1 ? "" : ", " + need + " with storage's copy on the same filesystem")
                    + ", more than the working filesystem can ever hold: at most " + limit(total) + " bytes ("
                    + maxUsedPercent + "% of " + total + ", ingest.provisioning.max-used-percent)";
        } catch (IOException e) {
            return null; // the shortage says so
        }
    }

    /**
     * The waiting job's status message: what it needs and the limit, rounded (three digits) so a retry that finds
     * the disk much as it was writes nothing; the exact bytes are the log line's. The move on clears it.
     */
    private void show(Exchange exchange, Job job) {
        if (writes == null) {
            return;
        }
        try {
            long total = disk.totalBytes();
            String message = "waits for room on the working disk: needs " + NoRoomYet.size(job.spaceNeeded() * copies)
                    + (copies == 1 ? "" : " (with storage's copy)") + "; " + NoRoomYet.size(total - disk.usableBytes())
                    + " of " + NoRoomYet.size(total) + " used, " + maxUsedPercent
                    + "% at most (ingest.provisioning.max-used-percent)";
            writes.statusMessage(JobExchange.lock(exchange), message);
        } catch (IOException | RuntimeException e) {
            // what an operator reads, not the decision: the job waits all the same
            LOG.warn("job {}: its status message not written: {}", job.id(), e.getMessage());
        }
    }

    private long limit(long total) {
        return (long) (total * (maxUsedPercent / 100.0));
    }

    /** Why the job cannot go on now, or null when it can. */
    public String shortage(Job job) {
        return shortage(job, store.jobs().spaceReserved());
    }

    private String shortage(Job job, SpaceReservation reservation) {
        long total;
        long usable;
        try {
            total = disk.totalBytes();
            usable = disk.usableBytes();
        } catch (IOException e) {
            return "cannot read the free space of " + disk + ": " + e.getMessage();
        }
        long reserved = reservation.bytes() * copies;
        long need = job.spaceNeeded() * copies;
        long used = total - usable;
        long after = used + reserved + need;
        long limit = limit(total);
        if (after <= limit) {
            return null;
        }
        return String.format("needs %d bytes%s; %d of %d bytes used, %d reserved by %d downloading job(s): "
                + "%.1f%% used after this job, above the limit of %d%%", need,
                copies == 1 ? "" : " (" + job.spaceNeeded() + " and storage's copy)", used, total, reserved,
                store.jobs().count(JobState.DOWNLOADING), total == 0 ? 100.0 : 100.0 * after / total, maxUsedPercent);
    }
}
