package org.cdlib.mrt.ingestqueue.batch;

import java.io.IOException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.cdlib.mrt.ingestqueue.fetch.FetchException;

/**
 * Batch Pending's reads of a depositor's server (the first bytes of a URL that chooses a type, a
 * batch manifest), run on threads of their own so that a slow server holds its own batch only,
 * never a batch-pending worker that other depositors' batches need. A worker asks for a read's
 * result and waits at most {@code waitMs}; if the read has not ended the batch is let go (it
 * stays pending, tried again shortly) and the read goes on here. A read's result is handed to
 * the worker that asks next for the same batch, URL and purpose, then forgotten; one nobody asks
 * for again (another host took the batch) is dropped after {@link #FORGET_MS}.
 * <p>
 * One depositor (the batch's submitter) has at most {@code perSubmitter} reads under way at once,
 * so one depositor's slow servers cannot take every thread: the rest of its batches wait their
 * turn while other depositors' reads go on.
 */
final class OutsideReads {
    /** A result nobody asked for again within this long is dropped. */
    static final long FORGET_MS = 10 * 60_000L;

    private record Key(String bid, String purpose, String url) {
    }

    private static final class Read {
        final String submitter;
        final FutureTask<Object> future;
        volatile long endedAt;

        Read(String submitter, Callable<?> read) {
            this.submitter = submitter;
            this.future = new FutureTask<>(() -> {
                try {
                    return read.call();
                } finally {
                    endedAt = System.currentTimeMillis();
                }
            });
        }
    }

    private final ThreadPoolExecutor pool;
    private final int perSubmitter;
    private final long waitMs;
    private final Map<Key, Read> reads = new HashMap<>(); // guarded by this

    OutsideReads(int threads, int perSubmitter, long waitMs) {
        if (threads < 1 || perSubmitter < 1) {
            throw new IllegalArgumentException("ingest.batch.read-threads (" + threads
                    + ") and ingest.batch.reads-per-submitter (" + perSubmitter + ") must be at least 1");
        }
        AtomicInteger n = new AtomicInteger();
        // the queue holds at most perSubmitter reads per depositor with a pending batch
        this.pool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "batch-read-" + n.incrementAndGet());
            t.setDaemon(true); // a read in hand never holds the process up; its batch is read again after a restart
            return t;
        });
        this.pool.allowCoreThreadTimeOut(true);
        this.perSubmitter = perSubmitter;
        this.waitMs = waitMs;
    }

    /**
     * The result of reading {@code url} for {@code purpose} on batch {@code bid}, starting the read
     * if none is under way; empty while it runs (or waits for its depositor's turn). A failed read
     * throws its failure once, and the next call reads again.
     */
    @SuppressWarnings("unchecked")
    <T> Optional<T> result(String bid, String submitter, String purpose, String url, Callable<T> read)
            throws FetchException, IOException {
        Key key = new Key(bid, purpose, url);
        Read r;
        synchronized (this) {
            r = reads.get(key);
            if (r == null) {
                if (underWay(submitter) >= perSubmitter) {
                    return Optional.empty();
                }
                r = new Read(submitter, read);
                reads.put(key, r);
                pool.execute(r.future);
            }
        }
        try {
            Object value = r.future.get(waitMs, TimeUnit.MILLISECONDS);
            forget(key, r);
            return Optional.of((T) value);
        } catch (TimeoutException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (ExecutionException e) {
            forget(key, r);
            Throwable cause = e.getCause();
            if (cause instanceof FetchException f) {
                throw f;
            }
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(cause);
        }
    }

    /** Drops results nobody came back for, handing each to {@code discard} (a saved manifest's file is deleted). */
    synchronized void forgetOld(Consumer<Object> discard) {
        long now = System.currentTimeMillis();
        for (Iterator<Read> i = reads.values().iterator(); i.hasNext(); ) {
            Read r = i.next();
            if (r.endedAt > 0 && now - r.endedAt > FORGET_MS) {
                i.remove();
                try {
                    discard.accept(r.future.get());
                } catch (ExecutionException | InterruptedException | RuntimeException e) {
                    // a failed read left nothing to discard
                }
            }
        }
    }

    /** Reads under way now (for tests and the log). */
    synchronized int underWay() {
        return (int) reads.values().stream().filter(r -> r.endedAt == 0).count();
    }

    private int underWay(String submitter) {
        return (int) reads.values().stream().filter(r -> r.endedAt == 0 && r.submitter.equals(submitter)).count();
    }

    private synchronized void forget(Key key, Read r) {
        reads.remove(key, r);
    }
}
