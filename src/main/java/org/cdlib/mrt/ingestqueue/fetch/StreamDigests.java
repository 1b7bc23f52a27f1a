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
 * free, instead of adding to it. A chunk added is copied into one of at most {@link #WAITING} buffers this owns and
 * reuses (a buffer digested goes back to the free ones; one more is made only while none is free, so a small file
 * costs one): a writer faster than the digests waits for a free buffer, so
 * memory does not grow with the body, and no chunk leaves garbage behind (a new array a chunk made G1 grow the heap
 * by ~170 MB through a large object: DESIGN, "Large objects in flat memory").
 */
final class StreamDigests implements AutoCloseable {
    /** Buffers, each the size of a read's chunk: at most this many chunks wait to be digested. */
    static final int WAITING = 16;
    /** A buffer's size: the 64 KiB a read brings; a larger chunk is split. */
    static final int CHUNK = 64 * 1024;
    private static final Chunk END = new Chunk(new byte[0]);
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final ExecutorService DIGESTING = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "digest-" + THREADS.incrementAndGet());
        t.setDaemon(true);
        return t;
    });

    private final List<DigestAlgorithm.Digester> digesters;
    private final BlockingQueue<Chunk> full = new ArrayBlockingQueue<>(WAITING + 1);
    private final BlockingQueue<Chunk> free = new ArrayBlockingQueue<>(WAITING);
    private final Future<?> digesting;
    /** Buffers made so far: one at a time as the writer outruns the digests, so a small file costs one. */
    private int made;

    /** One reused buffer and how much of it holds the chunk. */
    private static final class Chunk {
        final byte[] bytes;
        int length;

        Chunk(byte[] bytes) {
            this.bytes = bytes;
        }
    }

    StreamDigests(Collection<DigestAlgorithm> algorithms) {
        this.digesters = algorithms.stream().distinct().map(DigestAlgorithm::newDigester).toList();
        this.digesting = digesters.isEmpty() ? null : DIGESTING.submit(this::digest);
    }

    private Void digest() throws InterruptedException {
        for (Chunk c; (c = full.take()) != END; ) {
            for (DigestAlgorithm.Digester d : digesters) {
                d.update(c.bytes, 0, c.length);
            }
            free.put(c);
        }
        return null;
    }

    /** The buffers made so far (at most {@link #WAITING}). */
    int made() {
        return made;
    }

    /** Whether any digest is asked: without one, nothing need be handed over. */
    boolean any() {
        return digesting != null;
    }

    /** {@code length} bytes of {@code bytes} from {@code offset} to digest, after those added before (copied). */
    void add(byte[] bytes, int offset, int length) throws IOException {
        if (digesting == null) {
            return;
        }
        for (int done = 0; done < length; ) {
            Chunk c = free.poll();
            if (c == null && made < WAITING) {
                c = new Chunk(new byte[CHUNK]);
                made++;
            } else if (c == null) {
                c = take(free);
            }
            c.length = Math.min(CHUNK, length - done);
            System.arraycopy(bytes, offset + done, c.bytes, 0, c.length);
            put(c);
            done += c.length;
        }
    }

    private Chunk take(BlockingQueue<Chunk> from) throws IOException {
        try {
            return from.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while digesting");
        }
    }

    private void put(Chunk chunk) throws IOException {
        try {
            full.put(chunk);
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
