package org.cdlib.mrt.ingestqueue.fetch;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm;

/**
 * A payload server on 127.0.0.1 serving one generated file of any size at {@code /f} (its bytes made
 * block by block from a seed, never stored), with or without byte ranges, and made to misbehave on
 * purpose: cut the connection after some bytes, answer a Range with 200, change its validator, or
 * pause at a byte until released. It counts the body bytes it sends and keeps each request's Range.
 */
public final class RangeServer implements AutoCloseable {
    static final int BLOCK = 64 * 1024;

    /** Each request's Range header ("" when none). */
    public final List<String> ranges = new CopyOnWriteArrayList<>();
    /** Body bytes written to the sockets, all requests together. */
    public final AtomicLong sent = new AtomicLong();
    /** Answers of GETs whose writing has ended (completed, cut, or failed on a closed connection). */
    public final AtomicInteger ended = new AtomicInteger();

    private final HttpServer server;
    private final long size;
    private final long seed;
    private volatile boolean acceptRanges = true;
    private volatile boolean ignoreRange;
    private volatile String etag = "\"v1\"";
    private volatile String lastModified;
    private volatile long cutAfter = -1;
    private volatile long pauseAt = -1;
    private volatile CountDownLatch paused = new CountDownLatch(1);
    private final CountDownLatch reached = new CountDownLatch(1);

    public RangeServer(long size, long seed) throws IOException {
        this.size = size;
        this.seed = seed;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 50);
        server.setExecutor(Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "range-server");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/f", this::serve);
        server.start();
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/f";
    }

    /** Without Accept-Ranges, and every Range answered with the whole file (200). */
    public RangeServer withoutRanges() {
        acceptRanges = false;
        ignoreRange = true;
        return this;
    }

    /** Accept-Ranges announced, but a Range answered with the whole file (200). */
    public RangeServer answeringRangesWhole() {
        ignoreRange = true;
        return this;
    }

    public RangeServer withEtag(String value) {
        etag = value;
        return this;
    }

    public RangeServer withLastModified(String value) {
        lastModified = value;
        return this;
    }

    /** The next answer's connection is dropped after {@code bytes} of its body (once). */
    public RangeServer cutAfter(long bytes) {
        cutAfter = bytes;
        return this;
    }

    /** Answers stop before byte {@code at} of the file until {@link #release()}. */
    public RangeServer pauseAt(long at) {
        paused = new CountDownLatch(1);
        pauseAt = at;
        return this;
    }

    /** Whether an answer has reached the pause. */
    public boolean atPause() {
        return reached.getCount() == 0;
    }

    public void release() {
        pauseAt = -1;
        paused.countDown();
    }

    /** The digest of the whole file, as the depositor would give it. */
    public String digest(DigestAlgorithm algorithm) {
        DigestAlgorithm.Digester d = algorithm.newDigester();
        byte[] b = new byte[BLOCK];
        for (long pos = 0; pos < size; pos += BLOCK) {
            block(pos / BLOCK, b);
            d.update(b, 0, (int) Math.min(BLOCK, size - pos));
        }
        return d.hex();
    }

    private void block(long index, byte[] into) {
        new SplittableRandom(seed * 31 + index).nextBytes(into);
    }

    private void serve(HttpExchange ex) throws IOException {
        String range = ex.getRequestHeaders().getFirst("Range");
        String ifRange = ex.getRequestHeaders().getFirst("If-Range");
        boolean head = "HEAD".equals(ex.getRequestMethod());
        if (!head) {
            ranges.add(range == null ? "" : range);
        }
        String validator = etag != null ? etag : lastModified;
        long start = 0;
        long end = size; // exclusive
        if (range != null && !ignoreRange && range.matches("bytes=\\d+-\\d*")
                && (ifRange == null || ifRange.equals(validator))) {
            String[] p = range.substring("bytes=".length()).split("-", -1);
            start = Long.parseLong(p[0]);
            end = p[1].isEmpty() ? size : Math.min(size, Long.parseLong(p[1]) + 1);
        }
        boolean partial = start > 0 || end < size;
        if (acceptRanges) {
            ex.getResponseHeaders().set("Accept-Ranges", "bytes");
        }
        if (etag != null) {
            ex.getResponseHeaders().set("ETag", etag);
        }
        if (lastModified != null) {
            ex.getResponseHeaders().set("Last-Modified", lastModified);
        }
        if (partial) {
            ex.getResponseHeaders().set("Content-Range", "bytes " + start + "-" + (end - 1) + "/" + size);
        }
        if (head) {
            ex.getResponseHeaders().set("Content-Length", Long.toString(size));
            ex.sendResponseHeaders(200, -1);
            ex.close();
            return;
        }
        ex.sendResponseHeaders(partial ? 206 : 200, end - start);
        OutputStream out = ex.getResponseBody();
        long cut = cutAfter;
        cutAfter = -1;
        byte[] b = new byte[BLOCK];
        long index = -1;
        try {
            for (long pos = start, here = 0; pos < end; ) {
                if (pos / BLOCK != index) {
                    index = pos / BLOCK;
                    block(index, b);
                }
                int off = (int) (pos % BLOCK);
                int n = (int) Math.min(BLOCK - off, end - pos);
                long stop = pauseAt;
                if (stop >= 0 && pos + n > stop && pos <= stop) {
                    n = (int) (stop - pos);
                }
                if (cut >= 0 && here + n > cut) {
                    n = (int) (cut - here);
                }
                out.write(b, off, n);
                sent.addAndGet(n);
                pos += n;
                here += n;
                if (cut >= 0 && here >= cut) {
                    out.flush();
                    return; // closing with bytes missing drops the connection
                }
                if (stop >= 0 && pos == stop) {
                    out.flush();
                    reached.countDown();
                    paused.await();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            ended.incrementAndGet();
            ex.close();
        }
    }

    @Override
    public void close() {
        release();
        server.stop(0);
    }
}
