package org.cdlib.mrt.ingestqueue.routes;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.tomakehurst.wiremock.http.Fault;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.module.QueueModule;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionEvent;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.steps.ProcessingModule;
import org.junit.jupiter.api.Test;

/**
 * routes/processing.yaml and routes/storing.yaml on their zkqueue consumers, with the service's
 * own beans, Merritt storage on WireMock (every add counted) and the local minter and inventory:
 * processing prepares the object and hands it to storing, which sends the add once and moves
 * the job to recording; the object's lock is held from processing through storing into
 * recording; a storage failure fails the job in storing, and a requeue resumes it there, without
 * processing (and minting) again.
 */
class StoringRouteTest extends RouteTestSupport {
    static final String ADDS = "/store/add/7777/.*";
    static final String STATES = "/store/state/7777/.*";

    @Override
    protected Map<String, String> properties() {
        Map<String, String> p = super.properties();
        p.put("ingest.storage", "http");
        p.put("ingest.files.base-url", "http://queue.example.org/files");
        p.put("ingest.inventory.local.url", "jdbc:h2:mem:storing" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        p.put("ingest.services.retry-delay", "10");
        p.put("ingest.storage.settle", "PT1S"); // an add whose answer was lost is given a second to land
        return p;
    }

    @Override
    protected List<QueueModule> modules() {
        return List.of(new ProcessingModule());
    }

    @Override
    protected String profileLines() {
        return "StorageNode: 7777\nStorageService: " + HTTP.baseUrl() + "/store\n";
    }

    /** A job in processing whose download is done (producer/a.txt), with the two routes consuming. */
    String processingJob() throws Exception {
        load("processing.yaml", "storing.yaml");
        String jid = jobIn(JobState.PROCESSING, fileJob("http://x/a.txt", "a.txt", null, null, null), 5);
        Path producer = Files.createDirectories(
                Path.of(store.jobs().load(jid).configuration().workingDir(), "producer"));
        Files.writeString(producer.resolve("a.txt"), "hello");
        context.start();
        return jid;
    }

    Job awaitState(String jid, JobState state) {
        await().atMost(Duration.ofSeconds(20)).until(() -> store.jobs().load(jid).state() == state);
        return store.jobs().load(jid);
    }

    /** The job the object's lock names, or null when the object is not locked. */
    String objectLockHolder(String ark) throws Exception {
        String path = QueuePaths.objectLock(ark);
        return ZK.client().checkExists().forPath(path) == null
                ? null
                : QueueJson.text(ZK.client().getData().forPath(path));
    }

    long moves(String jid, String from, String to) {
        return transitions.stream().filter(t -> TransitionEvent.JOB.equals(t.kind()) && t.id().equals(jid)
                && String.valueOf(t.from()).equals(from) && t.to().equals(to)).count();
    }

    static int adds() {
        return HTTP.findAll(postRequestedFor(urlPathMatching(ADDS))).size();
    }

    @Test
    void processingHandsTheObjectToStoringWhichSendsTheAddOnceHoldingTheObjectsLock() throws Exception {
        HTTP.stubFor(get(urlPathMatching(STATES)).willReturn(aResponse().withStatus(404)));
        // slow enough to see the job in storing, its add under way
        HTTP.stubFor(post(urlPathMatching(ADDS)).willReturn(aResponse().withStatus(200).withFixedDelay(1500)
                .withBody("{\"versionState\":{\"versionID\":1}}")));
        String jid = processingJob();

        // the add is recorded as begun right before it is sent
        await().atMost(Duration.ofSeconds(20)).until(() -> store.jobs().effects(jid).unresolved(JobEffects.STORAGE));
        Job storing = store.jobs().load(jid);
        assertEquals(JobState.STORING, storing.state());
        String ark = storing.identifiers().primary();
        assertEquals(jid, objectLockHolder(ark), "the lock processing took is held while storing writes");

        Job recording = awaitState(jid, JobState.RECORDING);
        assertEquals(JobState.STORING, recording.status().lastSuccessful());
        assertEquals(1, adds(), "one add, sent from storing");
        assertEquals(1, HTTP.findAll(getRequestedFor(urlPathMatching(STATES))).size());
        assertEquals("prepared " + ark + " for storing (add mode)", reasonOf(jid, "storing"));
        assertEquals("stored " + ark + " version 1 (add mode)", reasonOf(jid, "recording"));
        assertEquals(jid, objectLockHolder(ark), "and kept into recording");
        assertTrue(store.jobs().effects(jid).done(JobEffects.STORAGE));
        String manifest =
                Files.readString(Path.of(recording.configuration().workingDir(), "system", "mrt-manifest.txt"));
        assertTrue(
                manifest.contains("http://queue.example.org/files/") && manifest.contains("producer/a.txt"), manifest);
        // mrt-zk's description of the add and of the inventory record
        // (Job.storeManifestUrl/storeMode, inventoryManifestUrl)
        JsonNode stored = QueueJson.MAPPER.readTree(ZK.client().getData().forPath("/jobs/" + jid + "/store"));
        assertEquals("add/7777/" + URLEncoder.encode(ark, StandardCharsets.UTF_8), stored.get("mode").asText());
        assertEquals("", stored.get("delete").asText());
        assertTrue(stored.get("manifest_url").asText().startsWith("http://queue.example.org/files/")
                && stored.get("manifest_url").asText().contains("system/mrt-manifest.txt"), stored.toString());
        JsonNode inventory = QueueJson.MAPPER.readTree(ZK.client().getData().forPath("/jobs/" + jid + "/inventory"));
        assertEquals(HTTP.baseUrl() + "/store/manifest/7777/" + URLEncoder.encode(ark, StandardCharsets.UTF_8),
                inventory.get("manifest_url").asText());
        assertEquals("", inventory.get("mode").asText());
    }

    @Test
    void aStorageFailureFailsTheJobInStoringAndARequeueResumesThereWithoutProcessingAgain() throws Exception {
        HTTP.stubFor(get(urlPathMatching(STATES)).willReturn(aResponse().withStatus(404)));
        HTTP.stubFor(post(urlPathMatching(ADDS)).willReturn(aResponse().withStatus(500).withBody("disk full")));
        String jid = processingJob();

        Job failed = awaitState(jid, JobState.FAILED);
        String ark = failed.identifiers().primary();
        assertEquals(JobState.PROCESSING, failed.status().lastSuccessful());
        assertEquals(
                "storing: POST " + HTTP.baseUrl() + "/store/add/7777/" + URLEncoder.encode(ark, StandardCharsets.UTF_8)
                        + ": HTTP 500: disk full; it may have been applied, so it is not sent again",
                failed.status().errorMessage());
        assertEquals(1, adds(), "an add that may have been applied is not sent again by the route");
        assertNull(objectLockHolder(ark), "a failure in storing lets the object go");

        HTTP.stubFor(post(urlPathMatching(ADDS)).willReturn(aResponse().withStatus(200)
                .withBody("{\"versionState\":{\"versionID\":1}}")));
        assertEquals(JobState.STORING, new AdminActions(store, Clock.systemUTC()).requeueJob(jid, "op").state());
        Job recording = awaitState(jid, JobState.RECORDING);
        assertEquals(2, adds(), "the refused add and the one that stored");
        assertEquals(1, moves(jid, "processing", "storing"), "processed once");
        assertEquals(1, moves(jid, "failed", "storing"));
        assertEquals(0, moves(jid, "failed", "processing"));
        assertEquals(ark, recording.identifiers().primary(), "the same ARK: nothing minted again");
        assertEquals(ark, store.jobs().effects(jid).get(JobEffects.MINT).detail());
        assertEquals(jid, objectLockHolder(ark), "taken again by storing, held into recording");
    }

    @Test
    void anAddWhoseAnswerWasLostIsNotSentAgainWhenTheRequeuedJobFindsTheVersionStored() throws Exception {
        // storage applies the add, then the connection breaks before its answer
        HTTP.stubFor(get(urlPathMatching(STATES)).inScenario("store").whenScenarioStateIs(Scenario.STARTED)
                .willReturn(aResponse().withStatus(404)));
        HTTP.stubFor(post(urlPathMatching(ADDS)).inScenario("store").whenScenarioStateIs(Scenario.STARTED)
                .willReturn(aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER)).willSetStateTo("applied"));
        HTTP.stubFor(get(urlPathMatching(STATES)).inScenario("store").whenScenarioStateIs("applied")
                .willReturn(aResponse().withStatus(200).withBody("{\"versionState\":{\"currentVersion\":1}}")));
        String jid = processingJob();

        Job failed = awaitState(jid, JobState.FAILED);
        assertTrue(failed.status().errorMessage().startsWith("storing: ")
                && failed.status().errorMessage().contains("may have been applied, so it is not sent again"),
                failed.status().errorMessage());
        assertTrue(store.jobs().effects(jid).unresolved(JobEffects.STORAGE), "begun, never answered");

        new AdminActions(store, Clock.systemUTC()).requeueJob(jid, "op");
        awaitState(jid, JobState.RECORDING);
        assertEquals(1, adds(), "storage was asked, and had the version: the add is sent exactly once");
        assertEquals("stored " + failed.identifiers().primary() + " version 1 (add mode)", reasonOf(jid, "recording"));
        assertEquals(1, moves(jid, "processing", "storing"));
    }
}
