package org.cdlib.mrt.ingestqueue.api.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.api.http.MultipartForm;
import org.cdlib.mrt.ingestqueue.api.http.RawHttp;
import org.cdlib.mrt.ingestqueue.api.http.RunningApi;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.hosts.SessionNodes;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * Issue 31 over real HTTP: the batch's owner is the authenticated user (a poster names whom it
 * posts for), guessing is delayed then refused per user at an address and per address without locking
 * the real user out, every failed login is audited, the Secure flag and client address come from trusted
 * proxies only, and no user can push everyone else's sessions out. Each test speaks from its own
 * 127.0.0.x address, since failures are counted per address.
 */
class IdentityAndLoginsTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().keepNodesBetweenTests();
    @RegisterExtension
    static final RunningApi API = new RunningApi(ZK);
    static QueueStore store;
    static int port;
    static final ObjectMapper JSON = new ObjectMapper();
    static final ListAppender<ILoggingEvent> audit = new ListAppender<>();
    static final String JSON_TYPE = "Content-Type: application/json";

    @BeforeAll
    static void start() throws Exception {
        Map<String, String> config = API.realSteps();
        config.put("ingest.fetch.allow", "127.0.0.2");
        config.put("ingest.api.users", "dep:pw-d:submitter, dep2:pw-d2:submitter, ui:" + Passwords.hash("pw-ui")
                + ":poster, "
                + "ops:" + Passwords.hash("pw-ops") + ":admin|submitter");
        config.put("ingest.api.login-failures-per-user", "4");
        config.put("ingest.api.login-failures-per-address", "6");
        config.put("ingest.http.trusted-proxies", "127.0.0.9");
        ((Logger) LoggerFactory.getLogger("ingestqueue.audit")).addAppender(audit);
        audit.start();
        API.start(config);
        store = API.store();
        port = API.port();
    }

    @AfterAll
    static void stop() {
        ((Logger) LoggerFactory.getLogger("ingestqueue.audit")).detachAppender(audit);
    }

    static RawHttp as(String from, String user, String password, String method, String path,
            String body) throws Exception {
        List<String> h = new ArrayList<>(List.of(RawHttp.basic(user, password)));
        if (body != null) {
            h.add(JSON_TYPE);
        }
        return RawHttp.send(port, from, method, path, h, body);
    }

    static RawHttp submitJson(String from, String user, String password, String submitter) throws Exception {
        return as(from, user, password, "POST", "/api/batches",
                "{\"profile\":\"demo_content\",\"payload_url\":\"http://127.0.0.2:1/a.txt\""
                + (submitter == null ? "" : ",\"submitter\":\"" + submitter + "\"") + "}");
    }

    static RawHttp login(String from, String user, String password, List<String> more) throws Exception {
        List<String> h = new ArrayList<>(List.of(JSON_TYPE, "X-Requested-By: dashboard"));
        h.addAll(more);
        return RawHttp.send(port, from, "POST", "/api/login", h, "{\"username\":\"" + user + "\",\"password\":\""
                + password + "\"}");
    }

    static List<String> auditLines(String containing) {
        return audit.list.stream().map(ILoggingEvent::getFormattedMessage).filter(m -> m.contains(containing)).toList();
    }

    @Test
    void aSubmitterOwnsWhatItSubmitsAndNamingSomeoneElseIsRefused() throws Exception {
        long before = store.batches().newestNumber();
        RawHttp r = submitJson("127.0.0.20", "dep", "pw-d", "dep2/Someone Else");
        assertEquals(403, r.status(), r.body());
        assertTrue(r.body().contains("field 'submitter' names 'dep2/Someone Else', not user 'dep'"), r.body());
        MultipartForm form = MultipartForm.of(Map.of("profile", "demo_content", "submitter", "dep2"), "a.txt",
                "hello".getBytes(StandardCharsets.UTF_8));
        RawHttp f = RawHttp.send(port, "127.0.0.20", "POST", "/poster/submit", List.of(RawHttp.basic("dep", "pw-d"),
                "Content-Type: " + form.contentType()), new String(form.body(), StandardCharsets.UTF_8));
        assertEquals(403, f.status(), f.body());
        assertEquals(before, store.batches().newestNumber(), "a refused submission creates nothing");

        RawHttp own = submitJson("127.0.0.20", "dep", "pw-d", "dep/Dee Depositor");
        assertEquals(201, own.status(), own.body());
        String bid = own.header("BID");
        assertEquals("dep/Dee Depositor", store.batches().load(bid).submission().submitter());
        RawHttp plain = submitJson("127.0.0.20", "dep", "pw-d", null);
        assertEquals("dep", store.batches().load(plain.header("BID")).submission().submitter());
        assertEquals(200, as("127.0.0.20", "dep", "pw-d", "GET", "/api/batches/" + bid, null).status());
        assertEquals(404, as("127.0.0.20", "dep2", "pw-d2", "GET", "/api/batches/" + bid, null).status(),
                "not dep2's batch");
    }

    @Test
    void aPosterNamesTheUserItPostsForWhoOwnsTheBatchAndThePosterIsAudited() throws Exception {
        MultipartForm form = MultipartForm.of(Map.of("profile", "demo_content", "submitter", "dep2/Someone Else",
                "responseForm", "json"), "a.txt", "hello".getBytes(StandardCharsets.UTF_8));
        RawHttp r = RawHttp.send(port, "127.0.0.21", "POST", "/poster/submit", List.of(RawHttp.basic("ui", "pw-ui"),
                "Content-Type: " + form.contentType()), new String(form.body(), StandardCharsets.UTF_8));
        assertEquals(200, r.status(), r.body());
        String bid = r.header("BID");
        assertEquals("dep2/Someone Else", store.batches().load(bid).submission().submitter());
        assertEquals(200, as("127.0.0.21", "dep2", "pw-d2", "GET", "/api/batches/" + bid, null).status());
        assertEquals(404, as("127.0.0.21", "dep", "pw-d", "GET", "/api/batches/" + bid, null).status());
        List<String> lines = auditLines("target=bid=" + bid);
        assertEquals(1, lines.size(), audit.list.toString());
        assertTrue(lines.get(0).startsWith("user=ui action=\"submit\"") && lines.get(0)
                .contains("on_behalf_of=\"dep2/Someone Else\""),
                lines.get(0));
    }

    @Test
    void guessingAUserIsDelayedThenRefusedWith429WhileTheRealUserStillLogsIn() throws Exception {
        assertEquals(200, as("127.0.0.22", "dep2", "pw-d2", "GET", "/api/queue", null).status(),
                "dep2's usual address");
        long slowest = 0;
        for (int i = 1; i <= 4; i++) {
            long t = System.nanoTime();
            RawHttp r = as("127.0.0.23", "dep2", "guess" + i, "GET", "/api/queue", null);
            slowest = Math.max(slowest, (System.nanoTime() - t) / 1_000_000);
            assertEquals(401, r.status(), "guess " + i + ": " + r.body());
        }
        assertTrue(slowest >= 500, "the fourth failure is answered after half a second at least, was " + slowest
                + " ms");
        // issue 49: the right password from an address that has not failed is never refused
        assertEquals(200, as("127.0.0.24", "dep2", "pw-d2", "GET", "/api/queue", null).status(),
                "a clean address gets in");
        RawHttp locked = as("127.0.0.23", "dep2", "pw-d2", "GET", "/api/queue", null);
        assertEquals(429, locked.status(), "the guessing address waits out its lock, the right password too: "
                + locked.body());
        long retry = Long.parseLong(locked.header("Retry-After"));
        assertTrue(retry >= 1 && retry <= 60, "Retry-After " + retry);
        assertTrue(locked.body().contains("too many failed logins of this user from this address"), locked.body());
        assertEquals(200, as("127.0.0.22", "dep2", "pw-d2", "GET", "/api/queue", null).status(),
                "dep2 still gets in from where dep2 logged in before");
        List<String> failures = auditLines(
                "user=dep2 action=\"login\" via=basic target=- result=refused status=401 from=127.0.0.23");
        assertEquals(4, failures.size(), audit.list.toString());
        assertTrue(failures.get(3).contains("throttled=\"user locked at this address for 5 s\""), failures.get(3));
    }

    @Test
    void oneAddressGuessingManyNamesIsRefusedWith429AndDashboardLoginsCountAlike() throws Exception {
        for (int i = 1; i <= 6; i++) {
            RawHttp r = i % 2 == 0 ? login("127.0.0.25", "nobody" + i, "x", List.of()) : as("127.0.0.25", "nobody" + i,
                    "x", "GET", "/api/queue", null);
            assertEquals(401, r.status(), r.body());
        }
        RawHttp refused = as("127.0.0.25", "ops", "pw-ops", "GET", "/api/queue", null);
        assertEquals(429, refused.status(), refused.body());
        assertNotNull(refused.header("Retry-After"));
        assertEquals(429, login("127.0.0.25", "ops", "pw-ops", List.of()).status());
        assertEquals(200, as("127.0.0.26", "ops", "pw-ops", "GET", "/api/queue", null).status(),
                "another address is not refused");
        assertEquals(3, auditLines("action=\"login\" via=session target=- result=refused status=401 from=127.0.0.25")
                .size());
        assertEquals(3, auditLines("action=\"login\" via=basic target=- result=refused status=401 from=127.0.0.25")
                .size());
    }

    @Test
    void theSecureFlagAndTheClientAddressComeFromTrustedProxiesOnly() throws Exception {
        List<String> forwarded = List.of("X-Forwarded-Proto: https", "X-Forwarded-For: 203.0.113.7");
        RawHttp viaProxy = login("127.0.0.9", "dep", "pw-d", forwarded);
        assertEquals(200, viaProxy.status(), viaProxy.body());
        String cookie = viaProxy.header("Set-Cookie");
        assertTrue(cookie.contains("iq_session=") && cookie.contains("; Secure")
                && cookie.toLowerCase().contains("httponly"), cookie);
        assertEquals("max-age=31536000", viaProxy.header("Strict-Transport-Security"));
        assertFalse(auditLines("user=dep action=\"login\" via=session target=- result=ok status=200 from=203.0.113.7")
                .isEmpty());

        RawHttp direct = login("127.0.0.27", "dep", "pw-d", forwarded);
        assertEquals(200, direct.status(), direct.body());
        assertFalse(direct.header("Set-Cookie").contains("; Secure"),
                "a client's own X-Forwarded-Proto is not believed");
        assertFalse(auditLines("from=127.0.0.27").isEmpty(), "nor its X-Forwarded-For");
    }

    @Test
    void aUserHoldsAtMostTwentySessionsAndCannotEndAnyoneElses() throws Exception {
        String others = sessionCookie(login("127.0.0.28", "dep2", "pw-d2", List.of()));
        List<String> mine = new ArrayList<>();
        for (int i = 0; i < SessionNodes.MAX_PER_USER + 5; i++) {
            mine.add(sessionCookie(login("127.0.0.28", "ops", "pw-ops", List.of())));
        }
        assertEquals(401, session(mine.get(0)), "the oldest of ops's sessions went");
        assertEquals(200, session(mine.get(mine.size() - 1)));
        assertEquals(200, session(mine.get(5)), "the newest twenty stay");
        assertEquals(200, session(others), "dep2's session stays");
    }

    static String sessionCookie(RawHttp r) {
        assertEquals(200, r.status(), r.body());
        return r.header("Set-Cookie").split(";")[0];
    }

    static int session(String cookie) throws Exception {
        return RawHttp.send(port, "127.0.0.28", "GET", "/api/session", List.of("Cookie: " + cookie,
                "X-Requested-By: dashboard"), null)
                .status();
    }

    @Test
    void anUnknownUserCostsWhatAKnownOneDoes() {
        ApiUsers users = ApiUsers.parse("known:" + Passwords.hash("right") + ":submitter, plain:pw:submitter");
        users.check("known", "warm-up");
        // measured in turn, so that the machine's load falls on all three alike
        long[][] t = new long[3][9];
        String[] names = {"known", "nobody", "plain"};
        for (int round = 0; round < 9; round++) {
            for (int k = 0; k < 3; k++) {
                long s = System.nanoTime();
                users.check(names[k], "wrong");
                t[k][round] = (System.nanoTime() - s) / 1_000_000;
            }
        }
        for (long[] a : t) {
            Arrays.sort(a);
        }
        long known = t[0][4];
        long unknown = t[1][4];
        long plain = t[2][4];
        // without the stand-in hash an unknown name answered in well under a millisecond
        assertTrue(unknown * 3 >= known && plain * 3 >= known, "known " + known + " ms, unknown " + unknown
                + " ms, plain " + plain + " ms");
        assertTrue(users.check("plain", "pw").isPresent() && users.check("known", "right").isPresent());
    }
}
