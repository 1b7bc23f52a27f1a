package org.cdlib.mrt.ingestqueue.fetch;

import java.io.IOException;
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
    private final Path file;
    private final List<DigestAlgorithm.Digester> digesters;
    private final FileChannel ch;

    DownloadFile(Path file, Collection<DigestAlgorithm> algorithms) throws FetchException {
        this.file = file;
        this.digesters = algorithms.stream().distinct().map(DigestAlgorithm::newDigester).toList();
        this.ch = open();
    }

    @Override
    public void accept(ByteBuffer b) throws IOException {
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
