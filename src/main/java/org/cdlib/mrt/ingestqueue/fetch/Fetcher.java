package org.cdlib.mrt.ingestqueue.fetch;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
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
 * exponential backoff; any other status fails at once. Redirects are followed (at most
 * {@link CheckedClient#MAX_REDIRECTS}), except from https to http, each hop checked by the
 * {@link UrlPolicy}.
 * Every connection is checked by the {@link AddressPolicy} on the address it is about to use
 * (in the connection manager's DNS resolver, on every address the name resolved to), so no name
 * resolved twice can lead elsewhere.
 * The read timeout bounds the wait for the response headers and every silence while the body
 * streams, so a large file that keeps arriving is never cut off.
 * <p>
 * The parts: {@link CheckedClient} sends requests and follows redirects, {@link Source} reads a
 * URL's bytes in one attempt, {@link Retries} tries again, {@link DownloadFile} writes and digests.
 * Downloads and small reads (HEADs, Range reads, probes, manifests) have a connection pool each,
 * sized by {@link FetchSettings.Connections}, so a small read never waits behind a download;
 * {@link StopGate} keeps any request from being sent once the service stops.
 */
public final class Fetcher {
    private static final Logger LOG = LoggerFactory.getLogger(Fetcher.class);
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final FetchSettings settings;
    private final UrlPolicy policy;
    private final Source source;
    private final Retries retries;
    private final StopGate gate = new StopGate();

    public Fetcher(FetchSettings settings, Path ingestHome) {
        this.settings = settings;
        this.policy = new UrlPolicy(ingestHome, settings.allowFileUrls(), settings.addresses());
        FetchSettings.Connections c = settings.connections();
        this.source = new Source(
                new CheckedClient(settings, policy, c.downloadsPerHost(), c.downloadsTotal(), settings.readTimeout(),
                        gate),
                new CheckedClient(settings, policy, c.probesPerHost(), c.probesTotal(),
                        settings.answers().probeTimeout(), gate),
                settings);
        this.retries = new Retries(settings, gate);
    }

    /**
     * The service begins to stop: no request not yet written is written from now on (one waiting
     * for a connection is cancelled, a retry is not sent); transfers under way go on. Each fetch
     * refused ends with a {@link StoppingException}.
     */
    public void stop() {
        gate.stop();
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
     * estimate must not hold a job up, within {@code ingest.download.probe-timeout}), or a
     * {@code file:} URL's length. Empty when none is given.
     */
    public OptionalLong size(URI uri) throws FetchException {
        return source.size(uri, probe());
    }

    /**
     * {@code bytes} bytes of {@code uri} by a Range request: from the start ({@code fromEnd}
     * false) or the last ones (a container's directory or trailer). Empty when the server does
     * not serve ranges. At most {@code bytes} are read, within {@code ingest.download.probe-timeout}.
     */
    public Optional<byte[]> range(URI uri, boolean fromEnd, int bytes) throws FetchException {
        return source.range(uri, fromEnd, bytes, probe());
    }

    /** The deadline of a small read, all its attempts together. */
    private Deadline probe() {
        return Deadline.in(settings.answers().probeTimeout(), "ingest.download.probe-timeout", false);
    }

    /**
     * The first {@code max} bytes at {@code uri} (fewer when it is shorter): enough to tell what it
     * is. The Range try and every attempt end within {@code ingest.download.probe-timeout} in all.
     */
    public byte[] head(URI uri, int max) throws FetchException {
        Deadline deadline = probe();
        Optional<byte[]> ranged = source.range(uri, false, max, deadline);
        if (ranged.isPresent()) {
            return ranged.get();
        }
        return retries.run(uri, deadline, () -> {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try {
                source.stream(uri, b -> {
                    int n = Math.min(b.remaining(), max - out.size());
                    byte[] a = new byte[n];
                    b.get(a);
                    out.write(a, 0, n);
                    if (out.size() >= max) {
                        throw new Enough();
                    }
                }, deadline);
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

    /**
     * The text at {@code uri} (a manifest), refused beyond {@code maxBytes}; every attempt ends
     * within {@code ingest.download.probe-timeout} in all.
     */
    public String text(URI uri, long maxBytes) throws FetchException {
        Deadline deadline = probe();
        return retries.run(uri, deadline, () -> {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            source.stream(
                    uri,
                    new Source.Sink() {
                        @Override
                        public void accept(ByteBuffer b) throws IOException {
                            if (out.size() + b.remaining() > maxBytes) {
                                throw new AnswerLimitException(uri + ": larger than " + maxBytes + " bytes");
                            }
                            byte[] a = new byte[b.remaining()];
                            b.get(a);
                            out.write(a, 0, a.length);
                        }

                        @Override
                        public void announced(long bytes) throws IOException {
                            if (bytes > maxBytes) {
                                throw new AnswerLimitException(
                                        uri + ": announces " + bytes + " bytes, larger than " + maxBytes);
                            }
                        }
                    },
                    deadline);
            return utf8(uri, out.toByteArray());
        });
    }

    /** {@code bytes} as strict UTF-8: a byte that is not refuses the text, naming its line (no U+FFFD stands in). */
    static String utf8(URI uri, byte[] bytes) throws FetchException {
        CharsetDecoder d = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length);
        CoderResult r = d.decode(in, out, true);
        if (r.isError()) {
            int at = in.position();
            int line = 1;
            for (int i = 0; i < at; i++) {
                if (bytes[i] == '\n') {
                    line++;
                }
            }
            throw new FetchException(
                    uri + ": line " + line + " is not UTF-8 text (byte " + at + "; a manifest must be UTF-8)");
        }
        d.flush(out);
        return out.flip().toString();
    }

    /** Streams {@code uri} into {@code file} (created or truncated, flushed to disk) and digests it. */
    public Fetched download(URI uri, Path file, Collection<DigestAlgorithm> algorithms) throws FetchException {
        return download(uri, file, algorithms, OptionalLong.empty());
    }

    /**
     * As {@link #download(URI, Path, Collection)}, the body refused (the job's failure, not retried)
     * beyond {@code declared} bytes (the size the depositor gave) or when it would leave the
     * working filesystem less than {@code ingest.download.min-free-percent} free. The response
     * head must come within the read timeout; the body then keeps to the minimum rate.
     */
    public Fetched download(URI uri, Path file, Collection<DigestAlgorithm> algorithms, OptionalLong declared)
            throws FetchException {
        return download(uri, file, null, algorithms, declared);
    }

    /**
     * As {@link #download(URI, Path, Collection, OptionalLong)}, resumable: {@code file} is kept between
     * attempts (and hosts) beside its {@link ResumeRecord} {@code resume}; an attempt with a record asks the
     * server only for the rest (Range, If-Range the validator recorded) and digests the bytes on disk once
     * to go on. A server without ranges, a 200 answer or another validator: the whole file, from byte 0.
     * The record is cleared when the file is complete or refused; it stays when the transfer failed.
     */
    public Fetched download(URI uri, Path file, Path resume, Collection<DigestAlgorithm> algorithms,
            OptionalLong declared) throws FetchException {
        return retries.run(uri, () -> {
            try (DownloadFile out = new DownloadFile(
                    file, algorithms, uri, declared, settings.answers().minFreePercent(), resume)) {
                try {
                    RangeAnswer.From from = out.resumeFrom();
                    if (from != null) {
                        LOG.info("{}: resuming at byte {} (recorded in {})", uri, from.offset(), resume);
                        try {
                            source.stream(uri, out, null, from);
                            return out.finish();
                        } catch (RangeAnswer.ResumeRefused refused) {
                            LOG.info("{}: cannot resume at byte {} ({}); fetching it from byte 0",
                                    uri, from.offset(), refused.getMessage());
                            out.forget();
                        }
                    }
                    source.stream(uri, out, null, null);
                    return out.finish();
                } catch (StoppingException | NoRoomYet e) {
                    throw e; // not sent, or nothing written: what is recorded stays for later
                } catch (FetchException e) {
                    out.forget(); // refused (a limit, the disk): not to be continued
                    throw e;
                } catch (IOException e) {
                    out.checkpoint(); // the transfer broke: the next attempt asks for the rest
                    throw e;
                }
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
