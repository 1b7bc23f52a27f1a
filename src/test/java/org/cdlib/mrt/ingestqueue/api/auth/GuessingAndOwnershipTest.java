package org.cdlib.mrt.ingestqueue.api.auth;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.cdlib.mrt.ingestqueue.api.http.RawHttp;
import org.cdlib.mrt.ingestqueue.api.http.RunningApi;
import org.cdlib.mrt.ingestqueue.objects.FileUrlSigner;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issues 49 and 43 over real HTTP on the running service, with the default login limits (10
 * failures of a name at an address, 20 of an address): guessing from one address never keeps
 * the right password out from another and is refused before any hash once over its budget;
 * another depositor's batch and job ids answer word for word as missing ones; a working file's
 * path has one decoding, in which {@code +} is a plus. Each test speaks from its own 127.0.0.x.
 */
class GuessingAndOwnershipTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().keepNodesBetweenTests();
    @RegisterExtension
    static final RunningApi API = new RunningApi(ZK);
    static QueueStore store;
    static ApiUsers users;
    static int port;

    @BeforeAll
    static void start() throws Exception {
        Map<String, String> config = API.realSteps();
        config.put("ingest.fetch.allow", "127.0.0.2");
        config.put("ingest.api.users", "ops:" + Passwords.hash("pw-ops") + ":admin|submitter, dep:"
                + Passwords.hash("pw-d")
                + ":submitter, dep2:" + Passwords.hash("pw-d2") + ":submitter, store:" + Passwords.hash("pw-st")
                + ":storage");
        API.start(config);
        store = API.store();
        port = API.port();
        users = API.api().users();
    }

    static RawHttp as(String from, String user, String password, String method, String path) throws Exception {
        return RawHttp.send(port, from, method, path, List.of(RawHttp.basic(user, password)), null);
    }

    // ------------------------------------------------------------------ guessing

    @Test
    void thirtyWrongLoginsFromOneAddressNeverKeepTheRightPasswordOutFromAnother() throws Exception {
        long hashesBefore = users.hashesComputed();
        List<RawHttp> answers = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(30);
        try {
            List<Future<RawHttp>> sent = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                int n = i;
                sent.add(pool.submit(() -> as("127.0.0.30", "ops", "guess-" + n, "GET", "/api/queue")));
            }
            for (Future<RawHttp> f : sent) {
                answers.add(f.get());
            }
        } finally {
            pool.shutdownNow();
        }
        long wrong = answers.stream().filter(r -> r.status() == 401).count();
        long refused = answers.stream().filter(r -> r.status() == 429).count();
        assertEquals(30, wrong + refused, answers.toString());
        // a check under way counts against the budget: thirty at once are not thirty hashes
        assertTrue(wrong <= 10, wrong + " guesses were checked, the budget is 10");
        assertTrue(users.hashesComputed() - hashesBefore <= 10, (users.hashesComputed() - hashesBefore)
                + " hashes for 10 checks");
        answers.stream().filter(r -> r.status() == 429).forEach(r -> assertNotNull(r.header("Retry-After"), r.body()));

        // the real admin, from an address that has not failed, gets in (by Basic and by the dashboard's login)
        RawHttp elsewhere = as("127.0.0.31", "ops", "pw-ops", "GET", "/api/queue");
        assertEquals(200, elsewhere.status(), elsewhere.body());
        RawHttp session = RawHttp.send(port, "127.0.0.32", "POST", "/api/login",
                List.of("Content-Type: application/json",
                "X-Requested-By: dashboard"), "{\"username\":\"ops\",\"password\":\"pw-ops\"}");
        assertEquals(200, session.status(), session.body());

        // at the guessing address a 429 computes nothing; whether the lock (5 s from the tenth failure) is
        // still on when these come depends on the machine's speed, so each answer is accounted for
        long hashes = users.hashesComputed();
        int checked = 0;
        int locked = 0;
        for (int i = 0; i < 6; i++) {
            RawHttp r = as("127.0.0.30", "ops", "more-" + i, "GET", "/api/queue");
            if (r.status() == 429) {
                locked++;
                assertTrue(r.body().contains("too many failed logins of this user from this address"), r.body());
            } else {
                checked++;
            }
        }
        assertTrue(locked > 0, "past its budget the address is refused");
        assertEquals(hashes + checked, users.hashesComputed(), "a guesser over its budget is refused before any hash");
    }

    // ------------------------------------------------------------------ others' ids

    @Test
    void anotherDepositorsBatchAndJobIdsAnswerWordForWordAsMissingOnes() throws Exception {
        RawHttp submitted = RawHttp.send(port, "127.0.0.40", "POST", "/api/batches", List.of(RawHttp.basic("dep",
                "pw-d"),
                "Content-Type: application/json"),
                "{\"profile\":\"demo_content\",\"type\":\"file\",\"payload_url\":\"http://127.0.0.2:1/a.txt\"}");
        assertEquals(201, submitted.status(), submitted.body());
        String bid = submitted.header("BID");
        await().atMost(Duration.ofSeconds(60)).until(() -> !store.batches().load(bid).jobIds().isEmpty());
        String jid = store.batches().load(bid).jobIds().get(0);
        String noBid = "bid9999999990";
        String noJid = "jid9999999990";

        String[][] pairs = {
            {"/api/batches/" + bid, "/api/batches/" + noBid},
            {"/api/jobs?batch=" + bid, "/api/jobs?batch=" + noBid},
            {"/api/jobs/" + jid, "/api/jobs/" + noJid},
        };
        for (String[] p : pairs) {
            assertEquals(200, as("127.0.0.40", "dep", "pw-d", "GET", p[0]).status(), "the owner reads " + p[0]);
            RawHttp others = as("127.0.0.41", "dep2", "pw-d2", "GET", p[0]);
            RawHttp missing = as("127.0.0.41", "dep2", "pw-d2", "GET", p[1]);
            assertEquals(404, others.status(), others.body());
            assertEquals(missing.status(), others.status(), p[0]);
            assertEquals(missing.body().replace(noBid, "<id>").replace(noJid, "<id>"),
                    others.body().replace(bid, "<id>").replace(jid, "<id>"), p[0] + " reads as " + p[1]);
        }
        // an operator's action on another's id and on a missing one: refused alike, before the id is looked at
        RawHttp hold = as("127.0.0.41", "dep2", "pw-d2", "POST", "/api/jobs/" + jid + "/hold");
        RawHttp holdMissing = as("127.0.0.41", "dep2", "pw-d2", "POST", "/api/jobs/" + noJid + "/hold");
        assertEquals(403, hold.status(), hold.body());
        assertEquals(holdMissing.body(), hold.body());
    }

    // ------------------------------------------------------------------ /files decoding

    @Test
    void aPlusInAFilesPathIsAPlusForTheSignatureAndTheFileAlike() throws Exception {
        Path producer = API.dir().resolve("queue/bid0000009990/jid0000009990/producer");
        Files.createDirectories(producer);
        Files.writeString(producer.resolve("a+b.txt"), "plus");
        Files.writeString(producer.resolve("a b.txt"), "space");
        String files = "/files/bid0000009990/jid0000009990/producer/";
        assertEquals("plus", served(as("127.0.0.50", "store", "pw-st", "GET", files + "a+b.txt"), "a+b"));
        assertEquals("plus", served(as("127.0.0.50", "store", "pw-st", "GET", files + "a%2Bb.txt"), "a%2Bb"));
        assertEquals("space", served(as("127.0.0.50", "store", "pw-st", "GET", files + "a%20b.txt"), "a%20b"));
        for (String name : List.of("a+b.txt", "a%2Bb.txt", "a%20b.txt")) {
            String signed = FileUrlSigner.signIfServed(producer.getParent(), "http://127.0.0.1:" + port + files + name);
            String query = signed.substring(signed.indexOf('?'));
            RawHttp r = RawHttp.send(port, "127.0.0.50", "GET", files + name + query, List.of(), null);
            assertEquals(name.equals("a%20b.txt") ? "space" : "plus", served(r, "signed " + name), name);
        }
        // a malformed escape is refused by the server before any route; escapes that are not UTF-8 name themselves
        assertEquals(400, as("127.0.0.50", "store", "pw-st", "GET", files + "a%zzb.txt").status());
        RawHttp notUtf8 = as("127.0.0.50", "store", "pw-st", "GET", files + "a%C3%28b.txt");
        assertEquals(400, notUtf8.status(), notUtf8.body());
        assertTrue(notUtf8.body().contains("the path's escapes are not UTF-8"), notUtf8.body());
    }

    private static String served(RawHttp r, String what) {
        assertEquals(200, r.status(), what + ": " + r.body());
        return r.body();
    }
}
