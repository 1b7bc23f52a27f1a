package org.cdlib.mrt.ingestqueue.batch;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.cdlib.mrt.ingestqueue.camel.BatchExchange;
import org.cdlib.mrt.ingestqueue.fetch.FetchException;
import org.cdlib.mrt.ingestqueue.fetch.Fetcher;
import org.cdlib.mrt.ingestqueue.manifest.CheckmManifest;
import org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm;
import org.cdlib.mrt.ingestqueue.manifest.ManifestException;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.profile.ProfileRegistry;
import org.cdlib.mrt.ingestqueue.queue.Batch;
import org.cdlib.mrt.ingestqueue.queue.BatchLock;
import org.cdlib.mrt.ingestqueue.queue.BatchState;
import org.cdlib.mrt.ingestqueue.queue.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.NewJob;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Batch Pending: turns a submission into one job per object (CONTRACTS §1). A submission the
 * queue cannot turn into jobs — unknown profile, refused URL, corrupt or empty manifest — sends
 * the batch to reporting with a message naming the line and the problem, before any job exists,
 * so the depositor is told and nothing is half-created. Creation itself is resumable: a host
 * that takes over a batch whose creation was interrupted continues after the jobs already made.
 */
public final class BatchPendingStep implements Processor {
    private static final Logger LOG = LoggerFactory.getLogger(BatchPendingStep.class);

    private final QueueStore store;
    private final ProfileRegistry profiles;
    private final Fetcher fetcher;

    public BatchPendingStep(QueueStore store, ProfileRegistry profiles, Fetcher fetcher) {
        this.store = store;
        this.profiles = profiles;
        this.fetcher = fetcher;
    }

    @Override
    public void process(Exchange exchange) throws Exception {
        BatchLock lock = BatchExchange.lock(exchange);
        Batch batch = lock.batch();
        BatchSubmission s = batch.submission();
        Profile profile = profiles.find(s.profileName()).orElse(null);
        if (profile == null) {
            refuse(exchange, "unknown profile '" + s.profileName() + "'");
            return;
        }
        if (store.isCollectionHeld(profile.id())) {
            BatchExchange.next(exchange, BatchState.HELD, "collection " + profile.id() + " is held");
            return;
        }
        List<NewJob> jobs;
        try {
            jobs = jobsOf(s, profile);
        } catch (ManifestException | FetchException | IllegalArgumentException e) {
            refuse(exchange, e.getMessage());
            return;
        }
        if (jobs.isEmpty()) {
            BatchExchange.next(exchange, BatchState.REPORTING, "the submission holds no object");
            return;
        }
        store.createJobs(lock, jobs);
        LOG.info("batch {}: {} job(s) at priority {} for profile {}", batch.id(), jobs.size(), jobs.get(0).priority(), profile.id());
        BatchExchange.next(exchange, BatchState.PROCESSING, jobs.size() + " job(s) created");
    }

    private static void refuse(Exchange exchange, String message) {
        BatchExchange.error(exchange, message);
        BatchExchange.next(exchange, BatchState.REPORTING, "submission refused: " + message);
    }

    List<NewJob> jobsOf(BatchSubmission s, Profile profile) throws FetchException {
        String type = s.type() == null ? "" : s.type().strip().toLowerCase(Locale.ROOT);
        return switch (type) {
            case "file" -> List.of(single(s, profile, "file"));
            case "container" -> List.of(single(s, profile, "container"));
            case "object-manifest", "manifest" -> List.of(single(s, profile, "object_manifest"));
            case "batch-manifest" -> fromManifest(s, profile, CheckmManifest.Kind.BATCH, "object_manifest");
            case "container-batch-manifest" -> fromManifest(s, profile, CheckmManifest.Kind.CONTAINER_BATCH, "container");
            case "single-file-batch-manifest" -> fromManifest(s, profile, CheckmManifest.Kind.SINGLE_FILE_BATCH, "file");
            default -> throw new IllegalArgumentException("unknown submission type '" + s.type() + "' (expected file, container, "
                    + "object-manifest, batch-manifest, container-batch-manifest or single-file-batch-manifest)");
        };
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

    private List<NewJob> fromManifest(BatchSubmission s, Profile profile, CheckmManifest.Kind expected, String payloadType)
            throws FetchException {
        URI uri = fetcher.policy().check(s.payloadUrl());
        CheckmManifest manifest = CheckmManifest.parse(fetcher.text(uri, CheckmManifest.MAX_BATCH_MANIFEST_BYTES));
        if (manifest.kind() != expected) {
            throw new ManifestException(0, "the submission's type is " + s.type() + " but the manifest's profile is "
                    + manifest.kind().profileName() + " (expected " + expected.profileName() + ")");
        }
        int priority = priority(profile, manifest.rows().size());
        List<NewJob> jobs = new ArrayList<>();
        for (CheckmManifest.Row row : manifest.rows()) {
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
            jobs.add(new NewJob(c, new Identifiers(row.primaryIdentifier(), localIds), priority));
        }
        return jobs;
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
        return java.util.Arrays.stream(value.split(";")).map(String::strip).filter(v -> !v.isEmpty()).distinct().toList();
    }

    private static String first(String a, String b) {
        return a != null && !a.isBlank() ? a : b;
    }

    private static String blankToNull(String v) {
        return v == null || v.isBlank() ? null : v.strip();
    }
}
