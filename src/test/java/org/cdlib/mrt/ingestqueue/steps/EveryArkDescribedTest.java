package org.cdlib.mrt.ingestqueue.steps;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.http.Fault;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.camel.builder.AdviceWith;
import org.cdlib.mrt.ingestqueue.profile.ProfileDirectory;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.fsck.Violation;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue #27, every ARK described: processing on a real ZooKeeper with EZID and storage on
 * WireMock, each attempt of a job on freshly started routes (a restarted host), every outside
 * call counted one by one. A host dying between two steps is a step that throws there.
 */
class EveryArkDescribedTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().withHttp();
    static final WireMockServer http = ZK.http();
    static final String TARGET = "https://merritt.example.org/m/";

    final Path dir = ZK.dir();
    QueueStore store;
    ProfileDirectory profiles;
    Map<String, String> config;
    final List<ServiceRoutes> started = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        store = ZK.store(dir.resolve("queue"));
        profiles = StepTestSupport.merrittProfiles(dir.resolve("profiles"), http.baseUrl());
        // one local-id index for every start: it is the inventory's database, which outlives a host; a
        // long response timeout: on a loaded machine a slow answer must not look like a lost one
        config = ServiceRoutes.config(
                "ingest.minter",
                "ezid",
                "ingest.ezid.target",
                TARGET,
                "ingest.storage",
                "http",
                "ingest.files.base-url",
                "http://queue.example.org/files",
                "camel.component.http.response-timeout",
                "15000");
        http.stubFor(get(urlPathMatching("/store/state/7777/.*")).willReturn(aResponse().withStatus(404)));
        http.stubFor(post(urlPathMatching("/store/add/7777/.*")).willReturn(aResponse().withStatus(200)
                .withBody("{\"versionState\":{\"versionID\":1}}")));
        http.stubFor(post(urlPathMatching("/id/.*")).willReturn(aResponse().withStatus(200).withBody("success: ok")));
    }

    @AfterEach
    void stop() {
        started.forEach(ServiceRoutes::close);
    }

    /**
     * The routes as a newly started host runs them; {@code diesBefore}: the processing step (a bean method) it dies at.
     */
    ServiceRoutes host(String diesBefore) throws Exception {
        ServiceRoutes r = new ServiceRoutes(store, profiles, config, Map.of(), camel -> {
            if (diesBefore != null) {
                AdviceWith.adviceWith(camel, diesBefore.equals("described") ? "ezid-update-call" : "job-processing",
                        // the bean itself, not a filter whose text lists it among its steps
                        a -> a.weaveByToString("Bean\\[ref:\\w+ method:" + diesBefore + "]").before()
                                .throwException(new IllegalStateException("host killed")));
            }
        });
        started.add(r);
        return r;
    }

    HeldJob downloadedJob() throws Exception {
        return StepTestSupport.downloadedJob(store);
    }

    /** The next attempt: the dead host's lock is gone (its session ended), another claims the job. */
    HeldJob claimedAgain(HeldJob lock) {
        store.moves().unlock(lock);
        return store.claims().tryLockJob(lock.jid(), "test").orElseThrow();
    }

    static int calls(String method, String url) {
        return http.findAll(method.equals("GET") ? getRequestedFor(urlEqualTo(url)) : postRequestedFor(urlEqualTo(url)))
                .size();
    }

    static int mints() {
        return calls("POST", "/shoulder/ark:/99999/fk4");
    }

    static int storageAdds() {
        return http.findAll(postRequestedFor(urlPathMatching("/store/add/.*"))).size();
    }

    @Test
    void anUnresolvedMintWithAnArkBoundToTheLocalIdIsThisJobsMintAndGetsOneEzidUpdate() throws Exception {
        http.stubFor(post(urlEqualTo("/shoulder/ark:/99999/fk4")).willReturn(aResponse().withStatus(201)
                .withBody("success: ark:/99999/fk4bound")));
        HeldJob lock = downloadedJob();
        // the first host mints and binds the local id, then dies before the ARK is written to the job
        assertThrows(ServiceRoutes.JobFailed.class, () -> host("keepIdentifiers").processing(lock));
        assertTrue(store.stepWrites().effects(lock).unresolved(JobEffects.MINT));
        assertEquals(
                "ark:/99999/fk4bound",
                started.get(0).localIndex().primaryFor("demo_content", "loc1").orElseThrow());
        assertEquals(1, mints());

        HeldJob again = claimedAgain(lock);
        host(null).processAndStore(again);
        assertEquals(1, mints(), "the ARK bound to the local id is the lost mint's: not minted again");
        assertEquals(1, calls("POST", "/id/ark:/99999/fk4bound"), "and it gets its EZID update, once");
        assertEquals(
                0,
                calls("GET", "/id/ark:/99999/fk4bound"),
                "no update can have been sent before its mint was recorded");
        assertEquals(1, storageAdds());
        // every outside call: the first host's mint; the second's update, storage state and add (local ids are local)
        assertEquals(4, http.findAll(anyRequestedFor(anyUrl())).size(), http.getAllServeEvents().toString());
        JobEffects fx = store.jobs().effects(again.jid());
        assertEquals("ark:/99999/fk4bound", fx.get(JobEffects.MINT).detail());
        assertTrue(fx.done(JobEffects.MINT) && fx.done(JobEffects.EZID_UPDATE), fx.toString());
        assertEquals("ark:/99999/fk4bound", store.jobs().load(again.jid()).identifiers().primary());
        assertEquals(0, fx.lostMints());
        assertTrue(fx.unusedArks("ark:/99999/fk4bound").isEmpty(), fx.toString());
    }

    /**
     * Seen in the chaos test: an attempt mints A and is paused before its bind; the next attempt
     * finds the local id unbound, records a lost mint and mints B; the paused one wakes and binds A
     * first. B's bind then finds A: A is kept, and A (perhaps this job's lost mint) must still be
     * described: EZID is asked first, then A gets its update, B none.
     */
    @Test
    void anArkTheLostMintBoundFirstIsKeptAndDescribed() throws Exception {
        http.stubFor(post(urlEqualTo("/shoulder/ark:/99999/fk4"))
                .inScenario("mint")
                .whenScenarioStateIs(Scenario.STARTED)
                .willReturn(aResponse().withStatus(201).withBody("success: ark:/99999/fk4first"))
                .willSetStateTo("again"));
        http.stubFor(post(urlEqualTo("/shoulder/ark:/99999/fk4")).inScenario("mint").whenScenarioStateIs("again")
                .willReturn(aResponse().withStatus(201).withBody("success: ark:/99999/fk4second")));
        http.stubFor(get(urlEqualTo("/id/ark:/99999/fk4first")).willReturn(aResponse().withStatus(200)
                .withBody("success: ark:/99999/fk4first\n_target: https://ezid.example/default")));
        HeldJob lock = downloadedJob();
        // the first attempt's mint is answered, and it stops before recording or binding it
        ServiceRoutes first = new ServiceRoutes(
                store,
                profiles,
                config,
                Map.of(),
                camel -> AdviceWith.adviceWith(
                        camel, "job-processing", a -> a.weaveByToString("Bean\\[ref:identifiersStep method:minted]")
                                .before()
                                .throwException(new IllegalStateException("host paused"))));
        started.add(first);
        assertThrows(ServiceRoutes.JobFailed.class, () -> first.processing(lock));
        assertEquals(1, mints());
        HeldJob again = claimedAgain(lock);
        ServiceRoutes second = new ServiceRoutes(
                store,
                profiles,
                config,
                Map.of(),
                camel -> AdviceWith.adviceWith(
                        camel, "job-processing", a -> a.weaveByToString("Bean\\[ref:identifiersStep method:minted]")
                                .before()
                                .process(e -> first.localIndex().bind("demo_content", "loc1", "ark:/99999/fk4first"))));
        started.add(second);
        second.processing(again);
        // the update's record rides with the job's next write: here, before its lock is let go
        store.moves().unlock(again);

        assertEquals(2, mints(), http.getAllServeEvents().stream().map(e -> e.getRequest().getMethod() + " "
                + e.getRequest().getUrl()).toList().toString());
        assertEquals("ark:/99999/fk4first", store.jobs().load(again.jid()).identifiers().primary());
        assertEquals(
                1,
                calls("GET", "/id/ark:/99999/fk4first"),
                "EZID asked first: another job of the object may have described it");
        assertEquals(1, calls("POST", "/id/ark:/99999/fk4first"), "the kept ARK is described");
        assertEquals(0, calls("POST", "/id/ark:/99999/fk4second"), "the unused one is not");
        JobEffects fx = store.jobs().effects(again.jid());
        assertEquals(1, fx.lostMints(), fx.toString());
        assertTrue(
                fx.done(JobEffects.EZID_UPDATE)
                        && "ark:/99999/fk4first"
                                .equals(fx.get(JobEffects.EZID_UPDATE).detail()),
                fx.toString());
    }

    @Test
    void aLostMintAnswerIsRecordedListedByFsckAndTheNextAttemptMintsOnce() throws Exception {
        // EZID makes an ARK, then the connection breaks before its answer (a host killed mid-mint loses it alike)
        http.stubFor(post(urlEqualTo("/shoulder/ark:/99999/fk4"))
                .inScenario("mint")
                .whenScenarioStateIs(Scenario.STARTED)
                .willReturn(aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER))
                .willSetStateTo("answering"));
        http.stubFor(post(urlEqualTo("/shoulder/ark:/99999/fk4")).inScenario("mint").whenScenarioStateIs("answering")
                .willReturn(aResponse().withStatus(201).withBody("success: ark:/99999/fk4second")));
        HeldJob lock = downloadedJob();
        assertThrows(ServiceRoutes.JobFailed.class, () -> host(null).processing(lock));
        assertEquals(1, mints(), "a mint that may have been applied is not sent again by the client");

        HeldJob again = claimedAgain(lock);
        host(null).processing(again);
        assertEquals(2, mints(), "the next attempt mints exactly once");
        assertEquals(1, calls("POST", "/id/ark:/99999/fk4second"));
        assertEquals(
                1, http.findAll(postRequestedFor(urlPathMatching("/id/.*"))).size(), "only the used ARK is described");
        JobEffects fx = store.jobs().effects(again.jid());
        assertEquals(1, fx.lostMints(), fx.toString());
        assertEquals("lost", fx.get(JobEffects.LOST_MINT).state());
        assertTrue(
                fx.done(JobEffects.MINT)
                        && "ark:/99999/fk4second".equals(fx.get(JobEffects.MINT).detail()),
                fx.toString());

        ConsistencyCheck.Report report = new ConsistencyCheck(store).check();
        assertTrue(report.clean(), "an unused ARK at EZID is not the queue's inconsistency: " + report);
        assertEquals(1, report.notices().size(), report.toString());
        Violation notice = report.notices().get(0);
        assertEquals("lost-mint", notice.kind());
        assertEquals(QueuePaths.job(again.jid()), notice.path());
        assertTrue(
                notice.detail().contains("job " + again.jid())
                        && notice.detail().contains("unused"),
                notice.detail());
    }

    @Test
    void noEzidUpdateIsSentTwiceForAnArkAcrossRestarts() throws Exception {
        http.stubFor(post(urlEqualTo("/shoulder/ark:/99999/fk4")).willReturn(aResponse().withStatus(201)
                .withBody("success: ark:/99999/fk4once")));
        // EZID applies the update; the host dies before recording it
        HeldJob lock = downloadedJob();
        host("described").processAndStore(lock);
        assertEquals(1, calls("POST", "/id/ark:/99999/fk4once"));
        assertTrue(!store.stepWrites().effects(lock).done(JobEffects.EZID_UPDATE));
        http.stubFor(get(urlEqualTo("/id/ark:/99999/fk4once")).willReturn(aResponse().withStatus(200)
                .withBody("success: ark:/99999/fk4once\n_target: " + TARGET + "ark:/99999/fk4once\n_profile: erc\n")));

        HeldJob again = claimedAgain(lock);
        host(null).processAndStore(again);
        assertEquals(
                1, calls("GET", "/id/ark:/99999/fk4once"), "EZID is asked whether the lost answer's update arrived");
        assertEquals(1, calls("POST", "/id/ark:/99999/fk4once"), "it did: not sent again");
        assertTrue(store.stepWrites().effects(again).done(JobEffects.EZID_UPDATE));

        HeldJob third = claimedAgain(again);
        host(null).processAndStore(third);
        assertEquals(1, calls("POST", "/id/ark:/99999/fk4once"), "recorded: neither sent nor asked again");
        assertEquals(1, calls("GET", "/id/ark:/99999/fk4once"));
        assertEquals(1, mints());
        assertEquals(1, storageAdds());
    }

    @Test
    void anEzidUpdateThatDidNotArriveIsSentByTheNextAttemptAfterAskingEzid() throws Exception {
        http.stubFor(post(urlEqualTo("/shoulder/ark:/99999/fk4")).willReturn(aResponse().withStatus(201)
                .withBody("success: ark:/99999/fk4later")));
        http.stubFor(post(urlEqualTo("/id/ark:/99999/fk4later"))
                .inScenario("ezid")
                .whenScenarioStateIs(Scenario.STARTED)
                .willReturn(aResponse().withStatus(503)));
        HeldJob lock = downloadedJob();
        host(null).processAndStore(lock); // the object goes on without its landing page
        int sent = calls("POST", "/id/ark:/99999/fk4later"); // the first try and its retries
        assertEquals(4, sent);
        assertTrue(!store.stepWrites().effects(lock).done(JobEffects.EZID_UPDATE));
        http.stubFor(post(urlEqualTo("/id/ark:/99999/fk4later"))
                .inScenario("ezid")
                .whenScenarioStateIs(Scenario.STARTED)
                .willReturn(aResponse().withStatus(200).withBody("success: ark:/99999/fk4later")));
        http.stubFor(get(urlEqualTo("/id/ark:/99999/fk4later")).willReturn(aResponse().withStatus(200)
                .withBody("success: ark:/99999/fk4later\n_target: https://ezid.example.org/id/ark:/99999/fk4later\n")));

        // each retry of this attempt's own update asked EZID first (a 5xx may come after the update landed)
        int asked = calls("GET", "/id/ark:/99999/fk4later");
        assertEquals(sent - 1, asked);

        HeldJob again = claimedAgain(lock);
        host(null).processAndStore(again); // processing again (a requeue, a host dying later in it)
        store.moves().unlock(again); // as the consumer lets go of a job that stays: the update's record is written then
        assertEquals(asked + 1, calls("GET", "/id/ark:/99999/fk4later"), "EZID is asked first");
        assertEquals(sent + 1, calls("POST", "/id/ark:/99999/fk4later"), "its target is not ours yet: sent once more");
        assertTrue(store.jobs().effects(lock.jid()).done(JobEffects.EZID_UPDATE));
        assertEquals(1, mints());
        assertEquals(1, storageAdds(), "the version stored by the first attempt is not stored again");
    }
}
