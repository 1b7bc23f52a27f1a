package org.cdlib.mrt.ingestqueue.queue.batches;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.cdlib.mrt.ingestqueue.batch.BatchPendingStep;
import org.cdlib.mrt.ingestqueue.camel.BatchExchange;
import org.cdlib.mrt.ingestqueue.fetch.AddressPolicy;
import org.cdlib.mrt.ingestqueue.fetch.FetchSettings;
import org.cdlib.mrt.ingestqueue.fetch.Fetcher;
import org.cdlib.mrt.ingestqueue.profile.ProfileDirectory;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.cdlib.mrt.ingestqueue.testing.merritt.MrtZk;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A batch Merritt's ingest front end creates through mrt-zk ({@code Batch.createBatch} with the
 * submission mrt-ingest's {@code batchProcess.HandlerSubmit} writes, its upload in Merritt's queue
 * directory, here {@code <ingest.home>/uploads}) is taken into this queue and made into jobs by our
 * Batch Pending, once; a batch an mrt-zk host picked up itself is left to it.
 */
class MerrittBatchIntakeTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    final Path dir = ZK.dir();
    QueueStore store;
    BatchPendingStep step;
    CuratorFramework neighbourClient;
    MrtZk mrtZk;

    @BeforeEach
    void setUp() throws Exception {
        store = ZK.store(dir.resolve("queue"));
        Path profiles = Files.createDirectories(dir.resolve("profiles"));
        Files.writeString(
                profiles.resolve("demo_content"),
                "ProfileID: demo_content\nCollection.1: ark:/99999/fk4demo\n" + "StorageNode: 7777\n");
        step = new BatchPendingStep(store, new ProfileDirectory(profiles), new Fetcher(FetchSettings.defaults()
                .withAllow(AddressPolicy.LOOPBACK), dir.resolve("queue")));
        neighbourClient = ZK.otherClient();
        mrtZk = new MrtZk(neighbourClient.getZookeeperClient().getZooKeeper());
    }

    @Test
    void aBatchMerrittCreatesIsTakenOnceAndMadeIntoJobsHere() throws Exception {
        String uuid = "bid-5b0e6f0e-2c1e-4d8e-9b0a-1f1f1f1f1f1f";
        Path upload = Files.createDirectories(dir.resolve("queue/uploads").resolve(uuid)).resolve("hello.txt");
        Files.writeString(upload, "hello");
        String bid = mrtZk.createBatch(uuid, MrtZk.submission(uuid, "hello.txt"));

        assertEquals(List.of(bid), store.adoptMerrittBatches());
        assertEquals(List.of(), store.adoptMerrittBatches(), "taken once; the next pass reads only newer numbers");
        assertNotNull(ZK.client().checkExists().forPath("/batches/" + bid + "/states"),
                "mrt-zk's acquirePendingBatch passes it by from now on");
        assertEquals(List.of(bid), store.batches().ids(BatchState.PENDING));
        assertEquals("Pending", mrtZk.batchStatus(bid));

        HeldBatch lock = store.batches().tryLock(bid, "batch-pending").orElseThrow();
        BatchSubmission s = lock.batch().submission();
        assertEquals("demo_content", s.profileName());
        assertEquals(upload.toUri().toString(), s.payloadUrl());
        assertEquals("add", s.submissionMode());
        assertEquals("A greeting", s.ercWhat());
        Exchange ex = new DefaultExchange(new DefaultCamelContext());
        BatchExchange.put(ex, lock);
        step.process(ex);
        assertEquals(BatchState.PROCESSING, BatchExchange.next(ex), String.valueOf(ex.getProperties()));
        store.moves().unlock(lock);
        List<String> jids = store.batches().jobs(bid, BatchRef.PROCESSING);
        assertEquals(1, jids.size());
        Job job = store.jobs().load(jids.get(0));
        assertEquals(upload.toUri().toString(), job.configuration().payloadUrl());
        assertEquals(List.of("greeting-1"), job.identifiers().localId());
        assertEquals("Pending", mrtZk.loadJob(job.id()).status());
    }

    @Test
    void aJobMerrittsIngestCreatesIsReadWithItsPayloadOnTheSharedDisk() throws Exception {
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        String jid = mrtZk.createJob(bid, 5, "{\"submissionDate\":\"2026-11-24T10:00:00+00:00\",\"batchID\":\"bid-u1\","
                + "\"jobID\":\"jid-u2\",\"profile\":\"demo_content\",\"type\":\"manifest\",\"submitter\":\"merritt\","
                + "\"filename\":\"obj.checkm\",\"update\":true,\"title\":\"T\",\"creator\":\"C\",\"localID\":\"l-1\"}",
                "{\"primary_id\":\"\",\"local_id\":[\"l-1\"]}");
        JobConfiguration c = store.jobs().load(jid).configuration();
        assertEquals("demo_content", c.profileName());
        assertEquals(
                dir.resolve("queue/uploads/bid-u1/jid-u2/obj.checkm")
                        .toAbsolutePath()
                        .normalize()
                        .toUri()
                        .toString(),
                c.payloadUrl());
        assertEquals("object_manifest", c.payloadType());
        assertEquals("update", c.submissionMode());
        assertEquals("T", c.ercWhat());
        assertEquals(
                dir.resolve("queue")
                        .resolve(bid)
                        .resolve(jid)
                        .toAbsolutePath()
                        .normalize()
                        .toString(),
                c.workingDir());
        assertTrue(new ConsistencyCheck(store).check().clean(), new ConsistencyCheck(store).check().toString());
    }

    @Test
    void aBatchStillBeingCreatedIsLookedAtAgainAndOneAnMrtZkHostTookIsLeftToIt() throws Exception {
        String half = neighbourClient
                .create()
                .withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                .forPath("/batches/bid", new byte[0])
                .substring("/batches/".length());
        assertEquals(List.of(), store.adoptMerrittBatches(), "no status yet: not taken, not passed");
        neighbourClient.create().forPath("/batches/" + half + "/submission",
                MrtZk.submission("bid-a", "a.txt").getBytes(StandardCharsets.UTF_8));
        neighbourClient.create().forPath("/batches/" + half + "/status", ("{\"message\":\"\",\"last_modified\":\""
                + MrtZk.now() + "\",\"status\":\"Pending\"}").getBytes(StandardCharsets.UTF_8));

        String taken = mrtZk.createBatch("bid-b", MrtZk.submission("bid-b", "b.txt"));
        // an mrt-zk host's acquirePendingBatch: lock, states, Processing
        assertTrue(mrtZk.lock("/batches/" + taken));
        neighbourClient.create().forPath("/batches/" + taken + "/states");
        neighbourClient.setData().forPath("/batches/" + taken + "/status", ("{\"message\":\"\",\"last_modified\":\""
                + MrtZk.now() + "\",\"status\":\"Processing\"}").getBytes(StandardCharsets.UTF_8));

        assertEquals(List.of(half), store.adoptMerrittBatches());
        assertEquals(List.of(half), store.batches().ids(BatchState.PENDING));
        assertEquals("Processing", mrtZk.batchStatus(taken));
        mrtZk.unlock("/batches/" + taken);
    }
}
