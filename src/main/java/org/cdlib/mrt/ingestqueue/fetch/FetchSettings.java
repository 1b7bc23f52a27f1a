package org.cdlib.mrt.ingestqueue.fetch;

import java.time.Duration;

/**
 * How files are fetched: the {@code ingest.download.*} keys.
 *
 * @param connectTimeout time allowed to open a connection
 * @param readTimeout    time allowed for the response headers, and the longest silence while the body streams
 * @param retries        further attempts after a connection error, a timeout, a 5xx or a 429
 * @param backoff        wait before the first retry; doubled before each further one
 * @param parallelism    files fetched at once for one job
 * @param allowFileUrls  accept {@code file:} URLs anywhere, not only under {@code <ingest.home>/uploads/}
 * @param addresses      which addresses depositors' URLs may lead to ({@code ingest.fetch.allow})
 * @param containers     how large a container may unpack ({@code ingest.container.*})
 * @param minRate        the slowest a body may come, bytes a second over each {@code rateWindow} (0: no minimum)
 * @param answers        the bounds every answer is held to: its head, a small read's total time, the disk
 * @param connections    the connections to payload servers: how many at once, per host and in all
 */
public record FetchSettings(Duration connectTimeout, Duration readTimeout, int retries, Duration backoff,
        int parallelism, boolean allowFileUrls, AddressPolicy addresses, Container.Limits containers,
        long minRate, Duration rateWindow, Answers answers, Connections connections) {
    /** The key of the downloads' connections to one host. */
    public static final String DOWNLOADS_PER_HOST = "ingest.fetch.connections-per-host";
    /** The key of the small reads' connections to one host. */
    public static final String PROBES_PER_HOST = "ingest.fetch.probe-connections-per-host";
    /** The route files' own default of downloading's and estimating's workers, when no configuration sets them. */
    public static final int DOWNLOADING_WORKERS = 2;
    public static final int ESTIMATING_WORKERS = 4;

    /**
     * The connections to payload servers, in two pools so a small read never waits behind a
     * download: downloads (the GETs of files' bodies) and small reads (the estimate's HEADs and
     * Range reads, a type probe, a manifest by URL). Each pool holds at most {@code perHost}
     * connections to one host and {@code total} in all; a request beyond waits for one.
     *
     * @param downloadsPerHost {@value #DOWNLOADS_PER_HOST}: by default downloading's workers times
     *                         {@code ingest.download.parallelism}, every file downloading at once
     * @param downloadsTotal   downloads to every host together: what the workers can ask for, or the
     *                         per-host figure when that is more
     * @param probesPerHost    {@value #PROBES_PER_HOST}: by default estimating's workers times the
     *                         parallelism, plus downloading's workers (a manifest read before a download)
     * @param probesTotal      small reads to every host together, as for downloads
     */
    public record Connections(int downloadsPerHost, int downloadsTotal, int probesPerHost, int probesTotal) {
        public Connections {
            if (downloadsPerHost < 1) {
                throw new IllegalArgumentException(DOWNLOADS_PER_HOST + " must be at least 1, got " + downloadsPerHost);
            }
            if (probesPerHost < 1) {
                throw new IllegalArgumentException(PROBES_PER_HOST + " must be at least 1, got " + probesPerHost);
            }
            if (downloadsTotal < downloadsPerHost || probesTotal < probesPerHost) {
                throw new IllegalArgumentException("the connections in all (downloads " + downloadsTotal
                        + ", small reads " + probesTotal + ") must be at least those to one host (" + downloadsPerHost
                        + ", " + probesPerHost + ")");
            }
        }

        /**
         * Sized to the work: the most requests downloading's and estimating's workers make at once
         * ({@code parallelism} files of a job each), unless the keys set the per-host figures.
         */
        public static Connections forWork(int downloading, int estimating, int parallelism,
                Integer downloadsPerHost, Integer probesPerHost) {
            int downloads = downloading * parallelism;
            int probes = estimating * parallelism + downloading;
            int d = downloadsPerHost != null ? downloadsPerHost : downloads;
            int p = probesPerHost != null ? probesPerHost : probes;
            return new Connections(d, Math.max(d, downloads), p, Math.max(p, probes));
        }
    }

    /**
     * The bounds of every answer a payload server gives.
     *
     * @param maxHeaderCount    header lines an answer may have ({@code ingest.download.max-header-count})
     * @param maxLineLength     bytes a line of an answer's head may have ({@code ingest.download.max-line-length});
     *                          with the count, it bounds the head's whole size
     * @param probeTimeout      the total time of a small read, all its attempts together: a HEAD for the estimate,
     *                          the first bytes that tell a payload's type, a manifest by URL
     *                          ({@code ingest.download.probe-timeout})
     * @param minFreePercent    a body stops (its job fails) rather than leave the working filesystem with less
     *                          than this percent free ({@code ingest.download.min-free-percent})
     */
    public record Answers(int maxHeaderCount, int maxLineLength, Duration probeTimeout, int minFreePercent) {
        public Answers {
            if (maxHeaderCount < 1 || maxLineLength < 256) {
                throw new IllegalArgumentException("ingest.download.max-header-count (" + maxHeaderCount
                        + ") must be at least 1 and ingest.download.max-line-length (" + maxLineLength
                        + ") at least 256");
            }
            if (probeTimeout.isNegative() || probeTimeout.isZero()) {
                throw new IllegalArgumentException(
                        "ingest.download.probe-timeout must be positive, got " + probeTimeout);
            }
            if (minFreePercent < 0 || minFreePercent > 99) {
                throw new IllegalArgumentException(
                        "ingest.download.min-free-percent must be 0..99, got " + minFreePercent);
            }
        }

        public static Answers defaults() {
            return new Answers(100, 8192, Duration.ofSeconds(30), 5);
        }
    }

    public FetchSettings {
        if (connectTimeout.isNegative()
                || connectTimeout.isZero()
                || readTimeout.isNegative()
                || readTimeout.isZero()) {
            throw new IllegalArgumentException("ingest.download timeouts must be positive: connect " + connectTimeout
                    + ", read " + readTimeout);
        }
        if (retries < 0 || backoff.isNegative()) {
            throw new IllegalArgumentException("ingest.download.retries (" + retries + ") and ingest.download.backoff ("
                    + backoff + ") must not be negative");
        }
        if (minRate < 0 || rateWindow.isNegative() || rateWindow.isZero()) {
            throw new IllegalArgumentException("ingest.download.min-rate (" + minRate + ") must not be negative and "
                    + "ingest.download.rate-window (" + rateWindow + ") must be positive");
        }
        if (parallelism < 1) {
            throw new IllegalArgumentException("ingest.download.parallelism must be at least 1, got " + parallelism);
        }
    }

    public static FetchSettings defaults() {
        return new FetchSettings(Duration.ofSeconds(10), Duration.ofMinutes(5), 3, Duration.ofSeconds(1), 4, false,
                AddressPolicy.defaults(), Container.Limits.defaults(), 1024, Duration.ofMinutes(1), Answers.defaults(),
                Connections.forWork(DOWNLOADING_WORKERS, ESTIMATING_WORKERS, 4, null, null));
    }

    public FetchSettings withTimeouts(Duration connect, Duration read) {
        return new FetchSettings(
                connect,
                read,
                retries,
                backoff,
                parallelism,
                allowFileUrls,
                addresses,
                containers,
                minRate,
                rateWindow,
                answers,
                connections);
    }

    public FetchSettings withRetries(int n, Duration firstBackoff) {
        return new FetchSettings(
                connectTimeout,
                readTimeout,
                n,
                firstBackoff,
                parallelism,
                allowFileUrls,
                addresses,
                containers,
                minRate,
                rateWindow,
                answers,
                connections);
    }

    public FetchSettings withAllowFileUrls(boolean allow) {
        return new FetchSettings(
                connectTimeout,
                readTimeout,
                retries,
                backoff,
                parallelism,
                allow,
                addresses,
                containers,
                minRate,
                rateWindow,
                answers,
                connections);
    }

    /** With {@code ingest.fetch.allow} set to {@code spec} (e.g. {@link AddressPolicy#LOOPBACK}). */
    public FetchSettings withAllow(String spec) {
        return new FetchSettings(connectTimeout, readTimeout, retries, backoff, parallelism, allowFileUrls,
                AddressPolicy.parse(spec), containers, minRate, rateWindow, answers, connections);
    }

    /** With a minimum transfer rate of {@code bytesPerSecond} judged over each {@code window}. */
    public FetchSettings withMinRate(long bytesPerSecond, Duration window) {
        return new FetchSettings(
                connectTimeout,
                readTimeout,
                retries,
                backoff,
                parallelism,
                allowFileUrls,
                addresses,
                containers,
                bytesPerSecond,
                window,
                answers,
                connections);
    }

    public FetchSettings withContainerLimits(Container.Limits limits) {
        return new FetchSettings(
                connectTimeout,
                readTimeout,
                retries,
                backoff,
                parallelism,
                allowFileUrls,
                addresses,
                limits,
                minRate,
                rateWindow,
                answers,
                connections);
    }

    /** With the bounds every answer is held to. */
    public FetchSettings withAnswers(Answers a) {
        return new FetchSettings(
                connectTimeout,
                readTimeout,
                retries,
                backoff,
                parallelism,
                allowFileUrls,
                addresses,
                containers,
                minRate,
                rateWindow,
                a,
                connections);
    }

    /** With these connections to payload servers. */
    public FetchSettings withConnections(Connections c) {
        return new FetchSettings(connectTimeout, readTimeout, retries, backoff, parallelism, allowFileUrls,
                addresses, containers, minRate, rateWindow, answers, c);
    }
}
