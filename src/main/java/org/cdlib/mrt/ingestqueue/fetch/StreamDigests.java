package org.cdlib.mrt.ingestqueue.fetch;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm;

/**
 * The digests of one body by every algorithm asked, computed on a thread of their own while the body is received
 * and written: a large file's SHA-256 and SHA-512 (storing's) cost the download no time where a second core is
 * free, instead of adding to it. A chunk handed over belongs to this from then on (the caller never reuses its
 * array). At most {@link #WAITING} chunks wait; a writer faster than the digests waits for them, so memory does not
 * grow with the body.
 */
final class StreamDigests implements AutoCloseable {
    /** Chunks handed over and not yet digested, at most: 1 MiB of the 64 KiB a read brings. */
    static final int WAITING = 16;
    private static final byte[] END = new byte[0];
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final ExecutorService DIGESTING = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "digest-" + THREADS.incrementAndGet());
        t.setDaemon(true);
        return t;
    });

    private final List<DigestAlgorithm.Digester> digesters;
    private final BlockingQueue<byte[]> chunks = new ArrayBlockingQueue<>(WAITING);
    private final Future<?> digesting;

    StreamDigests(Collection<DigestAlgorithm> algorithms) {
        this.digesters = algorithms.stream().distinct().map(DigestAlgorithm::newDigester).toList();
        this.digesting = digesters.isEmpty() ? null : DIGESTING.submit(this::digest);
    }

    private Void digest() throws InterruptedException {
        for (byte[] c; (c = chunks.take()) != END; ) {
            for (DigestAlgorithm.Digester d : digesters) {
                d.update(c, 0, c.length);
            }
        }
        return null;
    }

    /** Whether any digest is asked: without one, nothing need be handed over. */
    boolean any() {
        return digesting != null;
    }

    /** {@code chunk} to digest, after those added before; the caller does not change it afterwards. */
    void add(byte[] chunk) throws IOException {
        if (digesting != null && chunk.length > 0) {
            put(chunk);
        }
    }

    private void put(byte[] chunk) throws IOException {
        try {
            chunks.put(chunk);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while digesting");
        }
    }

    /** The digests of every chunk added, once they are all digested; called once. */
    Map<DigestAlgorithm, String> finish() throws IOException {
        Map<DigestAlgorithm, String> hex = new EnumMap<>(DigestAlgorithm.class);
        if (digesting == null) {
            return hex;
        }
        put(END);
        try {
            digesting.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while digesting");
        } catch (ExecutionException e) {
            throw new IOException("cannot digest: " + e.getCause(), e.getCause());
        }
        for (DigestAlgorithm.Digester d : digesters) {
            hex.put(d.algorithm(), d.hex());
        }
        return hex;
    }

    /** Stops the digesting thread, whatever it has left (an attempt that failed, or a body begun again). */
    @Override
    public void close() {
        if (digesting != null) {
            digesting.cancel(true);
        }
    }
}
