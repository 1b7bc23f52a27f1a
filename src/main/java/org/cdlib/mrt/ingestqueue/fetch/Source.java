package org.cdlib.mrt.ingestqueue.fetch;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.OptionalLong;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.classic.methods.HttpHead;
import org.apache.hc.client5.http.impl.classic.CloseableHttpResponse;
import org.apache.hc.core5.http.HttpEntity;
import org.cdlib.mrt.ingestqueue.fetch.CheckedClient.StatusException;

import static org.cdlib.mrt.ingestqueue.fetch.Fetcher.describe;
import static org.cdlib.mrt.ingestqueue.fetch.Fetcher.isFile;

/**
 * The bytes at a URL, read in one attempt: a {@code file:} URL's file, or an HTTP response got
 * through the {@link CheckedClient}. It answers what a source announces (its size, a range of
 * its bytes) and streams a whole body chunk by chunk to a {@link Sink}, refusing a body shorter
 * than its Content-Length. What the chunks become, and whether to try again, is the caller's.
 */
final class Source {
    interface Sink {
        void accept(ByteBuffer buffer) throws IOException;
    }

    private final CheckedClient client;
    private final FetchSettings settings;

    Source(CheckedClient client, FetchSettings settings) {
        this.client = client;
        this.settings = settings;
    }

    /** See {@link Fetcher#size(URI)}. */
    OptionalLong size(URI uri) throws FetchException {
        if (isFile(uri)) {
            try {
                return OptionalLong.of(Files.size(Path.of(uri)));
            } catch (IOException e) {
                throw new FetchException(uri + ": " + describe(e));
            }
        }
        try (CloseableHttpResponse r = client.execute(uri, HttpHead::new)) {
            if (r.getCode() / 100 != 2) {
                throw new FetchException(uri + ": HEAD answered HTTP " + r.getCode());
            }
            return CheckedClient.length(r);
        } catch (StatusException e) {
            throw new FetchException(uri + ": HEAD answered HTTP " + e.status + (e.status / 100 == 3 ? " (redirect not followed)" : ""));
        } catch (FetchException e) {
            throw e;
        } catch (IOException e) {
            throw new FetchException(uri + ": " + describe(e));
        }
    }

    /** See {@link Fetcher#range(URI, boolean, int)}. */
    java.util.Optional<byte[]> range(URI uri, boolean fromEnd, int bytes) throws FetchException {
        if (isFile(uri)) {
            try (java.nio.channels.SeekableByteChannel ch = Files.newByteChannel(Path.of(uri))) {
                long size = ch.size();
                int n = (int) Math.min(size, bytes);
                ch.position(fromEnd ? size - n : 0);
                ByteBuffer b = ByteBuffer.allocate(n);
                while (b.hasRemaining() && ch.read(b) > 0) {
                    // reading
                }
                return java.util.Optional.of(b.array());
            } catch (IOException e) {
                throw new FetchException(uri + ": " + describe(e));
            }
        }
        try (CloseableHttpResponse r = client.execute(uri, u -> {
            HttpGet g = new HttpGet(u);
            g.setHeader("Range", fromEnd ? "bytes=-" + bytes : "bytes=0-" + (bytes - 1));
            return g;
        })) {
            if (r.getCode() != 206 || r.getEntity() == null) {
                return java.util.Optional.empty();
            }
            try (InputStream in = r.getEntity().getContent()) {
                byte[] got = in.readNBytes(bytes + 1);
                return got.length > bytes ? java.util.Optional.empty() : java.util.Optional.of(got);
            }
        } catch (StatusException e) {
            return java.util.Optional.empty();
        } catch (FetchException e) {
            throw e;
        } catch (IOException e) {
            throw new FetchException(uri + ": " + describe(e));
        }
    }

    /** Gives the whole body at {@code uri} to {@code sink}; returns its length. */
    long stream(URI uri, Sink sink) throws IOException, InterruptedException {
        if (isFile(uri)) {
            return copyFile(uri, sink);
        }
        long n = 0;
        OptionalLong announced;
        java.util.concurrent.atomic.AtomicReference<HttpGet> sent = new java.util.concurrent.atomic.AtomicReference<>();
        try (CloseableHttpResponse r = client.execute(uri, u -> {
            sent.set(new HttpGet(u));
            return sent.get();
        })) {
            if (!isOk(r.getCode())) {
                throw new StatusException(r.getCode());
            }
            announced = CheckedClient.length(r);
            HttpEntity entity = r.getEntity();
            if (entity != null) {
                // the socket timeout (the read timeout) bounds every silence while the body streams
                // and the minimum rate a server that sends a little before each timeout
                TransferRate rate = new TransferRate(settings.minRate(), settings.rateWindow(), System::nanoTime);
                try (InputStream in = entity.getContent()) {
                    byte[] buf = new byte[64 * 1024];
                    for (int got; (got = in.read(buf)) >= 0; ) {
                        try {
                            rate.add(got);
                        } catch (java.net.SocketTimeoutException e) {
                            sent.get().cancel(); // the connection is dropped, not drained at the same slow pace
                            throw e;
                        }
                        if (got == 0) {
                            continue;
                        }
                        n += got;
                        sink.accept(ByteBuffer.wrap(buf, 0, got));
                    }
                } catch (org.apache.hc.core5.http.ConnectionClosedException e) {
                    // a body shorter than announced: reported below
                }
            }
        }
        if (announced.isPresent() && announced.getAsLong() != n) {
            throw new IOException("body ended after " + n + " of " + announced.getAsLong() + " bytes");
        }
        return n;
    }

    private static boolean isOk(int status) {
        return status / 100 == 2 && status != 206;
    }

    private long copyFile(URI uri, Sink sink) throws FetchException {
        long n = 0;
        try (InputStream in = Files.newInputStream(Path.of(uri))) {
            byte[] buf = new byte[64 * 1024];
            for (int r; (r = in.read(buf)) > 0; ) {
                n += r;
                sink.accept(ByteBuffer.wrap(buf, 0, r));
            }
            return n;
        } catch (FetchException e) {
            throw e;
        } catch (NoSuchFileException e) {
            throw new FetchException(uri + ": no such file");
        } catch (IOException e) {
            throw new FetchException(uri + ": cannot read (" + describe(e) + ")");
        }
    }
}
