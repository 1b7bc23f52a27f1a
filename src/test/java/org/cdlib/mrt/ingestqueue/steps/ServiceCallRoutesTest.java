package org.cdlib.mrt.ingestqueue.steps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.builder.AdviceWith;
import org.apache.camel.component.mock.MockEndpoint;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.profile.ProfileDirectory;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.errors.StaleLockException;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.services.ServiceCall;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * processing.yaml, storing.yaml, recording.yaml and notify.yaml with every camel-http call replaced by a mock
 * endpoint (AdviceWith, weaveByToUri): the request each route sends — method, address, headers,
 * body — and what the job does with each answer, on a real ZooKeeper queue.
 */
class ServiceCallRoutesTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    /** Sub-route → the mock its http call goes to. */
    static final Map<String, String> CALLS = Map.of(
            "mint",
            "mock:ezid-mint",
            "ezid-update-call",
            "mock:ezid-update",
            "local-id-lookup",
            "mock:inventory-lookup",
            "local-id-bind",
            "mock:inventory-bind",
            "storage-version",
            "mock:storage-state",
            "storage-add",
            "mock:storage-add",
            "inventory-add",
            "mock:inventory-add",
            "inventory-version",
            "mock:inventory-version",
            "callback",
            "mock:callback");

    final Path dir = ZK.dir();
    QueueStore store;
    ProfileDirectory profiles;
    ServiceRoutes routes;

    @BeforeEach
    void start() throws Exception {
        store = ZK.store(dir.resolve("queue"));
        Path p = Files.createDirectories(dir.resolve("profiles"));
        Files.writeString(
                p.resolve("demo_content"),
                "ProfileID: demo_content\n"
                        + "Collection.1: ark:/99999/fk4c\n"
                        + "Owner: ark:/99999/fk4own\n"
                        + "StorageNode: 7777\n"
                        + "StorageService: http://storage.example.org/store\n"
                        + "ObjectMinterURL: https://ezid.example.org/shoulder/ark:/99999/fk4\n"
                        + "CallbackURL: https://depositor.example.org/cb\n");
        profiles = new ProfileDirectory(p);
        routes = routes();
        answerAll();
    }

    /** What each service answers unless a test says otherwise. */
    void answerAll() {
        answer("mock:ezid-mint", 201, "success: ark:/99999/fk4m1 | _target: x");
        answer("mock:ezid-update", 200, "success: ark:/99999/fk4m1");
        answer("mock:inventory-lookup", 404, "");
        answer("mock:inventory-bind", 200, "");
        answer("mock:storage-state", 404, "");
        answer("mock:storage-add", 200, "{\"versionState\":{\"versionID\":1}}");
        answer("mock:inventory-add", 200, "{}");
        answer("mock:inventory-version", 200, "{\"invv:versionsState\":{\"invv:currentVersion\":0}}");
        answer("mock:callback", 204, "");
    }

    /** The routes with every outside call on its mock; {@code settings}: more configuration, as key, value. */
    ServiceRoutes routes(String... settings) throws Exception {
        List<String> kv = new ArrayList<>(List.of(
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
                "ingest.inventory",
                "http",
                "ingest.inventory.url",
                "http://inventory.example.org/inv"));
        kv.addAll(List.of(settings));
        return new ServiceRoutes(store, profiles, ServiceRoutes.config(kv.toArray(String[]::new)), Map.of(), camel -> {
            for (var call : CALLS.entrySet()) {
                AdviceWith.adviceWith(camel, call.getKey(), a -> a.weaveByToUri("http*").replace().to(call.getValue()));
            }
        });
    }

    @AfterEach
    void stop() {
        routes.close();
    }

    void answer(String mock, int status, String body) {
        mock(mock).whenAnyExchangeReceived(e -> {
            e.getIn().setHeader(Exchange.HTTP_RESPONSE_CODE, status);
            e.getIn().setBody(body);
        });
    }

    MockEndpoint mock(String uri) {
        return routes.camel.getEndpoint(uri, MockEndpoint.class);
    }

    Message sent(String mock, int i) {
        return mock(mock).getReceivedExchanges().get(i).getIn();
    }

    HeldJob downloadedJob() throws Exception {
        return StepTestSupport.downloadedJob(store);
    }

    @Test
    void processingMintsBindsAndDescribesThenStoringStoresSendingWhatMerrittExpects() throws Exception {
        HeldJob lock = downloadedJob();
        Exchange prepared = routes.processing(lock);
        assertEquals("prepared ark:/99999/fk4m1 for storing (add mode)", JobExchange.change(prepared).reason());
        assertEquals(0, mock("mock:storage-state").getReceivedCounter() + mock("mock:storage-add").getReceivedCounter(),
                "processing calls no storage: storing does");
        Exchange done = routes.storing(lock);
        assertEquals("stored ark:/99999/fk4m1 version 1 (add mode)", JobExchange.change(done).reason());

        Message mint = sent("mock:ezid-mint", 0);
        assertEquals("POST", mint.getHeader(Exchange.HTTP_METHOD));
        assertEquals("https://ezid.example.org/shoulder/ark:/99999/fk4", mint.getHeader(Exchange.HTTP_URI));
        assertEquals(ServiceCall.basic("apitest:secret"), mint.getHeader("Authorization"));
        assertEquals("text/plain; charset=UTF-8", mint.getHeader(Exchange.CONTENT_TYPE));
        assertTrue(
                mint.getBody(String.class)
                        .startsWith(
                                "erc: who: who%0Awhat: what%0Awhen: when%0Awhere: (:tba)\n_owner: ark:/99999/fk4own"),
                mint.getBody(String.class));

        Message lookup = sent("mock:inventory-lookup", 0);
        assertEquals("GET", lookup.getHeader(Exchange.HTTP_METHOD));
        assertEquals(
                "http://inventory.example.org/inv/primary/ark%3A%2F99999%2Ffk4own/loc1",
                lookup.getHeader(Exchange.HTTP_URI));
        assertEquals("responseForm=json", lookup.getHeader(Exchange.HTTP_QUERY));
        assertEquals("http://inventory.example.org/inv/primary/ark%3A%2F99999%2Ffk4m1/ark%3A%2F99999%2Ffk4own/loc1",
                sent("mock:inventory-bind", 0).getHeader(Exchange.HTTP_URI));
        assertEquals(
                3,
                mock("mock:inventory-lookup").getReceivedCounter(),
                "looked up, looked up before binding, read back");

        Message update = sent("mock:ezid-update", 0);
        assertEquals("https://ezid.example.org/id/ark:/99999/fk4m1", update.getHeader(Exchange.HTTP_URI));
        assertTrue(update.getBody(String.class).contains("_target: https://merritt.example.org/m/ark:/99999/fk4m1"));

        assertEquals("http://storage.example.org/store/state/7777/ark%3A%2F99999%2Ffk4m1",
                sent("mock:storage-state", 0).getHeader(Exchange.HTTP_URI));
        assertEquals("t=json", sent("mock:storage-state", 0).getHeader(Exchange.HTTP_QUERY));
        Message add = sent("mock:storage-add", 0);
        assertEquals(
                "http://storage.example.org/store/add/7777/ark%3A%2F99999%2Ffk4m1", add.getHeader(Exchange.HTTP_URI));
        assertEquals("application/x-www-form-urlencoded", add.getHeader(Exchange.CONTENT_TYPE));
        String form = add.getBody(String.class);
        assertTrue(form.startsWith("t=json&manifest=%23%25checkm_0.7") && form.contains("&local-identifier=loc1")
                && !form.contains("delete="), form);
        assertNull(add.getHeader("Authorization"), "no credentials of an earlier call carried into this one");
        JobEffects fx = store.stepWrites().effects(lock);
        assertTrue(
                fx.done(JobEffects.MINT) && fx.done(JobEffects.EZID_UPDATE) && fx.done(JobEffects.STORAGE),
                fx.toString());
    }

    @Test
    void aRefusedMintFailsTheJobNamingTheAnswerAndNothingIsStored() throws Exception {
        answer("mock:ezid-mint", 400, "error: bad request - no such shoulder");
        HeldJob lock = downloadedJob();
        Exception e = assertThrows(ServiceRoutes.JobFailed.class, () -> routes.processing(lock));
        assertEquals(
                "EZID POST https://ezid.example.org/shoulder/ark:/99999/fk4: HTTP 400: error: bad request - no such"
                        + " shoulder",
                e.getMessage());
        assertEquals(0, mock("mock:storage-add").getReceivedCounter());
        assertTrue(
                store.stepWrites().effects(lock).unresolved(JobEffects.MINT),
                "begun, never done: the next attempt knows");
    }

    @Test
    void aLostMintAnswerIsNotSentAgainButALostStateAnswerIs() throws Exception {
        mock("mock:ezid-mint").whenAnyExchangeReceived(e -> {
            throw new SocketTimeoutException("Read timed out");
        });
        Exception e = assertThrows(ServiceRoutes.JobFailed.class, () -> routes.processing(downloadedJob()));
        assertEquals(
                1, mock("mock:ezid-mint").getReceivedCounter(), "a mint that may have reached EZID is not repeated");
        assertTrue(e.getMessage().contains("it may have been applied, so it is not sent again"), e.getMessage());

        answer("mock:ezid-mint", 201, "success: ark:/99999/fk4m2");
        mock("mock:storage-state").whenExchangeReceived(1, x -> {
            throw new SocketTimeoutException("Read timed out");
        });
        routes.processAndStore(downloadedJob());
        assertEquals(2, mock("mock:storage-state").getReceivedCounter(), "asking storage is safe to repeat");
        assertEquals(1, mock("mock:storage-add").getReceivedCounter());
    }

    /**
     * An add whose answer was lost may still be landing in storage (storage makes the version a
     * moment after its last fetch): the next attempt waits {@code ingest.storage.settle} before it
     * asks for the version, finds it, and takes it as the lost answer. Asked at once, it would read
     * no version and add the object again.
     */
    @Test
    void anAddWhoseAnswerWasLostIsGivenTimeToLandBeforeStorageIsAsked() throws Exception {
        routes.close();
        routes = routes("ingest.storage.settle", "PT5S");
        answerAll();
        AtomicLong landsAt = new AtomicLong(Long.MAX_VALUE);
        mock("mock:storage-add").whenAnyExchangeReceived(e -> {
            landsAt.set(System.currentTimeMillis() + 2_000); // storage still fetching: its version comes 2 s later
            throw new SocketTimeoutException("Read timed out");
        });
        mock("mock:storage-state").whenAnyExchangeReceived(e -> {
            boolean landed = System.currentTimeMillis() >= landsAt.get();
            e.getIn().setHeader(Exchange.HTTP_RESPONSE_CODE, landed ? 200 : 404);
            e.getIn().setBody(landed ? "{\"versionState\":{\"versionID\":1}}" : "");
        });
        HeldJob lock = downloadedJob();
        routes.processing(lock);
        Exception lost = assertThrows(ServiceRoutes.JobFailed.class, () -> routes.storing(lock));
        assertTrue(lost.getMessage().contains("it may have been applied, so it is not sent again"), lost.getMessage());
        assertTrue(store.stepWrites().effects(lock).unresolved(JobEffects.STORAGE));

        long before = System.currentTimeMillis();
        Exchange again = routes.storing(lock);
        assertTrue(System.currentTimeMillis() - before >= 5_000, "asked for the version before the settle time");
        assertEquals("stored ark:/99999/fk4m1 version 1 (add mode)", JobExchange.change(again).reason());
        assertEquals(1, mock("mock:storage-add").getReceivedCounter(), "the object was added again");
        assertTrue(store.stepWrites().effects(lock).done(JobEffects.STORAGE));
    }

    @Test
    void recordingSendsInventoryTheManifestUrlAndFailsOnARefusal() throws Exception {
        HeldJob lock = downloadedJob();
        routes.processAndStore(lock);
        Exchange done = routes.recording(lock);
        assertEquals("inventory has ark:/99999/fk4m1 version 1 (add mode)", JobExchange.change(done).reason());
        Message add = sent("mock:inventory-add", 0);
        assertEquals("POST", add.getHeader(Exchange.HTTP_METHOD));
        assertEquals("http://inventory.example.org/inv/add", add.getHeader(Exchange.HTTP_URI));
        assertTrue(add.getHeader(Exchange.CONTENT_TYPE, String.class).startsWith("multipart/form-data; boundary="));
        assertTrue(
                add.getBody(String.class)
                        .contains("name=\"url\"\r\n\r\n"
                                + "http://storage.example.org/store/manifest/7777/ark%3A%2F99999%2Ffk4m1\r\n"),
                add.getBody(String.class));
        routes.recording(lock);
        assertEquals(1, mock("mock:inventory-add").getReceivedCounter(), "recorded as done: not sent again");
        assertEquals(0, mock("mock:inventory-version").getReceivedCounter(), "nothing lost: inventory is not asked");

        HeldJob other = downloadedJob();
        routes.processAndStore(other);
        answer("mock:inventory-add", 400, "bad url");
        Exception e = assertThrows(ServiceRoutes.JobFailed.class, () -> routes.recording(other));
        assertEquals("inventory POST http://inventory.example.org/inv/add: HTTP 400: bad url", e.getMessage());
    }

    /**
     * Inventory as Merritt's: an add makes the version (once,
     * checkVersion), {@code /current/<ark>} answers the highest.
     */
    AtomicInteger inventoryAnswersAsMerritts() {
        AtomicInteger has = new AtomicInteger();
        mock("mock:inventory-version").whenAnyExchangeReceived(e -> {
            e.getIn().setHeader(Exchange.HTTP_RESPONSE_CODE, 200);
            e.getIn()
                    .setBody("{\"invv:versionsState\":{\"invv:objectID\":\"ark:/99999/fk4m1\",\"invv:currentVersion\":"
                            + has.get() + "}}");
        });
        return has;
    }

    /**
     * An inventory add whose answer is lost (no answer in time) is not sent again by the
     * redelivery: it asks inventory's version first, finds the add made, and records it.
     */
    @Test
    void anInventoryAddWhoseAnswerWasLostIsNotSentAgainWhenInventoryHasTheVersion() throws Exception {
        HeldJob lock = downloadedJob();
        routes.processAndStore(lock);
        AtomicInteger has = inventoryAnswersAsMerritts();
        mock("mock:inventory-add").whenAnyExchangeReceived(e -> {
            has.set(1); // made; the answer never comes back
            throw new SocketTimeoutException("Read timed out");
        });
        Exchange done = routes.recording(lock);
        assertEquals("inventory has ark:/99999/fk4m1 version 1 (add mode)", JobExchange.change(done).reason());
        assertEquals(1, mock("mock:inventory-add").getReceivedCounter(), "an add whose answer was lost was sent again");
        assertEquals(1, mock("mock:inventory-version").getReceivedCounter());
        assertEquals("http://inventory.example.org/inv/current/ark%3A%2F99999%2Ffk4m1",
                sent("mock:inventory-version", 0).getHeader(Exchange.HTTP_URI));
        assertEquals("t=json", sent("mock:inventory-version", 0).getHeader(Exchange.HTTP_QUERY));
        assertTrue(store.stepWrites().effects(lock).done(JobEffects.INVENTORY));
    }

    /**
     * A host that dies after its add reached inventory and before it recorded the answer: the
     * next holder finds the add begun (in ZooKeeper, not in the dead host's memory), asks
     * inventory, and does not add again.
     */
    @Test
    void anAddBegunByAHostThatDiedIsResolvedByAskingInventoryAndNotSentAgain() throws Exception {
        HeldJob lock = downloadedJob();
        routes.processAndStore(lock);
        AtomicInteger has = inventoryAnswersAsMerritts();
        mock("mock:inventory-add").whenAnyExchangeReceived(e -> {
            has.set(1);
            throw new StaleLockException("the host died with the add sent");
        });
        assertThrows(StaleLockException.class, () -> routes.recording(lock));
        lock.chain(c -> c.withEffects(null)); // the next holder knows only what ZooKeeper has
        assertTrue(
                store.stepWrites().effects(lock).unresolved(JobEffects.INVENTORY), "the add was not recorded as begun");
        answer("mock:inventory-add", 200, "{}");

        Exchange done = routes.recording(lock);
        assertEquals("inventory has ark:/99999/fk4m1 version 1 (add mode)", JobExchange.change(done).reason());
        assertEquals(1, mock("mock:inventory-add").getReceivedCounter(), "added again after the host died");
        assertEquals(1, mock("mock:inventory-version").getReceivedCounter());
        assertTrue(store.stepWrites().effects(lock).done(JobEffects.INVENTORY));
    }

    /**
     * An add begun whose request never reached inventory: inventory
     * has no version, so it is sent once more, and only once.
     */
    @Test
    void anAddBegunThatInventoryDoesNotHaveIsSentOnceMore() throws Exception {
        HeldJob lock = downloadedJob();
        routes.processAndStore(lock);
        AtomicInteger has = inventoryAnswersAsMerritts();
        mock("mock:inventory-add").whenAnyExchangeReceived(e -> {
            throw new StaleLockException("the host died before the add left");
        });
        assertThrows(StaleLockException.class, () -> routes.recording(lock));
        lock.chain(c -> c.withEffects(null));
        mock("mock:inventory-add").whenAnyExchangeReceived(e -> {
            has.set(1);
            e.getIn().setHeader(Exchange.HTTP_RESPONSE_CODE, 200);
            e.getIn().setBody("{}");
        });
        routes.recording(lock);
        assertEquals(2, mock("mock:inventory-add").getReceivedCounter(), "the lost one and one more");
        assertEquals(1, mock("mock:inventory-version").getReceivedCounter());
        assertEquals(1, has.get());
        routes.recording(lock);
        assertEquals(2, mock("mock:inventory-add").getReceivedCounter(), "recorded as done: never sent again");
        assertEquals(1, mock("mock:inventory-version").getReceivedCounter(), "recorded as done: inventory not asked");
    }

    @Test
    void notifyCallsBackWithTheJobAsJsonAndItsIdempotencyKey() throws Exception {
        HeldJob lock = downloadedJob();
        Exchange done = routes.notify(lock);
        Message cb = sent("mock:callback", 0);
        assertEquals("https://depositor.example.org/cb/mc/" + lock.jid(), cb.getHeader(Exchange.HTTP_URI));
        assertEquals(lock.jid() + "-completed-0", cb.getHeader("Idempotency-Key"));
        String json = cb.getBody(String.class);
        assertTrue(
                json.contains("\"job_id\":\"" + lock.jid() + "\"") && json.contains("\"status\":\"completed\""), json);
        assertEquals("callback " + lock.jid() + "-completed-0 sent", JobExchange.change(done).reason());
        routes.notify(lock);
        assertEquals(1, mock("mock:callback").getReceivedCounter(), "sent once per key");

        HeldJob other = downloadedJob();
        answer("mock:callback", 410, "gone");
        Exception e = assertThrows(ServiceRoutes.JobFailed.class, () -> routes.notify(other));
        assertTrue(
                e.getMessage()
                        .startsWith("callback POST https://depositor.example.org/cb/mc/" + other.jid() + ": HTTP 410"),
                e.getMessage());
    }
}
