package org.cdlib.mrt.ingestqueue.runtime;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.head;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.NewJob;
import org.cdlib.mrt.ingestqueue.queue.model.QueueHealth;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SIGTERM on a service whose downloads wait for connections to a slow payload server: the ones
 * under way finish and reach their transition; the ones waiting for a connection are never sent
 * (WireMock receives nothing after the stop began) and their jobs stay in downloading, unfailed.
 */
class StopSendsNothingNewTest {
    static final int JOBS = 10;
    static final int WORKERS = 6;
    static final int CONNECTIONS = 2;

    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    final Path dir = ZK.dir();
    final WireMockServer payloads = new WireMockServer(options().dynamicPort().containerThreads(40));

    @AfterEach
    void stopPayloads() {
        payloads.stop();
    }

    @Test
    void theStopSendsNoDownloadThatWaitedForAConnection() throws Exception {
        payloads.start();
        payloads.stubFor(head(urlPathMatching("/slow/.*")).willReturn(aResponse().withHeader("Content-Length", "100")));
        payloads.stubFor(get(urlPathMatching("/slow/.*"))
                .willReturn(aResponse().withBody(new byte[100]).withFixedDelay(4_000)));
        Map<String, String> config = new HashMap<>(ServiceTestSupport.config(ZK.connectString(), dir));
        config.put("camel.main.shutdown-timeout", "30");
        config.put("ingest.concurrency.downloading", String.valueOf(WORKERS));
        config.put("ingest.download.parallelism", "1");
        config.put("ingest.fetch.connections-per-host", String.valueOf(CONNECTIONS));
        Map<String, Object> beans = new ServiceTestSupport().beans();
        beans.remove("estimateStep"); // the real estimate and download steps, with the service's fetcher
        beans.remove("downloadStep");
        IngestService service = new IngestService(config, beans).start();
        QueueStore store = service.store();
        String bid = batch(store);

        QueueHealth.Workers downloading = await().atMost(Duration.ofSeconds(60)).until(
                () -> store.health().workers().entrySet().stream().filter(e -> e.getKey().contains("downloading"))
                        .map(Map.Entry::getValue).findFirst().orElse(null),
                w -> w != null && w.busy().getAsInt() == WORKERS && gets().size() == CONNECTIONS);
        Date stopBegan = new Date();
        long t0 = System.nanoTime();
        service.close();
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);

        List<LoggedRequest> after = gets().stream().filter(r -> !r.getLoggedDate().before(stopBegan)).toList();
        assertEquals(List.of(), after, "no GET reached the payload server after the stop began");
        assertEquals(CONNECTIONS, gets().size(), "only the downloads under way were sent");
        System.out.printf("stop: %d download(s) under way, %d waiting for a connection; took %d ms%n",
                CONNECTIONS, downloading.capacity() - CONNECTIONS, tookMs);
        assertTrue(tookMs < 25_000, "the stop took " + tookMs + " ms");

        QueueStore later = ZK.store(dir);
        List<Job> jobs = new ArrayList<>();
        for (BatchRef ref : List.of(BatchRef.PROCESSING, BatchRef.COMPLETED)) {
            later.batches().jobs(bid, ref).forEach(j -> jobs.add(later.jobs().load(j)));
        }
        long movedOn = jobs.stream().filter(j -> j.state().ordinal() > JobState.DOWNLOADING.ordinal()).count();
        long stayed = jobs.stream().filter(j -> j.state() == JobState.DOWNLOADING).count();
        assertEquals(CONNECTIONS, movedOn, "the downloads under way reached their transition: " + jobs);
        assertEquals(WORKERS - CONNECTIONS, stayed - (JOBS - WORKERS), "the waiting ones stayed in downloading");
        for (Job j : jobs) {
            assertNull(j.status().errorMessage(), "no job failed: " + j.id());
            assertEquals(0, j.status().retryCount(), j.id());
        }
    }

    List<LoggedRequest> gets() {
        return payloads.findAll(getRequestedFor(urlPathMatching("/slow/.*")));
    }

    /** A processing batch of {@link #JOBS} jobs, each one file on the slow payload server. */
    String batch(QueueStore store) {
        store.holds().holdQueue("test"); // the batch is made here, not by the service's batch-pending route
        String bid = store.batches().create(QueueTestSupport.submission("demo_content"));
        HeldBatch lock = store.batches().tryLock(bid, "test").orElseThrow();
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            JobConfiguration c = new JobConfiguration(null, "demo_content", "tester",
                    "http://127.0.0.1:" + payloads.port() + "/slow/f" + i + ".bin", "file", "json", "add", null,
                    "loc" + i, null, null, null, null, "who", "what", "when", null, Map.of());
            jobs.add(new NewJob(c, new Identifiers(null, List.of("loc" + i)), 5));
        }
        store.batches().createJobs(lock, jobs);
        store.moves().transition(lock, BatchState.PROCESSING, "jobs created", null, null);
        store.holds().releaseQueue();
        return bid;
    }
}
