package org.cdlib.mrt.ingestqueue.routes;

import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.ok;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.component.mock.MockEndpoint;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.runtime.IngestService;
import org.cdlib.mrt.ingestqueue.runtime.ServiceTestSupport;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An operator edits a copy of routes/ and starts the service on it: the edit takes effect with
 * no rebuild (the build's own copy of the routes does not have it).
 */
class ChangedRouteFileTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().withHttp();
    @RegisterExtension
    final CapturedLogs logs = new CapturedLogs();
    final Path dir = ZK.dir();
    Path routes;
    IngestService service;

    @BeforeEach
    void copyRoutes() throws Exception {
        routes = Files.createDirectories(dir.resolve("routes"));
        try (var files = Files.list(Path.of("routes"))) {
            for (Path f : files.toList()) {
                Files.copy(f, routes.resolve(f.getFileName()));
            }
        }
        Path profiles = Files.createDirectories(dir.resolve("profiles"));
        Files.writeString(
                profiles.resolve("demo_content"),
                "ProfileID: demo_content\nCollection.1: ark:/99999/fk4c\nStorageNode: 1\n");
    }

    @AfterEach
    void stop() {
        if (service != null) {
            service.close();
        }
    }

    /** Replaces {@code from} (which must be there) with {@code to} in the copied route file, as an editor would. */
    void edit(String file, String from, String to) throws Exception {
        Path f = routes.resolve(file);
        String text = Files.readString(f);
        assertTrue(text.contains(from), file + " no longer has " + from);
        Files.writeString(f, text.replace(from, to));
    }

    /** The service on the edited copy of routes/, with recording job steps and {@code beans} over them. */
    QueueStore startService(Map<String, Object> beans) throws Exception {
        Map<String, String> config = new HashMap<>(ServiceTestSupport.config(ZK.connectString(), dir));
        // the recording stand-in steps go with the stand-in routes of the four that call outside services
        config.put(
                "camel.main.routes-include-pattern",
                "file:" + routes + "/*.yaml,file:src/test/resources/stand-in-routes/*.yaml");
        Map<String, Object> all = new HashMap<>(new ServiceTestSupport().beans());
        all.putAll(beans);
        service = new IngestService(config, all).start();
        return service.store();
    }

    /**
     * A single-file batch manifest of {@code files} rows from WireMock, submitted; its jobs are made by the service.
     */
    String submit(QueueStore store, int files) {
        StringBuilder rows = new StringBuilder(BatchPendingRouteTest.HEADER);
        for (int i = 0; i < files; i++) {
            String file = "f" + i + ".txt";
            rows.append(ZK.http().baseUrl()).append("/").append(file).append(" | | | | | ").append(file).append("\n");
        }
        ZK.http().stubFor(get(urlEqualTo("/batch.checkm")).willReturn(ok(rows.append("#%eof\n").toString())));
        String manifest = ZK.http().baseUrl() + "/batch.checkm";
        return store.batches().create(RouteTestSupport.submission(manifest, "single-file-batch-manifest"));
    }

    static String builtCopy(String file) throws Exception {
        try (InputStream in = ChangedRouteFileTest.class.getResourceAsStream("/routes/" + file)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void stepsAddedToTheEstimatingRouteRunOnEveryJob() throws Exception {
        edit("estimating.yaml", "            ref: estimateStep\n", """
                        ref: estimateStep
                    - setHeader:
                        name: estimatedBy
                        constant: operator-edit
                    - log: "operator's estimating route saw job ${header.jobId}"
                    - to: mock:estimated
            """);
        assertFalse(builtCopy("estimating.yaml").contains("mock:estimated"), "the build knows nothing of the edit");
        QueueStore store = startService(Map.of());
        MockEndpoint estimated = service.camel().getEndpoint("mock:estimated", MockEndpoint.class);
        String bid = submit(store, 1);
        await().atMost(Duration.ofSeconds(15)).until(() -> estimated.getReceivedCounter() == 1);
        Exchange seen = estimated.getReceivedExchanges().get(0);
        String jid = seen.getIn().getHeader("jobId", String.class);
        assertEquals(bid, seen.getIn().getHeader("batchId"));
        assertEquals("operator-edit", seen.getIn().getHeader("estimatedBy"));
        await().atMost(Duration.ofSeconds(5)).until(() -> logs.events().stream()
                .anyMatch(e -> e.getFormattedMessage().equals("operator's estimating route saw job " + jid)));
        // the rest of the edited route file is as before: the job goes on through the pipeline
        await().atMost(Duration.ofSeconds(15))
                .until(() -> store.batches().jobs(bid, BatchRef.COMPLETED).equals(List.of(jid)));
    }

    @Test
    void aHigherConcurrencyInTheDownloadingRouteLetsMoreJobsDownloadAtOnce() throws Exception {
        String before = "concurrency: \"{{ingest.concurrency.downloading:2}}\"";
        edit("downloading.yaml", before, "concurrency: \"3\"");
        assertTrue(builtCopy("downloading.yaml").contains(before), "the build has the default of 2");
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        // holds every download until released, counting how many are held at once
        Processor download = e -> {
            most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            try {
                assertTrue(release.await(20, TimeUnit.SECONDS), "never released");
            } finally {
                inFlight.decrementAndGet();
            }
        };
        QueueStore store = startService(Map.of("downloadStep", download));
        String bid = submit(store, 3);
        try {
            await().atMost(Duration.ofSeconds(15)).until(() -> inFlight.get() == 3);
        } finally {
            release.countDown(); // whatever happened, the service can stop without waiting out the held steps
        }
        await().atMost(Duration.ofSeconds(15)).until(() -> store.batches().jobs(bid, BatchRef.COMPLETED).size() == 3);
        assertEquals(3, most.get());
    }
}
