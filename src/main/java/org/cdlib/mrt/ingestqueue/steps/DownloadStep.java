package org.cdlib.mrt.ingestqueue.steps;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.fetch.Container;
import org.cdlib.mrt.ingestqueue.fetch.DownloadRecord;
import org.cdlib.mrt.ingestqueue.fetch.FetchException;
import org.cdlib.mrt.ingestqueue.fetch.Fetcher;
import org.cdlib.mrt.ingestqueue.fetch.NoRoomYet;
import org.cdlib.mrt.ingestqueue.fetch.ObjectFile;
import org.cdlib.mrt.ingestqueue.fetch.PartialDownload;
import org.cdlib.mrt.ingestqueue.fetch.Payload;
import org.cdlib.mrt.ingestqueue.fetch.ResumeRecord;
import org.cdlib.mrt.ingestqueue.fetch.SafeName;
import org.cdlib.mrt.ingestqueue.fetch.StoppingException;
import org.cdlib.mrt.ingestqueue.fetch.WorkingDirectory;
import org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm;
import org.cdlib.mrt.ingestqueue.queue.jobs.StepWrites;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code downloadStep}: fetches every file of the object into {@code working_dir/producer/}
 * (in parallel, bounded, with retries), unpacks a container there, checks every size and
 * digest the depositor supplied, and sets space_needed to the bytes actually in producer/.
 * <p>
 * A file is written to its {@link PartialDownload} {@code .download/<key>.part} and moved into
 * producer/ only once complete and checked, then recorded in {@link DownloadRecord}; a requeued job
 * therefore fetches only what is missing or wrong. A transfer that broke leaves its partial file
 * and {@link ResumeRecord} there, so the job's next holder asks the server only for the rest.
 * When any file fails, the others are still fetched and the job
 * fails with a message naming each failed file or URL and its cause.
 */
public final class DownloadStep implements Processor {
    private static final Logger LOG = LoggerFactory.getLogger(DownloadStep.class);
    private static final int MESSAGES_SHOWN = 5;

    private final Fetcher fetcher;
    private final Path ingestHome;
    private final RoomCheck room;
    private final List<DigestAlgorithm> stored;
    /** Where a job waiting for room says so in its status; null: in the log line alone (a step tested alone). */
    private final StepWrites writes;

    public DownloadStep(Fetcher fetcher, Path ingestHome) {
        this(fetcher, ingestHome, FreeSpace.of(ingestHome), 1, List.of(), null);
    }

    /**
     * {@code disk} is asked again right before each file of a known size is fetched: a file that would not fit now
     * beside {@code copies} of itself (storage's copy on the same filesystem) sends the job back to wait.
     * {@code stored}: the digests storing needs of each file (the storage manifest's SHA-256, storage's own),
     * computed on the download's stream and kept in the {@link DownloadRecord}, so storing reads no file again.
     */
    public DownloadStep(Fetcher fetcher, Path ingestHome, FreeSpace disk, int copies, List<DigestAlgorithm> stored) {
        this(fetcher, ingestHome, disk, copies, stored, null);
    }

    /**
     * As {@link #DownloadStep(Fetcher, Path, FreeSpace, int, List)}; a job that waits for room shows the numbers in
     * its status message ({@code writes}), written when they change and cleared once a file of it goes on
     * downloading.
     */
    public DownloadStep(Fetcher fetcher, Path ingestHome, FreeSpace disk, int copies, List<DigestAlgorithm> stored,
            StepWrites writes) {
        this.fetcher = fetcher;
        this.ingestHome = ingestHome;
        this.room = new RoomCheck(disk, copies, fetcher.settings().answers().minFreePercent());
        this.stored = List.copyOf(stored);
        this.writes = writes;
    }

    @Override
    public void process(Exchange exchange) throws Exception {
        Job job = JobExchange.job(exchange);
        HeldJob lock = JobExchange.lock(exchange);
        long bytes;
        AtomicBoolean cleared = new AtomicBoolean();
        try {
            bytes = download(job.id(), job.configuration(), lock::verifyHeld, () -> {
                if (writes != null && cleared.compareAndSet(false, true)) {
                    try {
                        writes.statusMessage(lock, null); // the wait is over: writes only when a message is shown
                    } catch (RuntimeException e) {
                        // what an operator reads, not the download's: a lost lock is caught by the fence before
                        // any file is kept, ZooKeeper's trouble by the job's move
                        LOG.warn("job {}: its status message not cleared: {}", job.id(), e.getMessage());
                    }
                }
            });
        } catch (StoppingException | NoRoomYet e) {
            // what is complete is recorded; the rest is fetched after the start, or once there is room
            if (e instanceof NoRoomYet room && writes != null) {
                writes.statusMessage(lock, room.statusMessage()); // the operator sees why (a write when it changes)
            }
            JobExchange.stay(exchange, e.getMessage());
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FetchException("download interrupted (the service is stopping); requeue to resume", e);
        }
        JobExchange.change(exchange, c -> c.withSpaceNeeded(bytes));
    }

    /** Downloads the object of a job; returns the bytes now in producer/. */
    public long download(String jid, JobConfiguration c) throws FetchException, InterruptedException {
        return download(jid, c, () -> { });
    }

    /**
     * As {@link #download(String, JobConfiguration)}, with a fence checked before each complete file
     * is moved into producer/ (or a container unpacked there): a worker that lost its job's lock
     * keeps nothing in the shared working directory another host now owns.
     */
    public long download(String jid, JobConfiguration c, Runnable fence) throws FetchException, InterruptedException {
        return download(jid, c, fence, () -> { });
    }

    /** As {@link #download(String, JobConfiguration, Runnable)}; {@code goesOn} told as a file's room is found. */
    long download(String jid, JobConfiguration c, Runnable fence, Runnable goesOn)
            throws FetchException, InterruptedException {
        WorkingDirectory wd = WorkingDirectory.of(ingestHome, c.workingDir());
        Payload payload = Payload.of(c, fetcher);
        try {
            // asked first: createDirectories on what exists (a retry) or under a missing parent (a
            // first download) throws and catches on the way, a few a job on the real path
            for (Path dir : new Path[] {wd.root(), wd.producer(), wd.downloads()}) {
                if (!Files.isDirectory(dir)) {
                    Files.createDirectories(dir);
                }
            }
            PartialDownload.removeUnresumable(wd.downloads());
        } catch (IOException e) {
            throw new FetchException("cannot prepare " + wd.root() + ": " + e.getMessage(), e);
        }
        DownloadRecord record = DownloadRecord.of(wd);
        String done = payload.type() == Payload.Type.CONTAINER
                ? container(payload.container(), wd, record, fence, goesOn)
                : files(payload.files(), wd, record, fence, goesOn);
        long bytes = bytesIn(wd.producer());
        LOG.info("job {} batch {}: {} from {}; {} bytes in producer/", jid, c.batchId(), done, payload.source(), bytes);
        return bytes;
    }

    private String files(List<ObjectFile> files, WorkingDirectory wd, DownloadRecord record, Runnable fence,
            Runnable goesOn) throws FetchException, InterruptedException {
        AtomicInteger skipped = new AtomicInteger();
        List<FetchException> failures = fetcher.inParallel(files, f -> {
            try {
                Path target = SafeName.resolve(wd.producer(), f.name());
                if (record.isComplete(f, target)) {
                    skipped.incrementAndGet();
                    return null;
                }
                fetch(f, "producer/" + f.name(), wd, fence, goesOn, (part, got) -> {
                    if (!Files.isDirectory(target.getParent())) {
                        Files.createDirectories(target.getParent());
                    }
                    Files.move(part, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                    record.add(f, target, got.digests());
                });
                return null;
            } catch (FetchException e) {
                return e;
            }
        }).stream().filter(Objects::nonNull).toList();
        for (FetchException e : failures) {
            if (e instanceof StoppingException || e instanceof NoRoomYet) {
                throw e; // not the depositor's failure: the job stays, its other files' failures told next time
            }
        }
        if (!failures.isEmpty()) {
            throw new FetchException(summary(failures.stream().map(FetchException::getMessage).toList(),
                    files.size()));
        }
        removeOthers(wd.producer(), files);
        return "downloaded " + (files.size() - skipped.get()) + " of " + files.size() + " files ("
                + skipped.get() + " already complete)";
    }

    private String container(ObjectFile f, WorkingDirectory wd, DownloadRecord record, Runnable fence,
            Runnable goesOn) throws FetchException {
        DownloadRecord.Entry done = record.container(f);
        if (done != null && bytesIn(wd.producer()) == done.size() && (!f.hasDigest()
                || f.digestType().matches(f.digestValue(), done.digests().get(f.digestType().checkmName())))) {
            return "container " + f.name() + " already unpacked";
        }
        AtomicInteger count = new AtomicInteger();
        fetch(f, "container " + f.name(), wd, fence, goesOn, (part, got) -> {
            emptyDirectory(wd.producer());
            try {
                count.set(Container.unpack(part, f.name(), wd.producer(), fetcher.settings().containers()));
            } catch (FetchException e) {
                emptyDirectory(wd.producer()); // a refused container leaves nothing behind
                throw e;
            }
            record.addContainer(f, bytesIn(wd.producer()), got.digests());
        });
        return "unpacked " + count.get() + " files of container " + f.name();
    }

    private interface Keep {
        void accept(Path part, Fetcher.Fetched got) throws IOException;
    }

    /**
     * Fetches {@code f} into its .part file (continuing what an earlier attempt recorded), checks it, and hands it
     * to {@code keep}. A transfer that broke keeps its partial file beside its record; anything else removes it.
     */
    private void fetch(ObjectFile f, String label, WorkingDirectory wd, Runnable fence, Runnable goesOn, Keep keep)
            throws FetchException {
        PartialDownload partial = PartialDownload.of(wd, f.name());
        Path part = partial.part();
        boolean resumable = false;
        try {
            room.check(f, label, partial);
            if (f.size() != null) {
                goesOn.run(); // a file of unknown size is checked at its answer's length: its wait ends with the move
            }
            // a body beyond the size the depositor declared is cut there, not written whole and then refused
            Fetcher.Fetched got = fetcher.download(f.url(), part, partial.resume(), algorithms(f),
                    f.size() != null ? OptionalLong.of(f.size()) : OptionalLong.empty());
            if (f.size() != null && got.bytes() != f.size()) {
                throw new FetchException(label + ": size mismatch, expected " + f.size() + " bytes, got "
                        + got.bytes() + " (from " + f.url() + ")");
            }
            if (f.hasDigest()) {
                String actual = got.digests().get(f.digestType());
                if (!f.digestType().matches(f.digestValue(), actual)) {
                    throw new FetchException(label + ": " + f.digestType().checkmName() + " mismatch, expected "
                            + f.digestValue() + ", got " + actual + " (from " + f.url() + ")");
                }
            }
            try {
                fence.run();
            } catch (RuntimeException lost) {
                throw new FetchException(label + ": not kept: " + lost.getMessage(), lost);
            }
            keep.accept(part, got);
        } catch (FetchException e) {
            resumable = partial.resumable();
            throw e;
        } catch (IOException e) {
            throw new FetchException(label + ": cannot store (" + e + ")", e);
        } finally {
            if (!resumable) {
                try {
                    Files.deleteIfExists(part);
                } catch (IOException e) {
                    LOG.warn("cannot remove {}: {}", part, e.toString());
                }
            }
        }
    }

    /** The depositor's digest of {@code f}, if any, and storing's. */
    private List<DigestAlgorithm> algorithms(ObjectFile f) {
        if (!f.hasDigest()) {
            return stored;
        }
        List<DigestAlgorithm> all = new ArrayList<>(stored);
        all.add(f.digestType());
        return all;
    }

    private static String summary(List<String> failures, int total) {
        if (failures.size() == 1) {
            return failures.get(0);
        }
        String shown = String.join("; ", failures.subList(0, Math.min(MESSAGES_SHOWN, failures.size())));
        return failures.size() + " of " + total + " files failed: " + shown
                + (failures.size() > MESSAGES_SHOWN ? "; ..." : "");
    }

    /** Removes files in producer/ that the object no longer lists (left by an earlier manifest). */
    private static void removeOthers(Path producer, List<ObjectFile> files) throws FetchException {
        Set<Path> keep = new HashSet<>();
        for (ObjectFile f : files) {
            keep.add(SafeName.resolve(producer, f.name()));
        }
        List<Path> stale = new ArrayList<>();
        try (var walk = Files.walk(producer)) {
            walk.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)
                            && !keep.contains(p.toAbsolutePath().normalize()))
                    .forEach(stale::add);
            for (Path p : stale) {
                LOG.info("removing {}: not part of the object", p);
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new FetchException("cannot tidy " + producer + ": " + e, e);
        }
    }

    static void emptyDirectory(Path dir) throws IOException {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                if (e != null) {
                    throw e;
                }
                if (!d.equals(dir)) {
                    Files.delete(d);
                }
                return FileVisitResult.CONTINUE;
            }
        });
    }

    static long bytesIn(Path dir) throws FetchException {
        AtomicLong n = new AtomicLong();
        try (var walk = Files.walk(dir)) {
            walk.forEach(p -> {
                try {
                    BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class,
                            LinkOption.NOFOLLOW_LINKS);
                    if (a.isRegularFile()) {
                        n.addAndGet(a.size());
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            throw new FetchException("cannot measure " + dir + ": " + e.getMessage(), e);
        }
        return n.get();
    }
}
