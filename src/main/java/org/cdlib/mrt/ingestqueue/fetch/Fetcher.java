package org.cdlib.mrt.ingestqueue.fetch;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
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
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.classic.methods.HttpHead;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.CloseableHttpResponse;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.SystemDefaultDnsResolver;
import java.net.InetAddress;
import java.net.UnknownHostException;
import org.apache.hc.client5.http.socket.ConnectionSocketFactory;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.io.SocketConfig;
import org.apache.hc.core5.util.Timeout;
import org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fetches the files of objects over HTTP(S), or from {@code file:} URLs the {@link UrlPolicy}
 * admits. Bodies stream to disk (never whole files in memory) and are digested on the way.
 * <p>
 * Connection errors, timeouts, 5xx and 429 are retried {@code retries} times with an
 * exponential backoff; any other status fails at once. Redirects are followed (at most
 * {@link #MAX_REDIRECTS}), except from https to http, each hop checked by the {@link UrlPolicy}.
 * Every connection is checked by the {@link AddressPolicy} on the address it is about to use
 * (in the socket factory, after name resolution), so no name resolved twice can lead elsewhere.
 * The read timeout bounds the wait for the response headers and every silence while the body
 * streams, so a large file that keeps arriving is never cut off.
 */
public final class Fetcher {
    private static final Logger LOG = LoggerFactory.getLogger(Fetcher.class);
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final FetchSettings settings;
    private final UrlPolicy policy;
    static final int MAX_REDIRECTS = 5;
    private final CloseableHttpClient client;

    public Fetcher(FetchSettings settings, Path ingestHome) {
        this.settings = settings;
        this.policy = new UrlPolicy(ingestHome, settings.allowFileUrls(), settings.addresses());
        AddressPolicy addresses = settings.addresses();
        PoolingHttpClientConnectionManager connections = PoolingHttpClientConnectionManagerBuilder.create()
                .setDnsResolver(new CheckedResolver(addresses))
                .setDefaultSocketConfig(SocketConfig.custom()
                        .setSoTimeout(Timeout.ofMilliseconds(settings.readTimeout().toMillis())).build())
                .setMaxConnTotal(64)
                .setMaxConnPerRoute(Math.max(8, settings.parallelism() * 2))
                .build();
        this.client = HttpClients.custom()
                .setConnectionManager(connections)
                .setDefaultRequestConfig(RequestConfig.custom()
                        .setConnectTimeout(Timeout.ofMilliseconds(settings.connectTimeout().toMillis()))
                        .setResponseTimeout(Timeout.ofMilliseconds(settings.readTimeout().toMillis()))
                        .setRedirectsEnabled(false)
                        .build())
                .disableAutomaticRetries() // retried here, with the backoff
                .disableRedirectHandling() // followed here, each hop checked
                .disableContentCompression() // the bytes as served: sizes and digests are of them
                .disableCookieManagement()
                .disableAuthCaching()
                .build();
    }

    /**
     * Checks the addresses a connection is about to be made to: the ones the name resolved to for
     * this very connection (HttpClient connects to what this returns), so that a name that
     * resolves differently the second time gains nothing.
     */
    private record CheckedResolver(AddressPolicy addresses) implements DnsResolver {
        @Override
        public InetAddress[] resolve(String host) throws UnknownHostException {
            return SystemDefaultDnsResolver.INSTANCE.resolve(host);
        }

        @Override
        public String resolveCanonicalHostname(String host) throws UnknownHostException {
            return SystemDefaultDnsResolver.INSTANCE.resolveCanonicalHostname(host);
        }

        @Override
        public List<InetSocketAddress> resolve(String host, int port) throws UnknownHostException {
            List<InetSocketAddress> all = DnsResolver.super.resolve(host, port);
            for (InetSocketAddress a : all) {
                addresses.checkConnect(host, a);
            }
            return all;
        }
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
        try (CloseableHttpResponse r = execute(uri, HttpHead::new)) {
            if (r.getCode() / 100 != 2) {
                throw new FetchException(uri + ": HEAD answered HTTP " + r.getCode());
            }
            return length(r);
        } catch (StatusException e) {
            throw new FetchException(uri + ": HEAD answered HTTP " + e.status + (e.status / 100 == 3 ? " (redirect not followed)" : ""));
        } catch (FetchException e) {
            throw e;
        } catch (IOException e) {
            throw new FetchException(uri + ": " + describe(e));
        }
    }

    /**
     * {@code bytes} bytes of {@code uri} by a Range request: from the start ({@code fromEnd}
     * false) or the last ones (a container's directory or trailer). Empty when the server does
     * not serve ranges. At most {@code bytes} are read.
     */
    public java.util.Optional<byte[]> range(URI uri, boolean fromEnd, int bytes) throws FetchException {
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
        try (CloseableHttpResponse r = execute(uri, u -> {
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

    private static OptionalLong length(CloseableHttpResponse r) {
        Header h = r.getFirstHeader("Content-Length");
        if (h == null) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(h.getValue().strip()));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /**
     * Sends a request made by {@code method} for {@code uri}, following redirects itself: each
     * hop's URL is checked by the policy (and its connection by the address policy); https to
     * http and more than {@link #MAX_REDIRECTS} hops end with the redirect status.
     */
    private CloseableHttpResponse execute(URI uri, java.util.function.Function<URI, HttpUriRequestBase> method)
            throws IOException {
        URI at = uri;
        for (int hop = 0; ; hop++) {
            CloseableHttpResponse r;
            try {
                r = client.execute(method.apply(at));
            } catch (AddressPolicy.RefusedAddressException e) {
                throw new FetchException(at + ": " + e.getMessage());
            }
            int code = r.getCode();
            if (code / 100 != 3 || code == 304) {
                return r;
            }
            Header location = r.getFirstHeader("Location");
            r.close();
            if (location == null || hop >= MAX_REDIRECTS) {
                throw new StatusException(code);
            }
            URI next;
            try {
                next = at.resolve(location.getValue().strip().replace(" ", "%20"));
            } catch (IllegalArgumentException e) {
                throw new FetchException(at + ": HTTP " + code + " to an invalid Location '" + location.getValue() + "'");
            }
            if ("https".equalsIgnoreCase(at.getScheme()) && !"https".equalsIgnoreCase(next.getScheme())) {
                throw new StatusException(code);
            }
            String scheme = next.getScheme() == null ? "" : next.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https")) {
                throw new FetchException(at + ": HTTP " + code + " redirects to " + next + ", which is not an http(s) URL");
            }
            try {
                next = policy.check(next.toString());
            } catch (FetchException e) {
                throw new FetchException(at + ": redirected to " + e.getMessage());
            }
            at = next;
        }
    }

    /** The first {@code max} bytes at {@code uri} (fewer when it is shorter): enough to tell what it is. */
    public byte[] head(URI uri, int max) throws FetchException {
        java.util.Optional<byte[]> ranged = range(uri, false, max);
        if (ranged.isPresent()) {
            return ranged.get();
        }
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
            return utf8(uri, out.toByteArray());
        });
    }

    /** {@code bytes} as strict UTF-8: a byte that is not refuses the text, naming its line (no U+FFFD stands in). */
    static String utf8(URI uri, byte[] bytes) throws FetchException {
        java.nio.charset.CharsetDecoder d = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        java.nio.CharBuffer out = java.nio.CharBuffer.allocate(bytes.length);
        java.nio.charset.CoderResult r = d.decode(in, out, true);
        if (r.isError()) {
            int at = in.position();
            int line = 1;
            for (int i = 0; i < at; i++) {
                if (bytes[i] == '\n') {
                    line++;
                }
            }
            throw new FetchException(uri + ": line " + line + " is not UTF-8 text (byte " + at + "; a manifest must be UTF-8)");
        }
        d.flush(out);
        return out.flip().toString();
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
        long n = 0;
        OptionalLong announced;
        try (CloseableHttpResponse r = execute(uri, HttpGet::new)) {
            if (!isOk(r.getCode())) {
                throw new StatusException(r.getCode());
            }
            announced = length(r);
            HttpEntity entity = r.getEntity();
            if (entity != null) {
                // the socket timeout (the read timeout) bounds every silence while the body streams
                try (InputStream in = entity.getContent()) {
                    byte[] buf = new byte[64 * 1024];
                    for (int got; (got = in.read(buf)) >= 0; ) {
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
            } catch (SocketTimeoutException e) {
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
