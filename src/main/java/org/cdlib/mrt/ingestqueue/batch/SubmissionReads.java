package org.cdlib.mrt.ingestqueue.batch;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.cdlib.mrt.ingestqueue.fetch.FetchException;
import org.cdlib.mrt.ingestqueue.fetch.Fetcher;
import org.cdlib.mrt.ingestqueue.manifest.CheckmManifest;
import org.cdlib.mrt.ingestqueue.manifest.CheckmReader;
import org.cdlib.mrt.ingestqueue.manifest.ManifestException;
import org.cdlib.mrt.ingestqueue.manifest.PayloadTypes;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What Batch Pending reads of the depositor's server for a submission: the first bytes that choose
 * its type, and its batch manifest, saved and checked whole. Each runs on {@link OutsideReads}'
 * threads: a worker waits for it a moment, and an empty answer means the read goes on without it
 * (the batch stays pending and asks again), so a slow server holds its own batch only.
 */
final class SubmissionReads {
    private static final Logger LOG = LoggerFactory.getLogger(SubmissionReads.class);
    /** Defaults of ingest.batch.read-threads and ingest.batch.reads-per-submitter. */
    static final int READ_THREADS = 8;
    static final int READS_PER_SUBMITTER = 2;
    /** How long a worker waits for a read before it lets the batch go (a quick server answers within it). */
    static final long READ_WAIT_MS = 1_000;

    /** A batch manifest saved beside the batch's and checked whole: how many objects it lists. */
    record Checked(Path part, int rows) {
    }

    private final Fetcher fetcher;
    private final long maxManifestBytes;
    private final OutsideReads reads;

    SubmissionReads(Fetcher fetcher, long maxManifestBytes, OutsideReads reads) {
        this.fetcher = fetcher;
        this.maxManifestBytes = maxManifestBytes;
        this.reads = reads;
    }

    /** Drops the reads nobody asked for again (another host took their batch), with the manifests they saved. */
    void forgetOld() {
        reads.forgetOld(r -> {
            if (r instanceof Checked c) {
                deleteQuietly(c.part());
            }
        });
    }

    /** The submission's type chosen by the first bytes of its payload URL, as Merritt infers it; empty while read. */
    Optional<String> typeByContent(String bid, BatchSubmission s) throws FetchException, IOException {
        URI uri = fetcher.policy().check(s.payloadUrl());
        return reads.result(bid, s.submitter(), "type", s.payloadUrl(),
                () -> PayloadTypes.byContent(fetcher.head(uri, 8192)));
    }

    /**
     * The batch manifest saved as {@code part} and every row checked in one streaming pass ({@code row}
     * throws for a row whose job could not be made); empty while it is read. A manifest refused leaves no file.
     */
    Optional<Checked> manifest(String bid, BatchSubmission s, CheckmManifest.Kind kind, Path part,
            Consumer<CheckmManifest.Row> row) throws FetchException, IOException {
        return reads.result(bid, s.submitter(), "manifest " + kind, s.payloadUrl(),
                () -> fetchAndCheck(s, kind, part, row));
    }

    private Checked fetchAndCheck(BatchSubmission s, CheckmManifest.Kind expected, Path part,
            Consumer<CheckmManifest.Row> check) throws FetchException, IOException {
        try {
            return new Checked(part, saveAndCount(s, expected, part, check));
        } catch (IOException | RuntimeException e) { // a FetchException is an IOException
            deleteQuietly(part);
            throw e;
        }
    }

    private int saveAndCount(BatchSubmission s, CheckmManifest.Kind expected, Path file,
            Consumer<CheckmManifest.Row> check) throws FetchException, IOException {
        URI uri = fetcher.policy().check(s.payloadUrl());
        Files.createDirectories(file.getParent());
        fetcher.download(uri, file, List.of());
        long size = Files.size(file);
        if (size > maxManifestBytes) {
            throw new ManifestException(0, "the manifest is " + size + " bytes; the limit is " + maxManifestBytes
                    + " bytes (ingest.batch.max-manifest-bytes)");
        }
        try (CheckmReader reader = CheckmReader.open(file, 0)) {
            CheckmManifest.Kind kind = null;
            int rows = 0;
            for (CheckmManifest.Row row = reader.next(); row != null; row = reader.next()) {
                if (kind == null) {
                    kind = reader.kind();
                    requireKind(s, kind, expected);
                }
                check.accept(row); // every row checked as its job will be made
                rows++;
            }
            kind = reader.finish();
            requireKind(s, kind, expected);
            if (rows == 0) {
                throw new ManifestException(0, "a " + kind.profileName() + " must list at least one object; "
                        + "this one lists none");
            }
            return rows;
        }
    }

    private static void requireKind(BatchSubmission s, CheckmManifest.Kind kind, CheckmManifest.Kind expected) {
        if (kind != expected) {
            throw new ManifestException(0, "the submission's type is " + s.type() + " but the manifest's profile is "
                    + kind.profileName() + " (expected " + expected.profileName() + ")");
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.warn("cannot delete {}: {}", file, e.getMessage());
        }
    }
}
