package org.cdlib.mrt.ingestqueue.fetch;

import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.classic.methods.HttpHead;
import org.apache.hc.client5.http.impl.classic.CloseableHttpResponse;
import org.apache.hc.core5.http.ConnectionClosedException;
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
        /** The next chunk: a heap buffer over the caller's array, reused for the next chunk once this returns. */
        void accept(ByteBuffer buffer) throws IOException;

        /** Told, before the first byte, the length the server announced: a sink may refuse it at once. */
        default void announced(long bytes) throws IOException {
        }

        /**
         * Told before {@link #announced}: the body is the file's bytes from {@code at} on (0: the whole file), and
         * {@code validator} is what the answer offers to resume it later (null: no byte ranges, or no strong
         * validator to check them against).
         */
        default void begins(long at, String validator) throws IOException {
        }
    }

    /** The GETs of files' bodies. */
    private final CheckedClient downloads;
    /** Small reads (a HEAD, a Range read, a probe or manifest under a probe deadline): never behind a download. */
    private final CheckedClient probes;
    private final FetchSettings settings;

    Source(CheckedClient downloads, CheckedClient probes, FetchSettings settings) {
        this.downloads = downloads;
        this.probes = probes;
        this.settings = settings;
    }

    /**
     * The wait for a download's response head: the read timeout,
     * in total (a server that trickles its head gains nothing).
     */
    Deadline headDeadline() {
        return Deadline.in(settings.readTimeout(), "ingest.download.read-timeout", true);
    }

    /** See {@link Fetcher#size(URI)}; the HEAD ends at {@code deadline}. */
    OptionalLong size(URI uri, Deadline deadline) throws FetchException {
        if (isFile(uri)) {
            try {
                return OptionalLong.of(Files.size(Path.of(uri)));
            } catch (IOException e) {
                throw new FetchException(uri + ": " + describe(e));
            }
        }
        try (CheckedClient.Answer a = probes.execute(uri, HttpHead::new, deadline)) {
            a.read(); // a HEAD has no body
            if (a.response.getCode() / 100 != 2) {
                throw new FetchException(uri + ": HEAD answered HTTP " + a.response.getCode());
            }
            return CheckedClient.length(a.response);
        } catch (StatusException e) {
            throw new FetchException(
                    uri + ": HEAD answered HTTP " + e.status + (e.status / 100 == 3 ? " (redirect not followed)" : ""));
        } catch (FetchException e) {
            throw e;
        } catch (IOException e) {
            throw new FetchException(uri + ": " + describe(e));
        }
    }

    /** See {@link Fetcher#range(URI, boolean, int)}; the whole exchange ends at {@code deadline}. */
    Optional<byte[]> range(URI uri, boolean fromEnd, int bytes, Deadline deadline) throws FetchException {
        if (isFile(uri)) {
            try (SeekableByteChannel ch = Files.newByteChannel(Path.of(uri))) {
                long size = ch.size();
                int n = (int) Math.min(size, bytes);
                ch.position(fromEnd ? size - n : 0);
                ByteBuffer b = ByteBuffer.allocate(n);
                while (b.hasRemaining() && ch.read(b) > 0) {
                    // reading
                }
                return Optional.of(b.array());
            } catch (IOException e) {
                throw new FetchException(uri + ": " + describe(e));
            }
        }
        try (CheckedClient.Answer a = probes.execute(uri, u -> {
            HttpGet g = new HttpGet(u);
            g.setHeader("Range", fromEnd ? "bytes=-" + bytes : "bytes=0-" + (bytes - 1));
            return g;
        }, deadline)) {
            if (a.response.getCode() != 206 || a.response.getEntity() == null) {
                return Optional.empty();
            }
            try (InputStream in = a.response.getEntity().getContent()) {
                byte[] got = in.readNBytes(bytes + 1);
                if (a.cut()) {
                    throw deadline.exceeded(a.at);
                }
                if (got.length <= bytes) {
                    a.read();
                }
                return got.length > bytes ? Optional.empty() : Optional.of(got);
            } catch (IOException e) {
                throw a.failure(e);
            }
        } catch (StatusException e) {
            return Optional.empty();
        } catch (FetchException e) {
            throw e;
        } catch (IOException e) {
            throw new FetchException(uri + ": " + describe(e));
        }
    }

    /**
     * Gives the whole body at {@code uri} to {@code sink}; returns its length. With a {@code probe}
     * deadline the whole exchange ends there (a small read, on the small reads' connections); without,
     * the head must come within the read timeout and the body then as fast as the minimum rate.
     */
    long stream(URI uri, Sink sink, Deadline probe) throws IOException, InterruptedException {
        return stream(uri, sink, probe, null);
    }

    /**
     * As {@link #stream(URI, Sink, Deadline)}; with {@code from}, the rest of the file is asked for (Range
     * {@code bytes=N-}, If-Range its validator): a 206 continuing at N with the same validator is the rest, a
     * 200 the whole file (the sink is told which); any other answer to the Range is a
     * {@link RangeAnswer.ResumeRefused}.
     */
    long stream(URI uri, Sink sink, Deadline probe, RangeAnswer.From from) throws IOException, InterruptedException {
        if (isFile(uri)) {
            sink.begins(0, null);
            return copyFile(uri, sink);
        }
        long n = 0;
        OptionalLong announced;
        AtomicReference<HttpGet> sent = new AtomicReference<>();
        CheckedClient client = probe != null ? probes : downloads;
        try (CheckedClient.Answer a = client.execute(uri, u -> {
            HttpGet g = new HttpGet(u);
            if (from != null) {
                g.setHeader("Range", "bytes=" + from.offset() + "-");
                g.setHeader("If-Range", from.validator());
            }
            sent.set(g);
            return g;
        }, probe != null ? probe : headDeadline())) {
            if (probe == null) {
                a.headDone();
            }
            CloseableHttpResponse r = a.response;
            if (from != null && (r.getCode() == 206 || r.getCode() == 416)) {
                sink.begins(RangeAnswer.continues(r, from), from.validator());
            } else if (!isOk(r.getCode())) {
                throw new StatusException(r.getCode()); // its body is not read: closing the answer cuts it
            } else {
                sink.begins(0, RangeAnswer.validator(r));
            }
            announced = CheckedClient.length(r);
            if (announced.isPresent()) {
                sink.announced(announced.getAsLong());
            }
            HttpEntity entity = r.getEntity();
            if (entity != null) {
                // the socket timeout (the read timeout) bounds every silence while the body streams
                // and the minimum rate a server that sends a little before each timeout; a body is
                // never read past its Content-Length (HttpClient's ContentLengthInputStream)
                TransferRate rate = new TransferRate(settings.minRate(), settings.rateWindow(), System::nanoTime);
                try (InputStream in = entity.getContent()) {
                    byte[] buf = new byte[64 * 1024];
                    try {
                        for (int got; (got = in.read(buf)) >= 0; ) {
                            rate.add(got);
                            if (got == 0) {
                                continue;
                            }
                            n += got;
                            sink.accept(ByteBuffer.wrap(buf, 0, got));
                        }
                    } catch (IOException | RuntimeException e) {
                        // closing the stream would read the rest of the body: the connection is dropped
                        // instead (a slow body not drained at the same pace, an endless one not at all)
                        sent.get().cancel();
                        throw e;
                    }
                    a.read();
                } catch (ConnectionClosedException e) {
                    // a body shorter than announced: reported below (or cut by the deadline)
                    if (a.cut()) {
                        throw a.failure(e);
                    }
                } catch (FetchException | SocketTimeoutException e) {
                    throw e; // the sink's refusal, the rate's verdict: told as they are
                } catch (IOException e) {
                    throw a.failure(e);
                }
                if (a.cut()) {
                    throw a.failure(new IOException("cut"));
                }
            } else {
                a.read();
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
