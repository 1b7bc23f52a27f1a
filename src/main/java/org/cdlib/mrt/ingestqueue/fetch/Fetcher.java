package org.cdlib.mrt.ingestqueue.fetch;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodySubscribers;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fetches the files of objects over HTTP(S), or from {@code file:} URLs the {@link UrlPolicy}
 * admits. Bodies stream to disk (never whole files in memory) and are digested on the way.
 * <p>
 * Connection errors, timeouts, 5xx and 429 are retried {@code retries} times with an
 * exponential backoff; any other status fails at once. Redirects are followed, except from
 * https to http. The read timeout bounds the wait for the response headers and every silence
 * while the body streams, so a large file that keeps arriving is never cut off.
 */
public final class Fetcher {
    private static final Logger LOG = LoggerFactory.getLogger(Fetcher.class);
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final FetchSettings settings;
    private final UrlPolicy policy;
    private final HttpClient client;

    public Fetcher(FetchSettings settings, Path ingestHome) {
        this.settings = settings;
        this.policy = new UrlPolicy(ingestHome, settings.allowFileUrls());
        this.client = HttpClient.newBuilder()
                .connectTimeout(settings.connectTimeout())
                .followRedirects(HttpClient.Redirect.NORMAL)
                // plain HTTP/1.1: no h2c upgrade dance with servers that mishandle it
                .version(HttpClient.Version.HTTP_1_1)
                .build();
    }

    public FetchSettings settings() {
        return settings;
    }

    public UrlPolicy policy() {
        return policy;
    }

    /** What a download wrote: its length and the digests asked for. */
    public record Fetched(long bytes, Map<DigestAlgorithm, String> digests) {
    }

    /**
     * The size the source announces: a HEAD request's Content-Length (one attempt, since an
     * estimate must not hold a job up), or a {@code file:} URL's length. Empty when none is given.
     */
    public OptionalLong size(URI uri) throws FetchException {
        if (isFile(uri)) {
            try {
                return OptionalLong.of(Files.size(Path.of(uri)));
            } catch (IOException e) {
                throw new FetchException(uri + ": " + describe(e));
            }
        }
        HttpRequest head = HttpRequest.newBuilder(uri).timeout(settings.readTimeout())
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).build();
        try {
            HttpResponse<Void> r = client.send(head, HttpResponse.BodyHandlers.discarding());
            if (r.statusCode() / 100 != 2) {
                throw new FetchException(uri + ": HEAD answered HTTP " + r.statusCode());
            }
            return r.headers().firstValueAsLong("Content-Length");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FetchException(uri + ": interrupted");
        } catch (FetchException e) {
            throw e;
        } catch (IOException e) {
            throw new FetchException(uri + ": " + describe(e));
        }
    }

    /** The first {@code max} bytes at {@code uri} (fewer when it is shorter): enough to tell what it is. */
    public byte[] head(URI uri, int max) throws FetchException {
        return withRetries(uri, () -> {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try {
                stream(uri, b -> {
                    int n = Math.min(b.remaining(), max - out.size());
                    byte[] a = new byte[n];
                    b.get(a);
                    out.write(a, 0, n);
                    if (out.size() >= max) {
                        throw new Enough();
                    }
                });
            } catch (Enough enough) {
                // read what was needed; the rest is not fetched
            }
            return out.toByteArray();
        });
    }

    /** Ends a read that has what it needs. */
    private static final class Enough extends IOException {
        Enough() {
            super(null, null);
        }
    }

    /** The text at {@code uri} (a manifest), refused beyond {@code maxBytes}. */
    public String text(URI uri, long maxBytes) throws FetchException {
        return withRetries(uri, () -> {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            stream(uri, b -> {
                if (out.size() + b.remaining() > maxBytes) {
                    throw new FetchException(uri + ": larger than " + maxBytes + " bytes");
                }
                byte[] a = new byte[b.remaining()];
                b.get(a);
                out.write(a, 0, a.length);
            });
            return out.toString(StandardCharsets.UTF_8);
        });
    }

    /** Streams {@code uri} into {@code file} (created or truncated, flushed to disk) and digests it. */
    public Fetched download(URI uri, Path file, Collection<DigestAlgorithm> algorithms) throws FetchException {
        return withRetries(uri, () -> {
            List<DigestAlgorithm.Digester> digesters = algorithms.stream().distinct()
                    .map(DigestAlgorithm::newDigester).toList();
            try (FileChannel ch = open(file)) {
                long n = stream(uri, b -> {
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
                        throw new FetchException("cannot write " + file + ": " + describe(e), e);
                    }
                });
                try {
                    ch.force(true);
                } catch (IOException e) {
                    throw new FetchException("cannot write " + file + ": " + describe(e), e);
                }
                Map<DigestAlgorithm, String> digests = new EnumMap<>(DigestAlgorithm.class);
                for (DigestAlgorithm.Digester d : digesters) {
                    digests.put(d.algorithm(), d.hex());
                }
                return new Fetched(n, digests);
            }
        });
    }

    /**
     * Runs {@code task} on every item, at most {@code parallelism} at once, and returns the
     * results in the items' order. Tasks report their own failures in their result.
     */
    public <T, R> List<R> inParallel(List<T> items, Function<T, R> task) throws InterruptedException {
        if (items.size() <= 1) {
            return items.stream().map(task).toList();
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(settings.parallelism(), items.size()), r -> {
            Thread t = new Thread(r, "fetch-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<R>> futures = new ArrayList<>();
            for (T item : items) {
                futures.add(pool.submit(() -> task.apply(item)));
            }
            List<R> results = new ArrayList<>();
            for (Future<R> f : futures) {
                try {
                    results.add(f.get());
                } catch (ExecutionException e) {
                    throw new IllegalStateException("a fetch task failed unexpectedly: " + e.getCause(), e.getCause());
                }
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    // ------------------------------------------------------------------ one attempt

    private interface Sink {
        void accept(ByteBuffer buffer) throws IOException;
    }

    private interface Attempt<T> {
        T run() throws IOException, InterruptedException;
    }

    /** A status that ends an attempt; 5xx and 429 may go better next time. */
    private static final class StatusException extends IOException {
        final int status;

        StatusException(int status) {
            super("HTTP " + status);
            this.status = status;
        }

        boolean retryable() {
            return status >= 500 || status == 429;
        }
    }

    private long stream(URI uri, Sink sink) throws IOException, InterruptedException {
        if (isFile(uri)) {
            return copyFile(uri, sink);
        }
        HttpRequest get = HttpRequest.newBuilder(uri).timeout(settings.readTimeout()).GET().build();
        HttpResponse<java.util.concurrent.Flow.Publisher<List<ByteBuffer>>> r = client.send(get,
                info -> isOk(info.statusCode()) ? BodySubscribers.ofPublisher() : BodySubscribers.replacing(null));
        if (!isOk(r.statusCode())) {
            throw new StatusException(r.statusCode());
        }
        BodyReader body = new BodyReader();
        r.body().subscribe(body);
        long n = 0;
        try {
            for (List<ByteBuffer> chunk; (chunk = body.next(settings.readTimeout())) != null; ) {
                for (ByteBuffer b : chunk) {
                    n += b.remaining();
                    sink.accept(b);
                }
            }
        } finally {
            body.cancel();
        }
        OptionalLong announced = r.headers().firstValueAsLong("Content-Length");
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

    private <T> T withRetries(URI uri, Attempt<T> attempt) throws FetchException {
        int attempts = settings.retries() + 1;
        for (int n = 1; ; n++) {
            String reason;
            try {
                return attempt.run();
            } catch (FetchException e) {
                throw e;
            } catch (StatusException e) {
                if (e.status / 100 == 3) {
                    throw new FetchException(uri + ": HTTP " + e.status + " not followed (too many redirects, "
                            + "or from https to http)" + after(n));
                }
                if (!e.retryable()) {
                    throw new FetchException(uri + ": HTTP " + e.status + after(n));
                }
                reason = "HTTP " + e.status;
            } catch (HttpTimeoutException e) {
                reason = "timed out (" + e.getMessage() + ")";
            } catch (InterruptedException | InterruptedIOException e) {
                Thread.currentThread().interrupt();
                throw new FetchException(uri + ": interrupted");
            } catch (IOException e) {
                reason = describe(e);
            }
            if (n >= attempts) {
                throw new FetchException(uri + ": " + reason + after(n));
            }
            Duration wait = settings.backoff().multipliedBy(1L << Math.min(n - 1, 16));
            LOG.warn("{}: {} (attempt {} of {}); retrying in {}", uri, reason, n, attempts, wait);
            try {
                Thread.sleep(wait.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new FetchException(uri + ": interrupted while waiting to retry after " + reason);
            }
        }
    }

    private static String after(int attempts) {
        return " after " + attempts + (attempts == 1 ? " attempt" : " attempts");
    }

    private static FileChannel open(Path file) throws FetchException {
        try {
            return FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING);
        } catch (IOException e) {
            throw new FetchException("cannot write " + file + ": " + describe(e), e);
        }
    }

    static boolean isFile(URI uri) {
        return "file".equals(uri.getScheme() == null ? null : uri.getScheme().toLowerCase(Locale.ROOT));
    }

    static String describe(IOException e) {
        if (e instanceof ConnectException) {
            return "cannot connect" + (e.getMessage() != null ? " (" + e.getMessage() + ")" : "");
        }
        if (e instanceof NoSuchFileException) {
            return "no such file " + e.getMessage();
        }
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + ": " + m;
    }
}
