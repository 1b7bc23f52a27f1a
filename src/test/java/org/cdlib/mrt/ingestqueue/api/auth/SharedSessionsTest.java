package org.cdlib.mrt.ingestqueue.api.auth;

import static io.vertx.core.http.HttpMethod.POST;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.cdlib.mrt.ingestqueue.api.HttpApi;
import org.cdlib.mrt.ingestqueue.api.http.Access;
import org.cdlib.mrt.ingestqueue.api.http.Answers;
import org.cdlib.mrt.ingestqueue.api.http.Proxies;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.hosts.SessionNodes;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two service instances (two Vert.x servers, each with its own ZooKeeper client) behind an
 * imagined load balancer: a dashboard session and its CSRF token are honoured by either, a logout
 * on one ends the session on both, an idle one is swept; over real HTTP.
 */
class SharedSessionsTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    Path dir;
    final List<HttpApi> hosts = new ArrayList<>();
    final List<CuratorFramework> clients = new ArrayList<>();

    /** A browser: the cookies the hosts set, sent back to whichever host it asks. */
    static final class Browser {
        final Map<String, String> cookies = new LinkedHashMap<>();

        HttpResponse<String> send(HttpApi host, String method, String path, String body,
                boolean token) throws Exception {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + host.port() + path))
                    .header("X-Requested-By", "dashboard").header("Content-Type", "application/json")
                    .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
            if (!cookies.isEmpty()) {
                b.header("Cookie", cookies.entrySet().stream().map(e -> e.getKey() + "="
                        + e.getValue()).collect(Collectors.joining("; ")));
            }
            if (token && cookies.containsKey(Sessions.CSRF_COOKIE)) {
                b.header(Sessions.CSRF_HEADER, cookies.get(Sessions.CSRF_COOKIE));
            }
            HttpResponse<String> r = CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
            for (String set : r.headers().allValues("Set-Cookie")) {
                String[] kv = set.split(";")[0].split("=", 2);
                if (set.contains("Max-Age=0") || kv[1].isEmpty()) {
                    cookies.remove(kv[0]);
                } else {
                    cookies.put(kv[0], kv[1]);
                }
            }
            return r;
        }

        HttpResponse<String> login(HttpApi host, String user, String password) throws Exception {
            return send(host, "POST", "/api/login", "{\"username\":\"" + user + "\",\"password\":\"" + password + "\"}",
                    false);
        }
    }

    HttpApi host(Duration idle) {
        CuratorFramework client = QueueTestSupport.client(ZK.server());
        clients.add(client);
        QueueStore store = QueueTestSupport.store(client, dir.resolve("host" + hosts.size()));
        HttpApi api = new HttpApi(ApiUsers.parse("ops:pw-ops:admin, dep:pw-d:submitter"), "127.0.0.1", 0, 1_000_000,
                dir.resolve("uploads" + hosts.size()));
        api.sessions(new Sessions(new SessionNodes(store.client(), Clock.systemUTC()), idle, Proxies.none()));
        api.add(POST, "/api/test/change", Access.USER, "A change, as any action is", rc -> Answers.json(rc, 200,
                Map.of("by", Guard.user(rc))));
        api.start();
        hosts.add(api);
        return api;
    }

    @AfterEach
    void stop() {
        hosts.forEach(HttpApi::stop);
        clients.forEach(CuratorFramework::close);
    }

    @Test
    void aLoginOnOneHostIsHonouredByTheOtherAndALogoutOnEitherEndsItOnBoth() throws Exception {
        HttpApi a = host(Duration.ofHours(1));
        HttpApi b = host(Duration.ofHours(1));
        Browser browser = new Browser();
        HttpResponse<String> login = browser.login(a, "ops", "pw-ops");
        assertEquals(200, login.statusCode(), login.body());
        String cookie = login.headers().firstValue("Set-Cookie").orElseThrow();
        assertTrue(cookie.startsWith(Sessions.COOKIE + "=") && cookie.toLowerCase().contains("httponly")
                && cookie.contains("SameSite=Strict"), cookie);

        HttpResponse<String> who = browser.send(b, "GET", "/api/session", null, false);
        assertEquals(200, who.statusCode(), who.body());
        assertEquals("ops", JSON.readTree(who.body()).get("user").asText());
        assertNotNull(browser.cookies.get(Sessions.CSRF_COOKIE), "the other host issued the CSRF token: "
                + who.headers().map());
        String issuedByB = browser.cookies.get(Sessions.CSRF_COOKIE);
        HttpResponse<String> change = browser.send(a, "POST", "/api/test/change", null, true);
        assertEquals(200, change.statusCode(), "a token one host issued is good on the other: " + change.body());
        assertNotEquals(issuedByB, browser.cookies.get(Sessions.CSRF_COOKIE), "a change renews the token");
        assertEquals(200, browser.send(b, "POST", "/api/test/change", null, true).statusCode(),
                "the renewed one is good on the other");

        HttpResponse<String> logout = browser.send(b, "POST", "/api/logout", null, true);
        assertEquals(200, logout.statusCode(), logout.body());
        Browser kept = new Browser(); // a copy of the cookie kept after the logout (a stolen one) is no good either
        kept.cookies.put(Sessions.COOKIE, cookie.split(";")[0].split("=", 2)[1]);
        assertEquals(401, kept.send(a, "GET", "/api/session", null, false).statusCode());
        assertEquals(401, kept.send(b, "GET", "/api/session", null, false).statusCode());
        assertEquals(null, browser.cookies.get(Sessions.COOKIE), "the logout's answer removed the cookie");
    }

    @Test
    void aCookiePostNeedsTheCsrfTokenAndABasicPostNone() throws Exception {
        HttpApi a = host(Duration.ofHours(1));
        HttpApi b = host(Duration.ofHours(1));
        Browser browser = new Browser();
        assertEquals(200, browser.login(a, "dep", "pw-d").statusCode());
        assertEquals(200, browser.send(a, "GET", "/api/session", null, false).statusCode());
        HttpResponse<String> without = browser.send(b, "POST", "/api/test/change", null, false);
        assertEquals(403, without.statusCode(), without.body());
        assertTrue(JSON.readTree(without.body()).get("error").asText().contains(Sessions.CSRF_HEADER), without.body());

        // a token of the right form that this session was not given (the cookie and the header agree: double submit
        // alone is not enough)
        Browser forged = new Browser();
        forged.cookies.put(Sessions.COOKIE, browser.cookies.get(Sessions.COOKIE));
        forged.cookies.put(Sessions.CSRF_COOKIE, "AAAA.1.BBBB");
        HttpResponse<String> wrong = forged.send(b, "POST", "/api/test/change", null, true);
        assertEquals(403, wrong.statusCode(), wrong.body());
        assertTrue(JSON.readTree(wrong.body()).get("error").asText().startsWith(Guard.CSRF_REFUSAL), wrong.body());

        assertEquals(200, browser.send(b, "POST", "/api/test/change", null, true).statusCode(), "with it, accepted");

        String basic = "Basic " + Base64.getEncoder().encodeToString("dep:pw-d".getBytes(StandardCharsets.UTF_8));
        HttpResponse<String> script = CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + b.port()
                + "/api/test/change"))
                .header("Authorization", basic).POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, script.statusCode(), script.body());
        assertTrue(script.headers().allValues("Set-Cookie").isEmpty(), "a Basic request gets no session and no token");
    }

    @Test
    void anIdleSessionIsSweptAndThenRefusedByEveryHost() throws Exception {
        HttpApi a = host(Duration.ofSeconds(2));
        HttpApi b = host(Duration.ofSeconds(2));
        SessionNodes nodes = new SessionNodes(ZK.store(dir.resolve("probe")).client(), Clock.systemUTC());
        int before = nodes.count(); // other tests' sessions, idle for an hour
        Browser browser = new Browser();
        assertEquals(200, browser.login(a, "ops", "pw-ops").statusCode());
        assertEquals(200, browser.send(b, "GET", "/api/session", null, false).statusCode());
        assertEquals(before + 1, nodes.count());
        // nobody reads it meanwhile: the hosts' sweeps delete it
        await().atMost(Duration.ofSeconds(30)).until(() -> nodes.count() == before);
        assertEquals(401, browser.send(b, "GET", "/api/session", null, false).statusCode());
        assertEquals(401, browser.send(a, "GET", "/api/session", null, false).statusCode());
    }
}
