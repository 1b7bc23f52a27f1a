package org.cdlib.mrt.ingestqueue.fetch;

import java.io.IOException;
import java.net.URI;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.util.OptionalLong;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Collection;
import org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.cdlib.mrt.ingestqueue.fetch.Fetcher.describe;

/**
 * The file one download attempt writes: each chunk written and digested (by every algorithm asked
 * for, on a thread of their own: {@link StreamDigests}) as it arrives, then flushed to disk, so the length and
 * digests are of the bytes on disk.
 * A write that fails names the file, not the URL: the disk is at fault.
 * <p>
 * With a {@link ResumeRecord} file, a body that can be resumed (the answer served byte ranges with a
 * strong validator) is recorded every {@link #RESUME_EVERY_BYTES} and when the attempt fails, the file
 * flushed first, so the next attempt (or the job's next holder, on another host) asks only for the
 * rest: {@link #resumeFrom()} reads the bytes on disk once to seed the digests. A body that starts
 * from byte 0 is written into a new file (a writer that lost its job may still hold the old one open).
 */
final class DownloadFile implements Source.Sink, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DownloadFile.class);
    /** How often the filesystem's free space is asked while a body is written. */
    static final long DISK_CHECK_BYTES = 16L * 1024 * 1024;
    /** How often a resumable body's progress is flushed and recorded: what a kill loses at most. */
    static final long RESUME_EVERY_BYTES = 64L * 1024 * 1024;

    private final Path file;
    private final Collection<DigestAlgorithm> algorithms;
    private StreamDigests digests;
    private FileChannel ch;
    private final URI uri;
    private final OptionalLong declared;
    private final int minFreePercent;
    private final Path resume;
    private String validator;
    private long written;
    private long recorded;
    private long nextDiskCheck;

    DownloadFile(Path file, Collection<DigestAlgorithm> algorithms) throws FetchException {
        this(file, algorithms, file.toUri(), OptionalLong.empty(), 0, null);
    }

    /**
     * A file for the body at {@code uri}, refused beyond {@code declared} bytes (the size the
     * depositor gave), and when the filesystem would keep less than {@code minFreePercent} free.
     */
    DownloadFile(Path file, Collection<DigestAlgorithm> algorithms, URI uri, OptionalLong declared, int minFreePercent,
            Path resume) throws FetchException {
        this.file = file;
        this.algorithms = algorithms;
        this.digests = new StreamDigests(algorithms);
        this.uri = uri;
        this.declared = declared;
        this.minFreePercent = minFreePercent;
        this.resume = resume;
        this.ch = open();
    }

    /**
     * Where this file may be continued: the bytes its record says are on disk, read once here to seed the
     * digests; null (the record cleared) when there is none, it is for another URL, or the file is shorter.
     */
    RangeAnswer.From resumeFrom() throws FetchException {
        ResumeRecord r = resume == null ? null : ResumeRecord.read(resume);
        try {
            if (r == null || !r.url().equals(uri.toString()) || r.bytes() == 0 || ch.size() < r.bytes()
                    || declared.isPresent() && r.bytes() > declared.getAsLong()) {
                forget();
                return null;
            }
            ByteBuffer b = ByteBuffer.allocate(256 * 1024);
            ch.position(0);
            for (long left = digests.any() ? r.bytes() : 0; left > 0; ) { // no digest asked: nothing to read
                b.clear().limit((int) Math.min(b.capacity(), left));
                int n = ch.read(b);
                if (n < 0) {
                    throw new IOException("ended before " + r.bytes() + " bytes");
                }
                digests.add(b.array(), 0, n);
                left -= n;
            }
            written = r.bytes();
            recorded = written;
            validator = r.validator();
            return new RangeAnswer.From(r.bytes(), r.validator());
        } catch (IOException e) {
            throw new FetchException("cannot read " + file + ": " + describe(e), e);
        }
    }

    @Override
    public void begins(long at, String validator) throws IOException {
        try {
            if (at == 0) {
                if (ch.size() > 0) {
                    // a new file, not the old one truncated: a writer that lost the job may still write into that
                    ch.close();
                    Files.delete(file);
                    ch = open();
                }
                written = 0;
                recorded = 0;
                digests.close();
                digests = new StreamDigests(algorithms);
            } else {
                ch.truncate(at);
                ch.position(at);
            }
        } catch (IOException e) {
            throw cannotWrite(e);
        }
        this.validator = validator;
        if (validator == null || at == 0) {
            forget(); // what was recorded is of another answer
        }
        nextDiskCheck = written;
    }

    @Override
    public void announced(long bytes) throws IOException {
        if (declared.isPresent() && written + bytes > declared.getAsLong()) {
            throw new AnswerLimitException(uri + ": the server announces " + (written + bytes)
                    + " bytes, more than the " + declared.getAsLong() + " declared for the file");
        }
        String full = diskShort(bytes);
        if (full != null) {
            FileStore store = Files.getFileStore(file); // nothing written yet: the job is tried again later
            throw new NoRoomYet(full + "; waits for room", bytes, store.getUsableSpace(),
                    store.getTotalSpace() / 100 * minFreePercent);
        }
    }

    /**
     * Flushes what is written and records it for the next attempt, when the body can be resumed. Told
     * when an attempt fails: a failure here is logged, not thrown over the attempt's own.
     */
    void checkpoint() {
        if (resume == null || validator == null || written == recorded) {
            return;
        }
        try {
            ch.force(false);
            new ResumeRecord(uri.toString(), validator, written).write(resume);
            recorded = written;
        } catch (IOException e) {
            LOG.warn("{}: cannot record the {} bytes written for a resume: {}", file, written, describe(e));
        }
    }

    /** Clears the record: the file is complete, or not to be continued (refused, or from another answer). */
    void forget() throws FetchException {
        if (resume == null) {
            return;
        }
        try {
            ResumeRecord.clear(resume);
        } catch (IOException e) {
            throw new FetchException("cannot remove " + resume + ": " + describe(e), e);
        }
    }

    /**
     * Refuses a body that would leave the filesystem with less than its
     * reserve free (a body without Content-Length is checked as it comes).
     */
    private void checkDisk(long more) throws IOException {
        String full = diskShort(more);
        if (full != null) {
            throw new AnswerLimitException(full);
        }
    }

    /** Why {@code more} bytes would leave the filesystem below its reserve, or null when they fit. */
    private String diskShort(long more) throws IOException {
        if (minFreePercent <= 0) {
            return null;
        }
        FileStore store = Files.getFileStore(file);
        long reserve = store.getTotalSpace() / 100 * minFreePercent;
        if (store.getUsableSpace() - more >= reserve) {
            return null;
        }
        return uri + ": the body would leave the working filesystem less than " + minFreePercent + "% free ("
                + store.getUsableSpace() + " bytes usable, " + more
                + " more to write; limit ingest.download.min-free-percent)";
    }

    @Override
    public void accept(ByteBuffer b) throws IOException {
        long after = written + b.remaining();
        if (declared.isPresent() && after > declared.getAsLong()) {
            throw new AnswerLimitException(uri + ": the body is larger than the " + declared.getAsLong()
                    + " bytes declared for the file");
        }
        if (after >= nextDiskCheck) {
            checkDisk(DISK_CHECK_BYTES);
            nextDiskCheck = after + DISK_CHECK_BYTES;
        }
        // copied into the digests' own reused buffers and written from the caller's: no array a chunk (a new one a
        // chunk was a byte of garbage per byte downloaded; G1 grew the heap by ~170 MB under it)
        digests.add(b.array(), b.arrayOffset() + b.position(), b.remaining());
        try {
            while (b.hasRemaining()) {
                ch.write(b);
            }
        } catch (IOException e) {
            throw cannotWrite(e);
        }
        written = after;
        if (written - recorded >= RESUME_EVERY_BYTES) {
            checkpoint();
        }
    }

    /** Flushes the file to disk, clears its record and tells what it holds: its length and the digests. */
    Fetcher.Fetched finish() throws FetchException {
        try {
            ch.force(true);
        } catch (IOException e) {
            throw cannotWrite(e);
        }
        forget();
        try {
            return new Fetcher.Fetched(written, digests.finish());
        } catch (IOException e) {
            throw new FetchException("cannot digest " + file + ": " + describe(e), e);
        }
    }

    @Override
    public void close() throws IOException {
        digests.close();
        ch.close();
    }

    private FileChannel open() throws FetchException {
        try {
            // not truncated: a resume continues it; a body from byte 0 starts a new file (begins)
            return FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw cannotWrite(e);
        }
    }

    private FetchException cannotWrite(IOException e) {
        return new FetchException("cannot write " + file + ": " + describe(e), e);
    }
}
