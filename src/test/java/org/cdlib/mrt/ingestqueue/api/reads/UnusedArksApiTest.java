package org.cdlib.mrt.ingestqueue.api.reads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.cdlib.mrt.ingestqueue.api.HttpApi;
import org.cdlib.mrt.ingestqueue.api.admin.AdminRoutes;
import org.cdlib.mrt.ingestqueue.api.auth.ApiUsers;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The operator's list of ARKs a job may have left unused at the minter, over real HTTP on a real
 * ZooKeeper: the job's view ({@code GET /api/jobs/JID}) and the consistency check's notices
 * ({@code GET /api/fsck}), which leave the report clean.
 */
class UnusedArksApiTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    @TempDir
    Path dir;

    @Test
    void aLostMintAnswerAndAnArkAnotherJobsBindingDisplacedAreListedForTheOperator() throws Exception {
        QueueStore store = ZK.store(dir.resolve("queue"));
        String bid = QueueTestSupport.batchWithJobs(store, 2, 5);
        List<String> jids = store.batches().load(bid).jobIds();
        // a mint whose answer was lost, then the next attempt's
        HeldJob lost = store.claims().tryLockJob(jids.get(0), "test").orElseThrow();
        store.stepWrites().effectStarted(lost, JobEffects.MINT, "demo_content");
        store.stepWrites().mintAgain(lost, "demo_content");
        store.stepWrites().writeMintedIdentifiers(lost, new Identifiers("ark:/99999/fk4kept", List.of("loc0")),
                "ark:/99999/fk4kept");
        store.moves().unlock(lost);
        // a mint whose local id another job bound first
        HeldJob displaced = store.claims().tryLockJob(jids.get(1), "test").orElseThrow();
        store.stepWrites().effectStarted(displaced, JobEffects.MINT, "demo_content");
        store.stepWrites().writeMintedIdentifiers(displaced, new Identifiers("ark:/99999/fk4winner", List.of("loc1")),
                "ark:/99999/fk4mine");
        store.moves().unlock(displaced);

        HttpApi api = readAndAdminApi(store);
        try {
            JsonNode job = get(api, "/api/jobs/" + jids.get(0));
            assertEquals("lost", job.at("/effects/lost_mint/state").asText(), job.toString());
            assertEquals("1", job.at("/effects/lost_mint/detail").asText());
            assertEquals(1, job.get("unused_arks").size(), job.toString());
            assertEquals("lost-mint", job.at("/unused_arks/0/kind").asText());
            assertTrue(job.at("/unused_arks/0/detail").asText().contains("may exist at the minter (EZID) unused"),
                    job.toString());

            JobEffects fx = store.jobs().effects(jids.get(1));
            assertEquals("unused-ark", fx.unusedArks("ark:/99999/fk4winner").get(0).kind());
            JsonNode other = get(api, "/api/jobs/" + jids.get(1));
            assertTrue(other.at("/unused_arks/0/detail").asText().startsWith(
                    "ark:/99999/fk4mine was minted and not used"),
                    other.toString());

            JsonNode fsck = get(api, "/api/fsck");
            assertEquals(0, fsck.get("violations").size(), fsck.toString());
            assertEquals(2, fsck.get("notices").size(), fsck.toString());
            assertEquals("lost-mint", fsck.at("/notices/0/kind").asText());
            assertTrue(fsck.at("/notices/0/detail").asText().startsWith("job " + jids.get(0) + " batch " + bid),
                    fsck.toString());
            assertEquals("unused-ark", fsck.at("/notices/1/kind").asText());
        } finally {
            api.stop();
        }
    }

    /** In both shapes of a completed job (issue 42): Merritt's (every node kept) and compacted (its status alone). */
    @ParameterizedTest(name = "merritt neighbours {0}")
    @ValueSource(booleans = {true, false})
    void aCompletedJobsViewSearchAndFsckAnswerAreWhatTheyWereBeforeItWasCompacted(
            boolean merrittNeighbours) throws Exception {
        QueueStore store = ZK.store(dir.resolve("queue"));
        store.jobs().merrittNeighbours(merrittNeighbours);
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        String jid = store.batches().load(bid).jobIds().get(0);
        QueueTestSupport.walk(store, jid, QueueTestSupport.pipelineTo(JobState.PROCESSING));
        HeldJob lock = store.claims().tryLockJob(jid, "test").orElseThrow();
        store.stepWrites().effectStarted(lock, JobEffects.MINT, "demo_content");
        store.stepWrites().writeMintedIdentifiers(lock, new Identifiers("ark:/99999/fk4winner", List.of("loc0")),
                "ark:/99999/fk4mine");
        store.stepWrites().effectDone(lock, JobEffects.EZID_UPDATE, "ark:/99999/fk4winner");
        store.moves().unlock(lock);
        QueueTestSupport.walk(store, jid, JobState.STORING,
                JobState.RECORDING, JobState.NOTIFY);

        HttpApi api = readAndAdminApi(store);
        try {
            ObjectNode before = (ObjectNode) get(api, "/api/jobs/" + jid);
            Object searchBefore = new Search(store).find("loc0", null, 0);
            JsonNode fsckBefore = get(api, "/api/fsck");
            QueueTestSupport.walk(store, jid, JobState.COMPLETED);
            assertEquals(merrittNeighbours ? List.of("bid", "configuration", "effects", "identifiers", "metadata",
                    "priority",
                    "space_needed", "status") : List.of("status"), ZK.client().getChildren()
                    .forPath("/jobs/" + jid).stream().sorted().toList(), "compacted");

            ObjectNode after = (ObjectNode) get(api, "/api/jobs/" + jid);
            assertEquals("completed", after.at("/status/status").asText());
            before.remove("status");
            after.remove("status");
            assertEquals(before, after, "everything but the status itself");
            assertEquals(1, after.get("unused_arks").size(), after.toString());
            assertEquals(searchBefore, new Search(store).find("loc0", null, 0), "search's answer");
            assertTrue(searchBefore.toString().contains(jid), searchBefore.toString());
            assertEquals(fsckBefore.get("notices"), get(api, "/api/fsck").get("notices"));
            assertEquals(0, get(api, "/api/fsck").get("violations").size());
        } finally {
            api.stop();
        }
    }

    private static JsonNode get(HttpApi api, String path) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + api.port() + path))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("alice:pw-a".getBytes()))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return new ObjectMapper().readTree(r.body());
    }

    /** The read and admin routes on a started API, as the service registers them. */
    private HttpApi readAndAdminApi(QueueStore store) {
        HttpApi api = new HttpApi(ApiUsers.parse("alice:pw-a:admin"), "127.0.0.1", 0, 1_000_000,
                dir.resolve("uploads"));
        ReadRoutes reads = new ReadRoutes(store);
        reads.register(api);
        new AdminRoutes(new AdminActions(store, Clock.systemUTC()), new ConsistencyCheck(store), null, reads,
                Duration.ofDays(7))
                .register(api);
        api.start();
        return api;
    }
}
