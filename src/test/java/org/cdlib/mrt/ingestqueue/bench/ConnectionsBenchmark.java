package org.cdlib.mrt.ingestqueue.bench;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.head;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;

import com.github.tomakehurst.wiremock.WireMockServer;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.cdlib.mrt.ingestqueue.fetch.FetchSettings;
import org.cdlib.mrt.ingestqueue.fetch.Fetcher;
import org.cdlib.mrt.ingestqueue.module.QueueContext;
import org.cdlib.mrt.ingestqueue.steps.FetchModule;

/**
 * A batch of objects through estimating and downloading as the service's workers fetch them:
 * {@code estimating} workers HEAD each object in turn (the estimate), and {@code downloading}
 * workers GET each estimated one from a payload server that answers every GET after a fixed
 * delay. The fetcher is configured as the service configures it ({@code FetchModule.settings} on the
 * same keys), so the class runs unchanged on a build from before the connections were sized to
 * the work (issue 45), where the keys it sets did not exist, for the before figures.
 * <p>
 * {@code java -cp … org.cdlib.mrt.ingestqueue.bench.ConnectionsBenchmark [objects] [delayMs] [downloading]
 * [estimating]} (100, 500, 16, 8). Prints objects a minute and how long a HEAD took (the payload
 * server answers a HEAD at once: the rest is the wait for a connection); asserts nothing.
 */
public final class ConnectionsBenchmark {
    public static void main(String[] args) throws Exception {
        int objects = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        int delayMs = args.length > 1 ? Integer.parseInt(args[1]) : 500;
        int downloading = args.length > 2 ? Integer.parseInt(args[2]) : 16;
        int estimating = args.length > 3 ? Integer.parseInt(args[3]) : 8;
        System.out.printf("machine: %d cores, java %s; %d objects, a GET answered after %d ms, %d downloading and "
                        + "%d estimating workers%n", Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"), objects, delayMs, downloading, estimating);
        WireMockServer server = new WireMockServer(options().dynamicPort().containerThreads(downloading * 4 + 40));
        server.start();
        Path dir = BenchDirs.temporary("ingest-connections");
        try (CamelContext camel = new DefaultCamelContext()) {
            server.stubFor(head(urlPathMatching("/o/.*"))
                    .willReturn(aResponse().withHeader("Content-Length", "65536")));
            server.stubFor(get(urlPathMatching("/o/.*"))
                    .willReturn(aResponse().withBody(new byte[65536]).withFixedDelay(delayMs)));
            Properties p = new Properties();
            p.setProperty("ingest.concurrency.downloading", String.valueOf(downloading));
            p.setProperty("ingest.concurrency.estimating", String.valueOf(estimating));
            p.setProperty("ingest.fetch.allow", "127.0.0.0/8,::1");
            camel.getPropertiesComponent().setInitialProperties(p);
            Fetcher fetcher = new Fetcher(FetchModule.settings(new QueueContext(camel, null, null)), dir);
            for (int round = 1; round <= 2; round++) { // the first warms the JIT and the connections
                run(fetcher, server.port(), objects, downloading, estimating, dir, round == 2);
            }
        } finally {
            server.stop();
        }
    }

    static void run(Fetcher fetcher, int port, int objects, int downloading, int estimating, Path dir, boolean print)
            throws Exception {
        BlockingQueue<Integer> estimated = new LinkedBlockingQueue<>();
        AtomicInteger nextEstimate = new AtomicInteger();
        AtomicInteger nextDownload = new AtomicInteger();
        List<Long> headMs = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch done = new CountDownLatch(estimating + downloading);
        long t0 = System.nanoTime();
        for (int w = 0; w < estimating; w++) {
            start(() -> {
                try {
                    for (int i; (i = nextEstimate.getAndIncrement()) < objects; ) {
                        long h0 = System.nanoTime();
                        fetcher.size(URI.create("http://127.0.0.1:" + port + "/o/" + i));
                        headMs.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - h0));
                        estimated.add(i);
                    }
                } catch (Exception e) {
                    System.out.println("estimate failed: " + e);
                } finally {
                    done.countDown();
                }
            });
        }
        for (int w = 0; w < downloading; w++) {
            start(() -> {
                try {
                    while (nextDownload.getAndIncrement() < objects) {
                        int i = estimated.take();
                        Path f = dir.resolve("o" + i);
                        fetcher.download(URI.create("http://127.0.0.1:" + port + "/o/" + i), f, List.of());
                    }
                } catch (Exception e) {
                    System.out.println("download failed: " + e);
                } finally {
                    done.countDown();
                }
            });
        }
        done.await();
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (!print) {
            return;
        }
        List<Long> sorted = new ArrayList<>(headMs);
        Collections.sort(sorted);
        System.out.printf("%d objects in %.1f s: %.0f objects a minute%n", objects, seconds, objects / seconds * 60);
        System.out.printf("a HEAD took (ms): median %d, 95th percentile %d, longest %d%n",
                sorted.get(sorted.size() / 2), sorted.get((int) (sorted.size() * 0.95)), sorted.get(sorted.size() - 1));
    }

    static void start(Runnable worker) {
        Thread t = new Thread(worker);
        t.setDaemon(true);
        t.start();
    }
}
