package org.cdlib.mrt.ingestqueue.steps;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.containing;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.exactly;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.http.Fault;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.cdlib.mrt.ingestqueue.objects.FileUrlSigner;
import org.cdlib.mrt.ingestqueue.profile.ProfileDirectory;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.space.Counters;
import org.cdlib.mrt.ingestqueue.services.LocalMinter;
import org.cdlib.mrt.ingestqueue.services.ServiceCall;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * Processing, storing, recording and notify against real HTTP services (WireMock for EZID, storage,
 * inventory and callbacks), a real ZooKeeper, real OCFL and H2.
 */
class ProcessRecordNotifyTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().withHttp();
    static final WireMockServer http = ZK.http();

    final Path dir = ZK.dir();
    QueueStore store;
    ProfileDirectory profiles;
    ServiceRoutes ezid;
    List<ServiceRoutes> started = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        store = ZK.store(dir.resolve("queue"));
        profiles = StepTestSupport.merrittProfiles(dir.resolve("profiles"), http.baseUrl());
    }

    @AfterEach
    void stop() {
        started.forEach(ServiceRoutes::close);
    }

    /** The routes with the given configuration (local services unless it says otherwise). */
    ServiceRoutes routes(String... config) throws Exception {
        ServiceRoutes r = new ServiceRoutes(store, profiles, ServiceRoutes.config(config));
        started.add(r);
        return r;
    }

    ServiceRoutes localRoutes(String... more) throws Exception {
        String[] c = Stream.concat(Stream.of("ingest.storage.local.root",
                dir.resolve("storage").toString()), Arrays.stream(more)).toArray(String[]::new);
        return routes(c);
    }

    HeldJob downloadedJob() throws Exception {
        return StepTestSupport.downloadedJob(store);
    }

    ServiceRoutes ezidAndHttpStorage() throws Exception {
        if (ezid == null) {
            ezid = routes(
                    "ingest.minter",
                    "ezid",
                    "ingest.ezid.user",
                    "apitest",
                    "ingest.ezid.password",
                    "secret",
                    "ingest.ezid.target",
                    "https://merritt.example.org/m/",
                    "ingest.storage",
                    "http",
                    "ingest.files.base-url",
                    "http://queue.example.org/files",
                    "camel.component.http.response-timeout",
                    "2000");
        }
        return ezid;
    }

    /**
     * A worker that loses the job while its mint is being answered (its lock broken, a pause past its
     * session) cannot record the ARK on the job: it writes nothing, and names the ARK for the operator.
     */
    @Test
    void anArkMintedAfterTheJobWasLostIsNamedForTheOperatorAndRecordedNowhere() throws Exception {
        http.stubFor(post(urlEqualTo("/shoulder/ark:/99999/fk4"))
                .willReturn(aResponse().withStatus(201).withFixedDelay(1500).withBody("success: ark:/99999/fk4lost1")));
        HeldJob lock = downloadedJob();
        ServiceRoutes routes = ezidAndHttpStorage();
        Logger logger = (Logger) LoggerFactory.getLogger(IdentifiersStep.class);
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        logger.addAppender(logs);
        try {
            CompletableFuture<Exception> processed = CompletableFuture.supplyAsync(() -> {
                try {
                    routes.processing(lock);
                    return null;
                } catch (Exception e) {
                    return e;
                }
            });
            Awaitility.await().atMost(Duration.ofSeconds(30))
                    .until(() -> !http.findAll(postRequestedFor(urlEqualTo("/shoulder/ark:/99999/fk4"))).isEmpty());
            ZK.client().delete().forPath(QueuePaths.jobLock(lock.jid())); // broken while EZID answers
            Exception e = processed.get(60, TimeUnit.SECONDS);
            assertTrue(e != null && String.valueOf(e.getMessage()).contains("lock"), String.valueOf(e));
        } finally {
            logger.detachAppender(logs);
        }
        assertEquals(null, store.jobs().load(lock.jid()).identifiers().primary(), "the ARK is on no job");
        assertTrue(
                logs.list.stream()
                        .anyMatch(l -> l.getLevel() == Level.WARN
                                && l.getFormattedMessage()
                                        .contains("minted ark:/99999/fk4lost1 and then found the job no longer this"
                                                + " worker's")
                                && l.getFormattedMessage().contains(lock.jid())),
                logs.list.toString());
    }

    @Test
    void anArkMintedByEzidIsWrittenAtOnceAndNotMintedAgainWhenStorageFailsAndTheJobIsRetried() throws Exception {
        http.stubFor(post(urlEqualTo("/shoulder/ark:/99999/fk4")).willReturn(aResponse().withStatus(201)
                .withBody("success: ark:/99999/fk4abc123")));
        http.stubFor(post(urlPathMatching("/store/add/7777/.*"))
                .willReturn(aResponse().withStatus(500).withBody("disk full")));
        http.stubFor(post(urlEqualTo("/id/ark:/99999/fk4abc123")).willReturn(aResponse().withStatus(200)
                .withBody("success: ark:/99999/fk4abc123")));
        HeldJob lock = downloadedJob();
        Exception e = assertThrows(Exception.class, () -> ezidAndHttpStorage().processAndStore(lock));
        assertTrue(
                e.getMessage()
                        .contains("POST " + http.baseUrl()
                                + "/store/add/7777/ark%3A%2F99999%2Ffk4abc123: HTTP 500: disk full"),
                e.getMessage());
        assertEquals(
                "ark:/99999/fk4abc123",
                store.jobs().load(lock.jid()).identifiers().primary(),
                "written before storage");
        http.verify(postRequestedFor(urlEqualTo("/shoulder/ark:/99999/fk4"))
                .withHeader("Authorization", equalTo(ServiceCall.basic("apitest:secret")))
                .withHeader("Content-Type", containing("text/plain"))
                .withRequestBody(containing("erc: who: who%0Awhat: what%0Awhen: when")));

        http.verify(postRequestedFor(urlEqualTo("/id/ark:/99999/fk4abc123"))
                .withRequestBody(containing("_target: https://merritt.example.org/m/ark:/99999/fk4abc123"))
                .withRequestBody(containing("%0Awhere: ark:/99999/fk4abc123")));
        http.stubFor(post(urlPathMatching("/store/add/7777/.*")).willReturn(aResponse().withStatus(200)
                .withBody("{\"versionState\":{\"identifier\":1,\"versionID\":1}}")));
        store.moves().unlock(lock);
        HeldJob again = store.claims().tryLockJob(lock.jid(), "test").orElseThrow();
        // signed as the service signs them: the URLs storage fetches name the lease that sent the add
        FileUrlSigner signer =
                new FileUrlSigner(new byte[32], Duration.ofHours(1), Clock.systemUTC()).register(store.ingestHome());
        try {
            ezidAndHttpStorage().processAndStore(again); // processed again from the start (a host died, say)
        } finally {
            FileUrlSigner.unregister(store.ingestHome(), signer);
        }
        http.verify(1, postRequestedFor(urlEqualTo("/shoulder/ark:/99999/fk4")));
        http.verify(postRequestedFor(urlPathMatching("/store/add/7777/.*"))
                .withRequestBody(containing("manifest=%23%25checkm_0.7"))
                .withRequestBody(containing(URLEncoder.encode("http://queue.example.org/files/" + again.job().batchId()
                        + "/" + again.jid() + "/producer/a.txt", StandardCharsets.UTF_8))));
        Path system = Path.of(again.job().configuration().workingDir()).resolve("system");
        assertTrue(Files.readString(system.resolve("mrt-erc.txt")).contains("where: ark:/99999/fk4abc123"));
        String manifest = Files.readString(system.resolve("mrt-manifest.txt"));
        String lease = Long.toHexString(again.lease().sessionId);
        assertTrue(manifest.contains("/producer/a.txt?lease=" + lease + "&expires="), manifest);
        assertTrue(manifest.contains("producer/a.txt") && manifest.contains("system/mrt-erc.txt")
                && manifest.contains("2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"), manifest);
        assertTrue(!manifest.contains(".download") && !manifest.contains(".stored"), manifest);
    }

    @Test
    void ezidErrorsAndMalformedAnswersFailNamingTheAnswer() throws Exception {
        http.stubFor(post(urlEqualTo("/shoulder/ark:/99999/fk4")).willReturn(aResponse().withStatus(400)
                .withBody("error: bad request - no such shoulder")));
        Exception e = assertThrows(Exception.class, () -> ezidAndHttpStorage().processing(downloadedJob()));
        assertTrue(e.getMessage().contains("EZID") && e.getMessage().contains("HTTP 400")
                && e.getMessage().contains("no such shoulder"), e.getMessage());
        http.stubFor(post(urlEqualTo("/shoulder/ark:/99999/fk4"))
                .willReturn(aResponse().withStatus(201).withBody("ok then")));
        e = assertThrows(Exception.class, () -> ezidAndHttpStorage().processing(downloadedJob()));
        assertTrue(e.getMessage().contains("no 'success: ark:/...' line"), e.getMessage());
        http.stubFor(post(urlEqualTo("/shoulder/ark:/99999/fk4")).willReturn(aResponse().withStatus(503)));
        e = assertThrows(Exception.class, () -> ezidAndHttpStorage().processing(downloadedJob()));
        // a mint is not sent again: it may have applied
        assertTrue(e.getMessage().contains("HTTP 503"), e.getMessage());
        http.stubFor(post(urlEqualTo("/shoulder/ark:/99999/fk4")).willReturn(aResponse().withStatus(201)
                .withBody("success: ark:/1/x").withFixedDelay(3000)));
        e = assertThrows(Exception.class, () -> ezidAndHttpStorage().processing(downloadedJob()));
        assertTrue(e.getMessage().contains("no answer within the response timeout"), e.getMessage());
    }

    @Test
    void anArkWhoseDescriptionFailsIsKeptAndTheObjectIsStoredAnyway() throws Exception {
        http.stubFor(post(urlEqualTo("/shoulder/ark:/99999/fk4")).willReturn(aResponse().withStatus(201)
                .withBody("success: ark:/99999/fk4def456")));
        http.stubFor(post(urlEqualTo("/id/ark:/99999/fk4def456")).willReturn(aResponse().withStatus(500)));
        http.stubFor(post(urlPathMatching("/store/add/7777/.*")).willReturn(aResponse().withStatus(200)
                .withBody("{\"versionState\":{\"versionID\":1}}")));
        HeldJob lock = downloadedJob();
        ezidAndHttpStorage().processAndStore(lock);
        assertEquals("ark:/99999/fk4def456", store.jobs().load(lock.jid()).identifiers().primary());
        http.verify(1, postRequestedFor(urlPathMatching("/store/add/7777/.*")));
    }

    @Test
    void storageAnsweringSomethingOtherThanAVersionStateFails() throws Exception {
        http.stubFor(post(urlPathMatching("/store/add/.*"))
                .willReturn(aResponse().withStatus(200).withBody("<html>proxy</html>")));
        HeldJob lock = downloadedJob();
        store.stepWrites().writeIdentifiers(lock, lock.job().identifiers().withPrimary("ark:/99999/fk4given"));
        Exception e = assertThrows(Exception.class, () -> ezidAndHttpStorage().processAndStore(lock));
        assertTrue(e.getMessage().contains("not a version state"), e.getMessage());
        http.verify(0, postRequestedFor(urlEqualTo("/shoulder/ark:/99999/fk4")));
    }

    @Test
    void aLocalIdBoundInTheCollectionReusesItsArkAndAConflictFails() throws Exception {
        ServiceRoutes routes = localRoutes();
        HeldJob first = downloadedJob();
        routes.processAndStore(first);
        String ark = store.jobs().load(first.jid()).identifiers().primary();
        routes.recording(first);
        assertEquals(ark, routes.localIndex().primaryFor("demo_content", "loc1").orElseThrow());

        HeldJob second = downloadedJob(); // same local id loc1
        routes.processAndStore(second);
        assertEquals(ark, store.jobs().load(second.jid()).identifiers().primary(), "the local id's ARK is reused");
        routes.recording(second);
        assertEquals(2, routes.localIndex().versions(ark), "a second version of the same object");

        HeldJob third = downloadedJob();
        store.stepWrites().writeIdentifiers(third, third.job().identifiers().withPrimary("ark:/99999/fk4other"));
        HeldJob reloaded = third;
        Exception e = assertThrows(ServiceRoutes.JobFailed.class, () -> routes.processing(reloaded));
        assertTrue(e.getCause() instanceof IllegalArgumentException, "a depositor's error: " + e.getCause());
        assertEquals(
                "local id 'loc1' is bound to " + ark
                        + " in collection demo_content, but the job names ark:/99999/fk4other",
                e.getMessage());
    }

    @Test
    void merrittInventoryGetsTheManifestUrlAndAFailureFailsRecording() throws Exception {
        ServiceRoutes routes = localRoutes("ingest.inventory", "http", "ingest.inventory.url", http.baseUrl() + "/inv");
        http.stubFor(get(urlPathMatching("/inv/primary/.*")).willReturn(aResponse().withStatus(404)));
        http.stubFor(post(urlPathMatching("/inv/primary/.*")).willReturn(aResponse().withStatus(200)));
        HeldJob lock = downloadedJob();
        routes.processAndStore(lock);
        http.verify(postRequestedFor(
                urlPathMatching("/inv/primary/ark%3A%2F99999%2Ffk4.*/ark%3A%2F99999%2Ffk4owner/loc1")));
        http.stubFor(post(urlEqualTo("/inv/add")).willReturn(aResponse().withStatus(500)));
        http.stubFor(get(urlPathMatching("/inv/current/.*")).willReturn(aResponse().withStatus(200)
                .withBody("{\"invv:versionsState\":{\"invv:currentVersion\":0}}")));
        Exception e = assertThrows(Exception.class, () -> routes.recording(lock));
        assertTrue(e.getMessage().contains("POST " + http.baseUrl() + "/inv/add: HTTP 500"), e.getMessage());
        // a 5xx leaves the add's effect unknown: each of the 3
        // retries asks inventory first (it has none) and sends again
        http.verify(exactly(4), postRequestedFor(urlEqualTo("/inv/add")));
        http.verify(exactly(3), getRequestedFor(urlPathMatching("/inv/current/.*")));
        http.stubFor(post(urlEqualTo("/inv/add")).willReturn(aResponse().withStatus(200)));
        routes.recording(lock);
        http.verify(postRequestedFor(urlEqualTo("/inv/add")).withRequestBody(containing("name=\"checkVersion\""))
                .withRequestBody(containing("name=\"responseForm\"")).withRequestBody(containing("name=\"url\"")));
    }

    /**
     * Inventory as Merritt's (mrt-inventory): the add is made when it arrives, {@code GET /current/<ark>}
     * answers the highest version made (0 for none). An add whose answer does not come back in time
     * is made once: the retry asks inventory, finds the version, and sends nothing more.
     */
    @Test
    void anInventoryAddWhoseAnswerIsLostIsMadeOnceAndAskedAboutOnce() throws Exception {
        ServiceRoutes routes = localRoutes("ingest.inventory", "http", "ingest.inventory.url", http.baseUrl() + "/inv",
                "camel.component.http.response-timeout", "1000", "camel.component.http.so-timeout", "1000");
        http.stubFor(get(urlPathMatching("/inv/primary/.*")).willReturn(aResponse().withStatus(404)));
        http.stubFor(post(urlPathMatching("/inv/primary/.*")).willReturn(aResponse().withStatus(200)));
        HeldJob lock = downloadedJob();
        routes.processAndStore(lock);
        String current = "/inv/current/" + URLEncoder.encode(store.jobs().load(lock.jid()).identifiers().primary(),
                StandardCharsets.UTF_8);
        http.stubFor(post(urlEqualTo("/inv/add")).inScenario("inv").whenScenarioStateIs(Scenario.STARTED)
                .willSetStateTo("added").willReturn(aResponse().withStatus(200).withBody("{}").withFixedDelay(3_000)));
        http.stubFor(post(urlEqualTo("/inv/add")).inScenario("inv").whenScenarioStateIs("added")
                .willReturn(aResponse().withStatus(200).withBody("{}")));
        for (String[] state : new String[][] {{Scenario.STARTED, "0"}, {"added", "1"}}) {
            http.stubFor(get(urlPathMatching("/inv/current/.*")).inScenario("inv").whenScenarioStateIs(state[0])
                    .willReturn(aResponse().withStatus(200).withBody("{\"invv:versionsState\":{\"invv:currentVersion\":"
                            + state[1] + "}}")));
        }
        routes.recording(lock);
        http.verify(exactly(1), postRequestedFor(urlEqualTo("/inv/add")));
        http.verify(exactly(1), getRequestedFor(urlEqualTo(current + "?t=json")));
        assertTrue(store.stepWrites().effects(lock).done(JobEffects.INVENTORY));
    }

    @Test
    void theCallbackIsRetriedOn5xxAndA4xxFailsTheJob() throws Exception {
        HeldJob lock = downloadedJob();
        http.stubFor(post(urlEqualTo("/cb/mc/" + lock.jid())).inScenario("cb").whenScenarioStateIs(Scenario.STARTED)
                .willReturn(aResponse().withStatus(502)).willSetStateTo("up"));
        http.stubFor(post(urlEqualTo("/cb/mc/" + lock.jid())).inScenario("cb").whenScenarioStateIs("up")
                .willReturn(aResponse().withStatus(200)));
        ServiceRoutes notify = localRoutes();
        notify.notify(lock);
        http.verify(2, postRequestedFor(urlEqualTo("/cb/mc/" + lock.jid()))
                .withHeader("Content-Type", equalTo("application/json"))
                .withHeader("Idempotency-Key", equalTo(lock.jid() + "-completed-0"))
                .withRequestBody(containing("\"job_id\":\"" + lock.jid() + "\"")));
        notify.notify(lock);
        http.verify(2, postRequestedFor(urlEqualTo("/cb/mc/" + lock.jid()))); // recorded as sent: not sent again

        HeldJob other = downloadedJob();
        http.stubFor(post(urlEqualTo("/cb/mc/" + other.jid())).willReturn(aResponse().withStatus(404)));
        Exception e = assertThrows(Exception.class, () -> notify.notify(other));
        assertTrue(e.getMessage().contains("callback POST") && e.getMessage().contains("HTTP 404"), e.getMessage());
    }

    @Test
    void aStorageAddWhoseAnswerWasLostIsNotSentAgainWhenStorageHasTheVersion() throws Exception {
        http.stubFor(post(urlEqualTo("/shoulder/ark:/99999/fk4")).willReturn(aResponse().withStatus(201)
                .withBody("success: ark:/99999/fk4lost1")));
        http.stubFor(post(urlEqualTo("/id/ark:/99999/fk4lost1")).willReturn(aResponse().withStatus(200)));
        // storage applies the add, then the connection breaks before its answer
        http.stubFor(get(urlPathMatching("/store/state/7777/.*"))
                .inScenario("store")
                .whenScenarioStateIs(Scenario.STARTED)
                .willReturn(aResponse().withStatus(404)));
        http.stubFor(post(urlPathMatching("/store/add/7777/.*"))
                .inScenario("store")
                .whenScenarioStateIs(Scenario.STARTED)
                .willReturn(aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER))
                .willSetStateTo("applied"));
        http.stubFor(get(urlPathMatching("/store/state/7777/.*")).inScenario("store").whenScenarioStateIs("applied")
                .willReturn(aResponse().withStatus(200).withBody("{\"versionState\":{\"currentVersion\":1}}")));
        HeldJob lock = downloadedJob();
        Exception e = assertThrows(Exception.class, () -> ezidAndHttpStorage().processAndStore(lock));
        assertTrue(e.getMessage().contains("may have been applied, so it is not sent again"), e.getMessage());
        http.verify(1, postRequestedFor(urlPathMatching("/store/add/7777/.*")));

        store.moves().unlock(lock);
        HeldJob again = store.claims().tryLockJob(lock.jid(), "test").orElseThrow();
        ezidAndHttpStorage().storing(again); // storing again, as a requeue resumes it
        http.verify(1, postRequestedFor(urlPathMatching("/store/add/7777/.*"))); // asked, not sent again
        http.verify(1, postRequestedFor(urlEqualTo("/shoulder/ark:/99999/fk4")));
        assertEquals(1, StoredVersions.of(store.jobs().effects(again.jid())).version());
        assertTrue(store.stepWrites().effects(again).done(JobEffects.STORAGE));
    }

    @Test
    void theEzidUpdateOfAMintedArkIsMadeByTheNextAttemptWhenTheFirstCouldNot() throws Exception {
        http.stubFor(post(urlEqualTo("/shoulder/ark:/99999/fk4")).willReturn(aResponse().withStatus(201)
                .withBody("success: ark:/99999/fk4upd1")));
        http.stubFor(post(urlEqualTo("/id/ark:/99999/fk4upd1")).inScenario("ezid").whenScenarioStateIs(Scenario.STARTED)
                .willReturn(aResponse().withStatus(400).withBody("error: busy")).willSetStateTo("up"));
        http.stubFor(post(urlEqualTo("/id/ark:/99999/fk4upd1")).inScenario("ezid").whenScenarioStateIs("up")
                .willReturn(aResponse().withStatus(200).withBody("success: ark:/99999/fk4upd1")));
        HeldJob lock = downloadedJob();
        ezidAndHttpStorage().processing(lock); // the object goes on without its landing page
        store.moves().unlock(lock);
        HeldJob again = store.claims().tryLockJob(lock.jid(), "test").orElseThrow();
        ezidAndHttpStorage().processing(again); // processing again (a host died before its transition, say)
        http.verify(1, postRequestedFor(urlEqualTo("/shoulder/ark:/99999/fk4")));
        http.verify(2, postRequestedFor(urlEqualTo("/id/ark:/99999/fk4upd1")));
        assertTrue(store.stepWrites().effects(again).done(JobEffects.EZID_UPDATE));
    }

    @Test
    void theLocalMinterNeverMintsTheSameArkTwice() {
        LocalMinter a = new LocalMinter(new Counters(store.client()), "ark:/99999/fk4");
        LocalMinter b = new LocalMinter(new Counters(store.client()), "ark:/99999/fk4");
        Set<String> arks = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            assertTrue(arks.add(a.mint(null, null)));
            assertTrue(arks.add(b.mint(null, null)));
        }
        assertTrue(
                arks.stream().allMatch(s -> s.matches("ark:/99999/fk4[0-9bcdfghjkmnpqrstvwxz]{6,}")), arks.toString());
    }
}
