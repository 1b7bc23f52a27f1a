package org.cdlib.mrt.ingestqueue.steps;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.camel.CamelContext;
import org.apache.camel.support.LifecycleStrategySupport;
import org.cdlib.mrt.ingestqueue.fetch.AddressPolicy;
import org.cdlib.mrt.ingestqueue.fetch.Container;
import org.cdlib.mrt.ingestqueue.fetch.FetchSettings;
import org.cdlib.mrt.ingestqueue.fetch.Fetcher;
import org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm;
import org.cdlib.mrt.ingestqueue.module.QueueContext;
import org.cdlib.mrt.ingestqueue.module.QueueModule;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Binds the steps that size, admit, download and finally clean up an object:
 * {@code estimateStep}, {@code provisionStep}, {@code downloadStep}, {@code completeStep}.
 * <p>
 * Keys (default, meaning):
 * <ul>
 * <li>{@code ingest.download.connect-timeout} (PT10S): time allowed to open a connection.</li>
 * <li>{@code ingest.download.read-timeout} (PT5M): time allowed for response headers, and the longest
 *     silence while a body streams.</li>
 * <li>{@code ingest.download.retries} (3): further attempts after a connection error, timeout, 5xx or 429.</li>
 * <li>{@code ingest.download.backoff} (PT1S): wait before the first retry, doubled before each further one.</li>
 * <li>{@code ingest.download.parallelism} (4): files fetched (or HEAD-requested) at once for one job.</li>
 * <li>{@code ingest.download.allow-file-urls} (false): fetch {@code file:} URLs anywhere, not only under
 *     {@code <ingest.home>/uploads/}.</li>
 * <li>{@code ingest.download.max-header-count} (100), {@code ingest.download.max-line-length} (8192): an answer's
 *     head; beyond, the fetch fails naming the key (not retried).</li>
 * <li>{@code ingest.download.probe-timeout} (PT30S): total time of a HEAD, a type probe or a manifest by URL,
 *     all attempts together.</li>
 * <li>{@code ingest.download.min-free-percent} (5): a body that would leave the working filesystem less free
 *     than this is refused.</li>
 * <li>{@code ingest.fetch.connections-per-host} (downloading's workers × parallelism): downloads (GETs) at once
 *     to one payload host; more wait for a connection.</li>
 * <li>{@code ingest.fetch.probe-connections-per-host} (estimating's workers × parallelism + downloading's
 *     workers): small reads (HEADs, Range reads, manifests) at once to one host, in a pool of their own.</li>
 * <li>{@code ingest.estimate.large-bytes} (10737418240 = 10 GiB): an estimate above this is a large job.</li>
 * <li>{@code ingest.estimate.large-priority} (90): the priority a large job is moved back to (at least).</li>
 * <li>{@code ingest.provisioning.max-used-percent} (80): a job waits in provisioning while the working
 *     filesystem would be more than this full with it and the downloading jobs.</li>
 * </ul>
 */
public final class FetchModule implements QueueModule {
    private static final Logger LOG = LoggerFactory.getLogger(FetchModule.class);

    /**
     * How many times an object's bytes land on the working filesystem: twice when local storage's root shares
     * ingest.home's filesystem (the download and storage's copy), else once.
     */
    static int copies(QueueContext ctx) {
        if (!"local".equals(ctx.property("ingest.storage", "local"))) {
            return 1;
        }
        Path root = Path.of(ctx.property("ingest.storage.local.root", "./data/storage"));
        try {
            boolean shared = FreeSpace.sameFileSystem(root, ctx.ingestHome());
            LOG.info("disk reservation: local storage {} is {} the filesystem of ingest.home {}: {} a byte", root,
                    shared ? "on" : "not on", ctx.ingestHome(), shared ? "2 bytes reserved" : "1 byte reserved");
            return shared ? 2 : 1;
        } catch (IOException e) {
            LOG.warn("disk reservation: cannot tell whether {} shares the filesystem of {} ({}); counted as shared",
                    root, ctx.ingestHome(), e.toString());
            return 2;
        }
    }

    /**
     * The digests storing needs of each file, computed while it downloads: the storage manifest's SHA-256 and, for
     * local storage, its OCFL inventory's SHA-512 ({@code OcflStorage.contentDigest()}).
     */
    static List<DigestAlgorithm> storedDigests(QueueContext ctx) {
        return "local".equals(ctx.property("ingest.storage", "local"))
                ? List.of(DigestAlgorithm.SHA256, DigestAlgorithm.SHA512) : List.of(DigestAlgorithm.SHA256);
    }

    @Override
    public Map<String, Class<?>> beans() {
        return Map.of("estimateStep", EstimateStep.class, "provisionStep", ProvisionStep.class,
                "downloadStep", DownloadStep.class, "completeStep", CompleteStep.class);
    }

    @Override
    public void bind(QueueContext ctx) {
        FetchSettings settings = settings(ctx);
        Fetcher fetcher = new Fetcher(settings, ctx.ingestHome());
        // the moment the context begins to stop, before any route stops: no request not yet written is written
        ctx.camel().addLifecycleStrategy(new LifecycleStrategySupport() {
            @Override
            public void onContextStopping(CamelContext context) {
                fetcher.stop();
            }
        });
        FetchSettings.Connections c = settings.connections();
        LOG.info("fetch: up to {} downloads at once to one host ({} in all; {}), {} small reads: HEADs, Range reads, "
                + "manifests ({} in all; {})", c.downloadsPerHost(), c.downloadsTotal(),
                FetchSettings.DOWNLOADS_PER_HOST, c.probesPerHost(), c.probesTotal(), FetchSettings.PROBES_PER_HOST);
        ctx.bind("estimateStep", new EstimateStep(fetcher,
                ctx.longProperty("ingest.estimate.large-bytes", 10L * 1024 * 1024 * 1024),
                ctx.intProperty("ingest.estimate.large-priority", 90)));
        FreeSpace disk = FreeSpace.of(ctx.ingestHome());
        int copies = copies(ctx);
        ctx.bind("provisionStep", new ProvisionStep(ctx.store(), disk,
                ctx.intProperty("ingest.provisioning.max-used-percent", 80), copies, ctx.store().stepWrites()));
        ctx.bind("downloadStep", new DownloadStep(fetcher, ctx.ingestHome(), disk, copies, storedDigests(ctx),
                ctx.store().stepWrites()));
        ctx.bind("completeStep", new CompleteStep(ctx.ingestHome()));
    }

    /**
     * The settings the {@code ingest.download.*} and {@code ingest.fetch.*} keys configure, defaults
     * for the rest; the connections follow {@code ingest.concurrency.downloading} and {@code estimating}.
     */
    public static FetchSettings settings(QueueContext ctx) {
        FetchSettings d = FetchSettings.defaults();
        int parallelism = ctx.intProperty("ingest.download.parallelism", d.parallelism());
        FetchSettings.Connections connections = FetchSettings.Connections.forWork(
                ctx.intProperty("ingest.concurrency.downloading", FetchSettings.DOWNLOADING_WORKERS),
                ctx.intProperty("ingest.concurrency.estimating", FetchSettings.ESTIMATING_WORKERS),
                Math.max(1, parallelism), // a parallelism below 1 is refused below, naming its key
                setOrNull(ctx, FetchSettings.DOWNLOADS_PER_HOST),
                setOrNull(ctx, FetchSettings.PROBES_PER_HOST));
        return new FetchSettings(
                ctx.durationProperty("ingest.download.connect-timeout", d.connectTimeout()),
                ctx.durationProperty("ingest.download.read-timeout", d.readTimeout()),
                ctx.intProperty("ingest.download.retries", d.retries()),
                ctx.durationProperty("ingest.download.backoff", d.backoff()),
                parallelism,
                ctx.booleanProperty("ingest.download.allow-file-urls", d.allowFileUrls()),
                AddressPolicy.parse(ctx.property(AddressPolicy.KEY).orElse(null)),
                new Container.Limits(
                        ctx.longProperty("ingest.container.max-bytes", d.containers().maxBytes()),
                        ctx.intProperty("ingest.container.max-entries", d.containers().maxEntries()),
                        ctx.intProperty("ingest.container.max-ratio", d.containers().maxRatio())),
                ctx.longProperty("ingest.download.min-rate", d.minRate()),
                ctx.durationProperty("ingest.download.rate-window", d.rateWindow()),
                new FetchSettings.Answers(
                        ctx.intProperty("ingest.download.max-header-count", d.answers().maxHeaderCount()),
                        ctx.intProperty("ingest.download.max-line-length", d.answers().maxLineLength()),
                        ctx.durationProperty("ingest.download.probe-timeout", d.answers().probeTimeout()),
                        ctx.intProperty("ingest.download.min-free-percent", d.answers().minFreePercent())),
                connections);
    }

    /** The key's whole number when it is set; null lets the connections follow the work. */
    private static Integer setOrNull(QueueContext ctx, String key) {
        return ctx.property(key).map(v -> ctx.intProperty(key, 0)).orElse(null);
    }
}
