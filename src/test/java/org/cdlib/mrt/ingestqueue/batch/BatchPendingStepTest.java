package org.cdlib.mrt.ingestqueue.batch;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.tomakehurst.wiremock.WireMockServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.cdlib.mrt.ingestqueue.camel.BatchExchange;
import org.cdlib.mrt.ingestqueue.fetch.AddressPolicy;
import org.cdlib.mrt.ingestqueue.fetch.FetchSettings;
import org.cdlib.mrt.ingestqueue.fetch.Fetcher;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.profile.ProfileDirectory;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Batch Pending against a real ZooKeeper, with manifests served over real HTTP. */
class BatchPendingStepTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().withHttp();
    static final WireMockServer http = ZK.http();
    static final String FIELDS = "#%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize |"
            + " nfo:fileLastModified | nfo:fileName | mrt:primaryIdentifier | mrt:localIdentifier | mrt:creator |"
            + " mrt:title | mrt:date\n";

    final Path dir = ZK.dir();
    QueueStore store;
    BatchPendingStep step;

    @BeforeEach
    void setUp() throws Exception {
        store = ZK.store(dir.resolve("queue"));
        Path profiles = Files.createDirectories(dir.resolve("profiles"));
        Files.writeString(profiles.resolve("demo_content"), """
            ProfileID: demo_content
            Collection.1: ark:/99999/fk4demo
            StorageNode: 7777
            """);
        Files.writeString(profiles.resolve("urgent"), """
            ProfileID: urgent
            Collection.1: ark:/99999/fk4urgent
            StorageNode: 7777
            Priority: 01
            """);
        step = new BatchPendingStep(
                store,
                new ProfileDirectory(profiles),
                new Fetcher(
                        FetchSettings.defaults()
                                .withAllow(AddressPolicy.LOOPBACK)
                                .withRetries(0, Duration.ZERO),
                        dir.resolve("queue")));
    }

    String serve(String kind, String... rows) {
        StringBuilder m = new StringBuilder("#%checkm_0.7\n#%profile | http://uc3.cdlib.org/registry/ingest/manifest/")
                .append(kind).append('\n').append(FIELDS);
        for (String r : rows) {
            m.append(r).append('\n');
        }
        m.append("#%eof\n");
        String path = "/m" + System.nanoTime() + ".checkm";
        http.stubFor(get(urlEqualTo(path)).willReturn(aResponse().withBody(m.toString())));
        return http.baseUrl() + path;
    }

    static BatchSubmission submission(String profile, String url, String type) {
        return new BatchSubmission(
                profile,
                "tester",
                url,
                "Sub title",
                "Sub who",
                "2026",
                null,
                type,
                "add",
                "f.txt",
                "loc-a; loc-b",
                null,
                "md5",
                "00112233445566778899aabbccddeeff",
                null,
                "json",
                null,
                "2026-11-22T00:00:00Z",
                null);
    }

    Exchange run(BatchSubmission s) throws Exception {
        String bid = store.batches().create(s);
        HeldBatch lock = store.batches().tryLock(bid, "test").orElseThrow();
        Exchange ex = new DefaultExchange(new DefaultCamelContext());
        BatchExchange.put(ex, lock);
        step.process(ex);
        store.moves().unlock(lock);
        ex.setProperty("bid", bid);
        return ex;
    }

    List<Job> jobs(Exchange ex) {
        return store.jobs().load(store.batches().jobs(ex.getProperty("bid", String.class), BatchRef.PROCESSING));
    }

    @Test
    void aSingleFileIsOneJobWithTheSubmissionsIdentifiersAndDigest() throws Exception {
        Exchange ex = run(submission("demo_content", "http://example.org/f.txt", "file"));
        assertEquals(BatchState.PROCESSING, BatchExchange.next(ex));
        Job job = jobs(ex).get(0);
        assertEquals("file", job.configuration().payloadType());
        assertEquals("f.txt", job.configuration().fileName());
        assertEquals("md5", job.configuration().digestType());
        assertEquals(List.of("loc-a", "loc-b"), job.identifiers().localId());
        assertEquals(3, job.priority(), "a one-object batch runs early");
    }

    @Test
    void containerAndObjectManifestAreOneJobEach() throws Exception {
        assertEquals("container", jobs(run(submission("demo_content", "http://example.org/c.zip", "container"))).get(0)
                .configuration().payloadType());
        assertEquals("object_manifest", jobs(run(submission("demo_content", "http://example.org/o.checkm", "manifest")))
                .get(0).configuration().payloadType());
    }

    @Test
    void aBatchManifestIsOneJobPerRowWithTheRowsIdentifiersAndErc() throws Exception {
        String url = serve("mrt-batch-manifest",
                "http://example.org/a.checkm | | | | | a.checkm | ark:/99999/fk4aaa | la1;la2;la1 | Ann | Alpha | 2001",
                "http://example.org/b.checkm | | | | | b.checkm | | lb | | | ");
        Exchange ex = run(submission("urgent", url, "batch-manifest"));
        List<Job> jobs = jobs(ex);
        assertEquals(2, jobs.size());
        Job a = jobs.get(0);
        assertEquals("object_manifest", a.configuration().payloadType());
        assertEquals("ark:/99999/fk4aaa", a.identifiers().primary());
        assertEquals(List.of("la1", "la2"), a.identifiers().localId());
        assertEquals("Ann", a.configuration().ercWho());
        assertEquals("Alpha", a.configuration().ercWhat());
        assertEquals(1, a.priority(), "the profile's Priority wins");
        Job b = jobs.get(1);
        assertNull(b.identifiers().primary());
        assertEquals("Sub who", b.configuration().ercWho(), "a row without a creator keeps the submission's");
    }

    @Test
    void containerAndSingleFileBatchManifestsGiveTheirPayloadTypes() throws Exception {
        String c = serve("mrt-container-batch-manifest", "http://example.org/a.zip | | | | | a.zip | | | | | ");
        assertEquals("container", jobs(run(submission("demo_content", c, "container-batch-manifest"))).get(0)
                .configuration().payloadType());
        String f = serve("mrt-single-file-batch-manifest",
                "http://example.org/d.jpg | md5 | aa59e145dfb2237ecd8cb5ce4f4953ea | 12 | | dragon.jpg | | | | | ");
        Job job = jobs(run(submission("demo_content", f, "single-file-batch-manifest"))).get(0);
        assertEquals("file", job.configuration().payloadType());
        assertEquals("dragon.jpg", job.configuration().fileName());
        assertEquals(12L, job.configuration().fileSize());
    }

    @Test
    void aCorruptManifestIsRefusedNamingTheLineAndCreatesNothing() throws Exception {
        String url = serve("mrt-batch-manifest", "http://example.org/a.checkm | | | | | a.checkm | | | | | ",
                "ftp://example.org/b.checkm | | | | | b.checkm | | | | | ");
        Exchange ex = run(submission("demo_content", url, "batch-manifest"));
        assertEquals(BatchState.REPORTING, BatchExchange.next(ex));
        String error = BatchExchange.error(ex);
        assertTrue(error.startsWith("manifest line 5: ") && error.contains("ftp"), error);
        assertTrue(store.jobs().refs(JobState.PENDING).isEmpty(), "no job was created");
    }

    @Test
    void aManifestOfTheWrongKindATruncatedOneAndAMissingOneAreRefused() throws Exception {
        String object = serve("mrt-ingest-manifest", "http://example.org/a.txt | | | | | a.txt | | | | | ");
        assertTrue(BatchExchange.error(run(submission("demo_content", object, "batch-manifest")))
                .contains("mrt-ingest-manifest"));
        http.stubFor(get(urlEqualTo("/truncated.checkm")).willReturn(aResponse().withBody("#%checkm_0.7\n" + FIELDS)));
        assertTrue(BatchExchange.error(
                        run(submission("demo_content", http.baseUrl() + "/truncated.checkm", "batch-manifest")))
                .contains("#%eof"));
        String missing = BatchExchange.error(run(submission("demo_content", http.baseUrl() + "/nothing-here.checkm",
                "batch-manifest")));
        assertTrue(missing.contains("/nothing-here.checkm") && missing.contains("404"), missing);
    }

    @Test
    void anUnknownProfileTypeOrUrlSchemeIsRefusedWithItsName() throws Exception {
        assertEquals(
                "unknown profile 'nope'", BatchExchange.error(run(submission("nope", "http://example.org/f", "file"))));
        assertTrue(BatchExchange.error(run(submission("demo_content", "http://example.org/f", "zip")))
                .contains("unknown submission type 'zip'"));
        assertTrue(BatchExchange.error(run(submission("demo_content", "gopher://example.org/f", "file")))
                .contains("gopher"));
    }

    @Test
    void aBatchOfAHeldCollectionHasItsJobsMadeAsMerrittsDoes() throws Exception {
        // Merritt holds per job (its job consumer moves a pending job of a locked collection to held):
        // the batch goes on to processing and each job's pending step holds it (issue 42)
        store.holds().holdCollection("demo_content", "operator");
        Exchange ex = run(submission("demo_content", "http://example.org/f.txt", "file"));
        assertEquals(BatchState.PROCESSING, BatchExchange.next(ex));
        assertEquals(1, jobs(ex).size());
    }

    @Test
    void withoutAProfilePriorityLargerBatchesRunLater() {
        var p = Profile.parse("ProfileID: x\nCollection.1: ark:/1/c\nStorageNode: 1\n", "x");
        assertEquals(3, BatchPendingStep.priority(p, 1));
        assertEquals(5, BatchPendingStep.priority(p, 50));
        assertEquals(7, BatchPendingStep.priority(p, 500));
        assertEquals(9, BatchPendingStep.priority(p, 10_000));
    }
}
