package org.cdlib.mrt.ingestqueue.batch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.cdlib.mrt.ingestqueue.camel.BatchExchange;
import org.cdlib.mrt.ingestqueue.fetch.FetchException;
import org.cdlib.mrt.ingestqueue.fetch.Fetcher;
import org.cdlib.mrt.ingestqueue.manifest.CheckmManifest;
import org.cdlib.mrt.ingestqueue.manifest.CheckmReader;
import org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm;
import org.cdlib.mrt.ingestqueue.manifest.ManifestException;
import org.cdlib.mrt.ingestqueue.manifest.PayloadTypes;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.profile.ProfileRegistry;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchStatus;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.model.NewJob;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Batch Pending: turns a submission into one job per object (CONTRACTS §1), a window at a time.
 * A submission the queue cannot turn into jobs — unknown profile, refused URL, corrupt or empty
 * manifest — sends the batch to reporting with a message naming the line and the problem,
 * before any job exists, so the depositor is told and nothing is half-created. A manifest is
 * saved under the batch's directory and checked whole in one streaming pass; then jobs are
 * created while the batch has fewer than {@code window} open jobs and the queue fewer than
 * {@code maxOpen}, reading on from the offset kept in the batch's status. The window is this
 * batch's alone (its jobs are created only under its lock); the queue's cap is shared by every
 * host, so creation itself fences it ({@code Batches.createMoreJobs} with the cap): the room
 * decided here is an upper bound, and a host that created meanwhile leaves less. The batch stays
 * pending (tried again after {@code refillDelay}) until its last job exists, so the job state
 * folders stay small whatever a manifest lists, and creation resumes exactly after a crash.
 * <p>
 * Reading the depositor's server (the first bytes that choose a type, the manifest: {@link SubmissionReads})
 * happens on {@link OutsideReads}' threads, not the worker's: a worker waits for it a moment, and when the
 * server is slow the batch stays pending while the read goes on, so several workers (and other
 * hosts' workers) go on with other depositors' batches.
 */
public final class BatchPendingStep implements Processor {
    private static final Logger LOG = LoggerFactory.getLogger(BatchPendingStep.class);
    static final String MANIFEST_FILE = "batch-manifest.checkm";

    private final QueueStore store;
    private final ProfileRegistry profiles;
    private final Fetcher fetcher;
    private final int window;
    private final int maxOpen;
    private final long refillDelay;
    /** Reads of the depositor's server, off the worker's thread. */
    private final SubmissionReads reads;

    public BatchPendingStep(QueueStore store, ProfileRegistry profiles, Fetcher fetcher) {
        this(store, profiles, fetcher, 5_000, 10_000, 1_000, 256L << 20);
    }

    public BatchPendingStep(QueueStore store, ProfileRegistry profiles, Fetcher fetcher, int window, int maxOpen,
                            long refillDelay, long maxManifestBytes) {
        // called directly (tests, tools), the step decides every batch in one call: it waits for each read
        this(store, profiles, fetcher, window, maxOpen, refillDelay, maxManifestBytes,
                new OutsideReads(SubmissionReads.READ_THREADS, SubmissionReads.READS_PER_SUBMITTER, Long.MAX_VALUE));
    }

    /**
     * As the service binds it ({@link BatchModule}): a worker waits {@code reads}' while for a read, then lets
     * the batch go.
     */
    BatchPendingStep(QueueStore store, ProfileRegistry profiles, Fetcher fetcher, int window, int maxOpen,
                     long refillDelay, long maxManifestBytes, OutsideReads reads) {
        if (window < 1 || maxOpen < window || maxOpen > QueueLimits.MAX_OPEN_JOBS) {
            throw new IllegalArgumentException("need 1 <= ingest.batch.window (" + window
                    + ") <= ingest.queue.max-open-jobs (" + maxOpen + ") <= " + QueueLimits.MAX_OPEN_JOBS
                    + ": a state folder must stay small enough to list");
        }
        this.store = store;
        this.profiles = profiles;
        this.fetcher = fetcher;
        this.window = window;
        this.maxOpen = maxOpen;
        this.refillDelay = refillDelay;
        this.reads = new SubmissionReads(fetcher, maxManifestBytes, reads);
    }

    @Override
    public void process(Exchange exchange) throws Exception {
        HeldBatch lock = BatchExchange.lock(exchange);
        Batch batch = lock.batch();
        BatchSubmission s = batch.submission();
        reads.forgetOld();
        Profile profile = profiles.find(s.profileName()).orElse(null);
        if (profile == null) {
            refuse(exchange, "unknown profile '" + s.profileName() + "'");
            return;
        }
        int before = batch.status().jobsCreated();
        // a held collection holds its jobs, not its batches, as Merritt does (issue 42): the jobs are
        // made, and each one's pending step moves it to held, where the Admin Tool's release reaches it
        try {
            if (!batch.status().allJobsCreated()) {
                int room = Math.min(window - batch.count(BatchRef.PROCESSING), maxOpen - store.jobs().openCount());
                if (room <= 0) {
                    BatchExchange.stay(exchange, "waiting for room: " + batch.count(BatchRef.PROCESSING)
                            + " open job(s) of this batch (window " + window + "), at most " + maxOpen
                            + " in the queue", refillDelay);
                    return;
                }
                String reading = createSome(lock, s, profile, room);
                if (reading != null) {
                    // the read goes on without this worker: other batches are not held up by a slow server
                    BatchExchange.stay(exchange, reading, refillDelay);
                    return;
                }
            }
        } catch (ManifestException | FetchException | IllegalArgumentException e) {
            if (before > 0) {
                // checked whole before the first job: a change since (a policy, the file) is the queue's trouble
                throw e;
            }
            refuse(exchange, e.getMessage());
            return;
        }
        BatchStatus now = lock.batch().status();
        if (before == 0 && now.jobsCreated() > 0) {
            BatchExchange.jobsQueued(exchange);
        }
        if (!now.allJobsCreated()) {
            String made = now.jobsCreated() + " of " + (now.jobsTotal() == null ? "its" : now.jobsTotal())
                    + " jobs created";
            BatchExchange.stay(exchange, now.jobsCreated() > before ? made : made + "; waiting for room: other batches "
                    + "filled the queue meanwhile (at most " + maxOpen + " open jobs)", refillDelay);
            return;
        }
        // every job exists: not read again
        Files.deleteIfExists(store.ingestHome().resolve(batch.id()).resolve(MANIFEST_FILE));
        LOG.info("batch {}: {} job(s) for profile {}", batch.id(), now.jobsTotal(), profile.id());
        BatchExchange.next(exchange, BatchState.PROCESSING, now.jobsTotal() + " job(s) created");
    }

    /** Creates the next jobs that fit in {@code room}; or, while the depositor's server is still read, says so. */
    private String createSome(HeldBatch lock, BatchSubmission s, Profile profile, int room)
            throws FetchException, IOException {
        String type = s.type() == null ? "" : s.type().strip().toLowerCase(Locale.ROOT);
        if (PayloadTypes.AUTO.equals(type)) {
            // the submission named no type and its URL's name did not decide: its first bytes do, as Merritt infers it
            Optional<String> read = reads.typeByContent(lock.bid(), s);
            if (read.isEmpty()) {
                return "reading the first bytes of its payload URL to choose its type";
            }
            type = read.get();
            LOG.info("batch {}: no type given; {} is a {}", lock.bid(), s.payloadUrl(), type);
        }
        CheckmManifest.Kind kind = switch (type) {
            case "file", "container", "object-manifest", "manifest" -> null;
            case "batch-manifest" -> CheckmManifest.Kind.BATCH;
            case "container-batch-manifest" -> CheckmManifest.Kind.CONTAINER_BATCH;
            case "single-file-batch-manifest" -> CheckmManifest.Kind.SINGLE_FILE_BATCH;
            default -> throw new IllegalArgumentException("unknown submission type '" + s.type() + "' (expected file, "
                    + "container, object-manifest, batch-manifest, container-batch-manifest or "
                    + "single-file-batch-manifest)");
        };
        if (kind == null) {
            String payloadType = switch (type) {
                case "file" -> "file";
                case "container" -> "container";
                default -> "object_manifest";
            };
            store.batches().createMoreJobs(lock, List.of(single(s, profile, payloadType)), 1, maxOpen);
            return null;
        }
        String payloadType = switch (kind) {
            case CONTAINER_BATCH -> "container";
            case SINGLE_FILE_BATCH -> "file";
            default -> "object_manifest";
        };
        Path file = store.ingestHome().resolve(lock.bid()).resolve(MANIFEST_FILE);
        BatchStatus status = lock.batch().status();
        int total;
        if (status.jobsTotal() == null || !Files.exists(file)) {
            // read into a file of its own, off this thread; put in place here, under the batch's lock
            Path part = file.resolveSibling(MANIFEST_FILE + "." + UUID.randomUUID() + ".part");
            Optional<SubmissionReads.Checked> read = reads.manifest(lock.bid(), s, kind, part,
                    row -> job(s, profile, row, "file", 0, 0L));
            if (read.isEmpty()) {
                return "reading its manifest from its payload URL";
            }
            Files.move(read.get().part(), file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            total = read.get().rows();
        } else {
            total = status.jobsTotal();
        }
        int priority = priority(profile, total);
        List<NewJob> next = new ArrayList<>();
        try (CheckmReader reader = CheckmReader.open(file, status.cursor() == null ? 0 : status.cursor())) {
            for (CheckmManifest.Row row = reader.next(); row != null && next.size() < room
                    && status.jobsCreated() + next.size() < total; row = reader.next()) {
                next.add(job(s, profile, row, payloadType, priority, reader.offset()));
            }
        }
        store.batches().createMoreJobs(lock, next, total, maxOpen);
        return null;
    }

    private static void refuse(Exchange exchange, String message) {
        BatchExchange.next(exchange, BatchState.REPORTING, "submission refused: " + message, message);
    }

    private NewJob single(BatchSubmission s, Profile profile, String payloadType) throws FetchException {
        fetcher.policy().check(s.payloadUrl());
        if (s.digestType() != null && !s.digestType().isBlank()) {
            DigestAlgorithm.fromName(s.digestType());
        }
        JobConfiguration c = new JobConfiguration(null, profile.id(), s.submitter(), s.payloadUrl(), payloadType,
                s.responseForm(), s.submissionMode(), null, s.localIdentifier(), s.fileName(), s.digestType(),
                s.digestValue(), null, s.ercWho(), s.ercWhat(), s.ercWhen(), s.ercWhere(), s.dublinCore());
        return new NewJob(c, new Identifiers(blankToNull(s.primaryIdentifier()), localIds(s.localIdentifier())),
                priority(profile, 1));
    }

    private NewJob job(BatchSubmission s, Profile profile, CheckmManifest.Row row, String payloadType, int priority,
            long cursor) {
        try {
            fetcher.policy().check(row.fileUrl());
            if (row.hashAlgorithm() != null) {
                DigestAlgorithm.fromName(row.hashAlgorithm());
            }
        } catch (FetchException | IllegalArgumentException e) {
            throw new ManifestException(row.line(), e.getMessage());
        }
        List<String> localIds = row.localIdentifiers();
        JobConfiguration c = new JobConfiguration(null, profile.id(), s.submitter(), row.fileUrl(), payloadType,
                s.responseForm(), s.submissionMode(), null, localIds.isEmpty() ? null : String.join(";", localIds),
                row.fileName(), row.hashAlgorithm(), row.hashValue(), row.fileSize(),
                first(row.creator(), s.ercWho()), first(row.title(), s.ercWhat()), first(row.date(), s.ercWhen()),
                s.ercWhere(), s.dublinCore());
        int bytes = QueueJson.write(c).length + 512;
        if (bytes > QueueLimits.NODE_BYTES) {
            throw new ManifestException(row.line(), "the object's description would be " + bytes + " bytes with the "
                    + "submission's; the limit is " + QueueLimits.NODE_BYTES + " bytes");
        }
        return new NewJob(c, new Identifiers(row.primaryIdentifier(), localIds), priority, cursor);
    }

    /**
     * The profile's Priority when it has one; otherwise small batches run before large ones,
     * so a depositor's single object is not stuck behind someone's ten thousand.
     */
    static int priority(Profile profile, int jobs) {
        if (profile.priority() != null) {
            return profile.priority();
        }
        if (jobs <= 10) {
            return 3;
        }
        if (jobs <= 100) {
            return 5;
        }
        return jobs <= 1000 ? 7 : 9;
    }

    private static List<String> localIds(String value) {
        if (value == null || value.isBlank()) {
            return List.of();
        }
        return Arrays.stream(value.split(";")).map(String::strip).filter(v -> !v.isEmpty()).distinct().toList();
    }

    private static String first(String a, String b) {
        return a != null && !a.isBlank() ? a : b;
    }

    private static String blankToNull(String v) {
        return v == null || v.isBlank() ? null : v.strip();
    }
}
