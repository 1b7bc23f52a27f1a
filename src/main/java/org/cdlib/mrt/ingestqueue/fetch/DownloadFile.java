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
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm;

import static org.cdlib.mrt.ingestqueue.fetch.Fetcher.describe;

/**
 * The file one download attempt writes: created or truncated, each chunk written and digested
 * (by every algorithm asked for) as it arrives, then flushed to disk, so the length and digests
 * are of the bytes on disk. A write that fails names the file, not the URL: the disk is at fault.
 */
final class DownloadFile implements Source.Sink, AutoCloseable {
    /** How often the filesystem's free space is asked while a body is written. */
    static final long DISK_CHECK_BYTES = 16L * 1024 * 1024;

    private final Path file;
    private final List<DigestAlgorithm.Digester> digesters;
    private final FileChannel ch;
    private final URI uri;
    private final OptionalLong declared;
    private final int minFreePercent;
    private long written;
    private long nextDiskCheck;

    DownloadFile(Path file, Collection<DigestAlgorithm> algorithms) throws FetchException {
        this(file, algorithms, file.toUri(), OptionalLong.empty(), 0);
    }

    /**
     * A file for the body at {@code uri}, refused beyond {@code declared} bytes (the size the
     * depositor gave), and when the filesystem would keep less than {@code minFreePercent} free.
     */
    DownloadFile(Path file, Collection<DigestAlgorithm> algorithms, URI uri, OptionalLong declared, int minFreePercent)
            throws FetchException {
        this.file = file;
        this.digesters = algorithms.stream().distinct().map(DigestAlgorithm::newDigester).toList();
        this.uri = uri;
        this.declared = declared;
        this.minFreePercent = minFreePercent;
        this.ch = open();
    }

    @Override
    public void announced(long bytes) throws IOException {
        if (declared.isPresent() && bytes > declared.getAsLong()) {
            throw new AnswerLimitException(uri + ": the server announces " + bytes + " bytes, more than the "
                    + declared.getAsLong() + " declared for the file");
        }
        checkDisk(bytes);
    }

    /**
     * Refuses a body that would leave the filesystem with less than its
     * reserve free (a body without Content-Length is checked as it comes).
     */
    private void checkDisk(long more) throws IOException {
        if (minFreePercent <= 0) {
            return;
        }
        FileStore store = Files.getFileStore(file);
        long reserve = store.getTotalSpace() / 100 * minFreePercent;
        if (store.getUsableSpace() - more < reserve) {
            throw new AnswerLimitException(uri + ": the body would leave the working filesystem less than "
                    + minFreePercent + "% free (" + store.getUsableSpace() + " bytes usable, " + more
                    + " more to write; limit ingest.download.min-free-percent)");
        }
    }

    @Override
    public void accept(ByteBuffer b) throws IOException {
        written += b.remaining();
        if (declared.isPresent() && written > declared.getAsLong()) {
            throw new AnswerLimitException(uri + ": the body is larger than the " + declared.getAsLong()
                    + " bytes declared for the file");
        }
        if (written >= nextDiskCheck) {
            checkDisk(DISK_CHECK_BYTES);
            nextDiskCheck = written + DISK_CHECK_BYTES;
        }
        byte[] a = new byte[b.remaining()];
        b.get(a);
        for (DigestAlgorithm.Digester d : digesters) {
            d.update(a, 0, a.length);
        }
        try {
            ByteBuffer w = ByteBuffer.wrap(a);
            while (w.hasRemaining()) {
                ch.write(w);
            }
        } catch (IOException e) {
            throw cannotWrite(e);
        }
    }

    /** Flushes the file to disk and tells what was written: {@code bytes} and the digests. */
    Fetcher.Fetched finish(long bytes) throws FetchException {
        try {
            ch.force(true);
        } catch (IOException e) {
            throw cannotWrite(e);
        }
        Map<DigestAlgorithm, String> digests = new EnumMap<>(DigestAlgorithm.class);
        for (DigestAlgorithm.Digester d : digesters) {
            digests.put(d.algorithm(), d.hex());
        }
        return new Fetcher.Fetched(bytes, digests);
    }

    @Override
    public void close() throws IOException {
        ch.close();
    }

    private FileChannel open() throws FetchException {
        try {
            return FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING);
        } catch (IOException e) {
            throw cannotWrite(e);
        }
    }

    private FetchException cannotWrite(IOException e) {
        return new FetchException("cannot write " + file + ": " + describe(e), e);
    }
}
