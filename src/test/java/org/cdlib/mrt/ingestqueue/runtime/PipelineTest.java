package org.cdlib.mrt.ingestqueue.runtime;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.tomakehurst.wiremock.WireMockServer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every route file of routes/ run by the real service on a real ZooKeeper: the job and batch
 * consumers move work by the outcome of the steps (replaced here by recording steps), holds
 * are honoured, failures name their cause.
 */
class PipelineTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().withHttp();
    static final WireMockServer http = ZK.http();

    final Path dir = ZK.dir();
    ServiceTestSupport support;
    IngestService service;
    QueueStore store;

    @BeforeEach
    void start() throws Exception {
        support = new ServiceTestSupport();
        service = new IngestService(ServiceTestSupport.config(ZK.connectString(), dir), support.beans()).start();
        store = service.store();
    }

    @AfterEach
    void stop() {
        service.close();
    }

    String submitFiles(int n) {
        StringBuilder m = new StringBuilder("""
            #%checkm_0.7
            #%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-single-file-batch-manifest
            #%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileLastModified \
            | nfo:fileName | mrt:primaryIdentifier | mrt:localIdentifier | mrt:creator | mrt:title | mrt:date
            """);
        for (int i = 0; i < n; i++) {
            m.append(http.baseUrl()).append("/f").append(i).append(".txt | | | | | f").append(i)
                    .append(".txt | | local-").append(i).append(" | A. Author | Title ").append(i).append(" | 2026\n");
        }
        m.append("#%eof\n");
        String path = "/batch-" + System.nanoTime() + ".checkm";
        http.stubFor(get(urlEqualTo(path)).willReturn(aResponse().withBody(m.toString())));
        return store.batches().create(submission(http.baseUrl() + path, "single-file-batch-manifest"));
    }

    static BatchSubmission submission(String url, String type) {
        return new BatchSubmission("demo_content", "tester", url, "what", "who", "2026", null, type, "add", null, null,
                null, null, null, null, "json", null, Instant.now().toString(), null);
    }

    BatchState awaitBatchEnds(String bid) {
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            BatchState s = store.batches().load(bid).state();
            return s == BatchState.COMPLETED || s == BatchState.FAILED;
        });
        return store.batches().load(bid).state();
    }

    @Test
    void aUrlSubmittedWithoutATypeIsTakenForWhatItsFirstBytesSay() {
        String manifest =
                "#%checkm_0.7\n#%profile http://uc3.cdlib.org/registry/ingest/manifest/mrt-single-file-batch-manifest\n"
                        + "#%fields | nfo:fileUrl | nfo:fileName\n" + http.baseUrl() + "/x1.txt | x1.txt\n"
                        + http.baseUrl() + "/x2.txt | x2.txt\n#%eof\n";
        http.stubFor(get(urlEqualTo("/untyped-manifest")).willReturn(aResponse().withBody(manifest)));
        http.stubFor(get(urlEqualTo("/untyped-photo")).willReturn(aResponse().withBody("not a manifest, not a zip")));
        String batch = store.batches().create(submission(http.baseUrl() + "/untyped-manifest", "auto"));
        String single = store.batches().create(submission(http.baseUrl() + "/untyped-photo", "auto"));
        assertEquals(BatchState.COMPLETED, awaitBatchEnds(batch));
        assertEquals(BatchState.COMPLETED, awaitBatchEnds(single));
        List<Job> jobs = store.jobs().load(store.batches().jobs(batch, BatchRef.COMPLETED));
        assertEquals(2, jobs.size(), "a batch manifest by its #%profile");
        assertEquals("file", jobs.get(0).configuration().payloadType());
        List<Job> one = store.jobs().load(store.batches().jobs(single, BatchRef.COMPLETED));
        assertEquals(1, one.size());
        assertEquals("file", one.get(0).configuration().payloadType(), "neither a manifest nor a container: a file");
    }

    @Test
    void everyJobWalksEveryRouteOnceAndTheBatchCompletes() {
        String bid = submitFiles(5);
        assertEquals(BatchState.COMPLETED, awaitBatchEnds(bid));
        Batch batch = store.batches().load(bid);
        List<String> jids = store.batches().jobs(batch.id(), BatchRef.COMPLETED);
        assertEquals(5, jids.size());
        for (String step : ServiceTestSupport.JOB_STEPS) {
            List<String> seen = support.steps.get(step).seen;
            assertEquals(jids.size(), seen.size(), step + " saw " + seen);
            assertTrue(seen.containsAll(jids), step);
        }
        for (Job job : store.jobs().load(jids)) {
            assertEquals(JobState.COMPLETED, job.state());
            assertEquals(JobState.NOTIFY, job.status().lastSuccessful());
            assertNull(job.lockOwner(), "a completed job holds no lock");
        }
        assertEquals(List.of(bid), support.queuedMail.seen);
        assertEquals(List.of(bid), support.report.seen);
    }

    @ParameterizedTest
    @EnumSource(
            value = JobState.class,
            names = {"ESTIMATING", "PROVISIONING", "DOWNLOADING", "PROCESSING", "STORING", "RECORDING", "NOTIFY"})
    void aStepThatThrowsFailsTheJobWithItsMessageAndTheBatchReportsFailure(JobState state) {
        String step = switch (state) {
            case ESTIMATING -> "estimateStep";
            case PROVISIONING -> "provisionStep";
            case DOWNLOADING -> "downloadStep";
            case PROCESSING -> "processStep";
            case STORING -> "storeStep";
            case RECORDING -> "recordStep";
            default -> "notifyStep";
        };
        support.steps.get(step).behaviour.put("jid0000000002", e -> {
            throw new IllegalStateException("http://example.org/f1.txt answered 503");
        });
        String bid = submitFiles(3);
        assertEquals(BatchState.FAILED, awaitBatchEnds(bid));
        Job failed = store.jobs().load("jid0000000002");
        assertEquals(JobState.FAILED, failed.state());
        assertEquals(state.wire() + ": http://example.org/f1.txt answered 503", failed.status().errorMessage());
        JobState before = JobState.values()[state.ordinal() - 1]; // the state a step succeeded in and left (mrt-zk's)
        assertEquals(before, failed.status().lastSuccessful());
        assertEquals(List.of("jid0000000002"), store.batches().jobs(bid, BatchRef.FAILED));
        assertEquals(2, store.batches().jobs(bid, BatchRef.COMPLETED).size());
    }

    @Test
    void aJobThatStaysInProvisioningIsEvaluatedAgainAndGoesOn() {
        AtomicInteger tries = new AtomicInteger();
        support.steps.get("provisionStep").behaviour.put("jid0000000001", e -> {
            if (tries.incrementAndGet() < 3) {
                JobExchange.stay(e, "not enough space yet");
            }
        });
        String bid = submitFiles(1);
        assertEquals(BatchState.COMPLETED, awaitBatchEnds(bid));
        assertEquals(3, tries.get());
        assertEquals(1, support.steps.get("downloadStep").seen.size());
    }

    @Test
    void aHeldCollectionHoldsTheJobsOfNewBatchesAndPendingJobs() {
        store.holds().holdCollection("demo_content", "operator");
        String bid = submitFiles(2);
        // held per job, as Merritt does (issue 42): the batch's jobs are made and each goes to held
        await().atMost(Duration.ofSeconds(10)).until(() -> store.jobs().refs(JobState.HELD).size() == 2);
        assertEquals(BatchState.PROCESSING, store.batches().load(bid).state());

        // jobs created before the hold was noticed go to held from pending (the queue hold keeps the
        // service's batch consumer away while the test creates the jobs itself)
        store.holds().holdQueue("test");
        String other = QueueTestSupport.batchWithJobs(store, 2, 5);
        store.holds().releaseQueue();
        await().atMost(Duration.ofSeconds(10)).until(() -> store.jobs().refs(JobState.HELD).size() == 4);
        assertTrue(support.steps.get("estimateStep").seen.isEmpty());
        assertEquals(BatchState.PROCESSING, store.batches().load(other).state());
    }

    @Test
    void nothingIsTakenWhileTheQueueIsHeldAndWorkResumesAtOnceOnRelease() {
        store.holds().holdQueue("operator");
        String bid = submitFiles(1);
        await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(3))
                .until(() -> store.batches().load(bid).state() == BatchState.PENDING);
        store.holds().releaseQueue();
        assertEquals(BatchState.COMPLETED, awaitBatchEnds(bid));
    }

    @Test
    void workInHandWhenTheSessionExpiresIsAbandonedAndRedoneUnderTheNewSession() throws Exception {
        CountDownLatch redone = new CountDownLatch(1);
        AtomicInteger runs = new AtomicInteger();
        support.steps.get("processStep").behaviour.put("jid0000000001", e -> {
            if (runs.incrementAndGet() == 1) {
                try {
                    // the first run outlives its session; it may finish only once the job was taken again
                    redone.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                }
            } else {
                redone.countDown();
            }
        });
        String bid = submitFiles(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() == 1);
        long before = store.client().getZookeeperClient().getZooKeeper().getSessionId();
        store.client().getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
        assertEquals(BatchState.COMPLETED, awaitBatchEnds(bid));
        assertEquals(2, runs.get(), "the step ran again under the new session");
        assertTrue(store.client().getZookeeperClient().getZooKeeper().getSessionId() != before);
        Job job = store.jobs().load("jid0000000001");
        assertEquals(JobState.COMPLETED, job.state());
        assertEquals(0, job.status().retryCount());
        assertEquals(1, support.steps.get("recordStep").seen.size(), "the abandoned run moved nothing");
    }

    @Test
    void aCorruptManifestSendsTheBatchToReportingWithTheLineAndNoJobs() {
        String path = "/corrupt.checkm";
        http.stubFor(get(urlEqualTo(path)).willReturn(aResponse().withBody("""
            #%checkm_0.7
            #%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-batch-manifest
            #%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue
            http://example.org/a.checkm | md9 | 00
            #%eof
            """)));
        String bid = store.batches().create(submission(http.baseUrl() + path, "batch-manifest"));
        assertEquals(BatchState.FAILED, awaitBatchEnds(bid));
        Batch batch = store.batches().load(bid);
        assertTrue(batch.status().errorMessage().contains("manifest line 4"), batch.status().errorMessage());
        assertTrue(batch.status().errorMessage().contains("md9"), batch.status().errorMessage());
        assertEquals(0, batch.jobCount());
        assertTrue(store.jobs().refs(JobState.PENDING).isEmpty());
    }
}
