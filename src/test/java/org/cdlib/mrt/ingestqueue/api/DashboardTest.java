package org.cdlib.mrt.ingestqueue.api;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.assertions.PlaywrightAssertions;
import com.sun.net.httpserver.HttpServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.curator.test.TestingServer;
import org.cdlib.mrt.ingestqueue.queue.BatchState;
import org.cdlib.mrt.ingestqueue.queue.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.JobState;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.QueueTestSupport;
import org.cdlib.mrt.ingestqueue.runtime.Demo;
import org.cdlib.mrt.ingestqueue.runtime.IngestService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard in headless Chromium (Debian's package, driven by Playwright): the demo batch
 * completes on screen, and an operator holds and releases a job with the page's buttons.
 */
class DashboardTest {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static TestingServer zk;
    static HttpServer files;
    static IngestService service;
    static QueueStore store;
    static String base;
    @TempDir
    static Path dir;

    @BeforeAll
    static void start() throws Exception {
        assumeTrue(Files.isExecutable(CHROMIUM), "Debian's chromium is needed (.ci/run installs it)");
        zk = new TestingServer(true);
        files = Demo.serve();
        Map<String, String> config = new HashMap<>();
        config.put("zookeeper.connect", zk.getConnectString());
        config.put("ingest.home", dir.resolve("queue").toString());
        config.put("ingest.profiles", dir.resolve("profiles").toString());
        config.put("ingest.storage.local.root", dir.resolve("storage").toString());
        config.put("ingest.inventory.local.url", "jdbc:h2:file:" + dir.resolve("inventory").toAbsolutePath() + "/inv");
        config.put("ingest.mail.outbox", dir.resolve("outbox").toString());
        config.put("ingest.http.port", "0");
        config.put("ingest.fetch.allow", org.cdlib.mrt.ingestqueue.fetch.AddressPolicy.LOOPBACK); // the demo files on loopback
        config.put("ingest.api.users", "operator:secret:admin|submitter");
        config.put("camel.main.routes-include-pattern", "file:routes/*.yaml");
        service = new IngestService(config).start();
        store = service.store();
        base = "http://127.0.0.1:" + service.camel().getRegistry().lookupByNameAndType("httpApi", HttpApi.class).port();
    }

    @AfterAll
    static void stop() throws Exception {
        if (service != null) {
            service.close();
            files.stop(0);
            zk.close();
        }
    }

    @Test
    void anOperatorSeesTheDemoBatchCompleteAndHoldsAndReleasesAJob() {
        try (Playwright pw = Playwright.create(new Playwright.CreateOptions().setEnv(Map.of("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")));
             Browser browser = pw.chromium().launch(new BrowserType.LaunchOptions().setExecutablePath(CHROMIUM).setHeadless(true)
                     .setArgs(java.util.List.of("--no-sandbox")));
             BrowserContext context = browser.newContext()) {
            Page page = context.newPage();
            // opened with the credentials in the URL: the page logs in with them and goes on at the plain address
            page.navigate(base.replace("http://", "http://operator:secret@") + "/");
            PlaywrightAssertions.assertThat(page.locator("#queue-hold")).hasText("queue running");
            PlaywrightAssertions.assertThat(page.locator("#who")).hasText("operator");
            assertEquals(base + "/", page.url(), "the address bar no longer carries the password");

            String port = Integer.toString(files.getAddress().getPort());
            String bid = store.createBatch(new BatchSubmission("demo_content", "demo", "http://127.0.0.1:" + port
                    + "/demo/batch.checkm", "Demo", "demo", null, null, "batch-manifest", "add", null, null, null, null,
                    null, null, "json", null, java.time.Instant.now().toString(), null));
            var row = page.locator("tr[data-batch='" + bid + "']");
            PlaywrightAssertions.assertThat(row.locator(".batch-status")).hasText("completed",
                    new com.microsoft.playwright.assertions.LocatorAssertions.HasTextOptions().setTimeout(30_000));
            PlaywrightAssertions.assertThat(row.locator(".progress-text")).hasText("3 / 0 / 3");
            PlaywrightAssertions.assertThat(page.locator("#job-counts [data-state='completed'] b")).hasText("3");

            // a job that waits: hold the queue from the page, then give it a job
            page.click("#queue-toggle");
            PlaywrightAssertions.assertThat(page.locator("#queue-hold")).hasText("queue held");
            String waiting = QueueTestSupport.batchWithJobs(store, 1, 5);
            String jid = store.batchJobs(waiting, org.cdlib.mrt.ingestqueue.queue.BatchRef.PROCESSING).get(0);
            page.locator("tr[data-batch='" + waiting + "']").click();
            page.locator("tr[data-job='" + jid + "']").click();
            PlaywrightAssertions.assertThat(page.locator("#job-status")).hasText("pending");
            page.locator("#job-actions button[data-action='hold']").click();
            PlaywrightAssertions.assertThat(page.locator("#job-status")).hasText("held");
            assertEquals(JobState.HELD, store.loadJob(jid).state(), "the button held the job in ZooKeeper");
            page.locator("#job-actions button[data-action='release']").click();
            PlaywrightAssertions.assertThat(page.locator("#job-status")).hasText("pending");
            assertEquals(JobState.PENDING, store.loadJob(jid).state());
            page.click("#queue-toggle");
            await().atMost(Duration.ofSeconds(10)).until(() -> !store.isQueueHeld());
            assertEquals(BatchState.COMPLETED, store.loadBatch(bid).state());
        }
    }

    static Browser launch(Playwright pw) {
        return pw.chromium().launch(new BrowserType.LaunchOptions().setExecutablePath(CHROMIUM).setHeadless(true)
                .setArgs(java.util.List.of("--no-sandbox")));
    }

    static Playwright playwright() {
        return Playwright.create(new Playwright.CreateOptions().setEnv(Map.of("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")));
    }

    @Test
    void theLoginPageGivesAnHttpOnlySessionWhoseActionsCarryTheCsrfToken() {
        try (Playwright pw = playwright(); Browser browser = launch(pw); BrowserContext context = browser.newContext()) {
            Page page = context.newPage();
            page.navigate(base + "/");
            page.waitForURL(base + "/login.html");
            page.fill("#username", "operator");
            page.fill("#password", "wrong");
            page.click("#submit");
            PlaywrightAssertions.assertThat(page.locator("#message")).hasText("the user name or password is wrong");
            page.fill("#password", "secret");
            page.click("#submit");
            page.waitForURL(base + "/");
            PlaywrightAssertions.assertThat(page.locator("#who")).hasText("operator");
            var cookie = context.cookies().stream().filter(c -> c.name.equals(Sessions.COOKIE)).findFirst().orElseThrow();
            assertEquals(true, cookie.httpOnly);
            assertEquals(com.microsoft.playwright.options.SameSiteAttribute.STRICT, cookie.sameSite);
            assertEquals(false, String.valueOf(page.evaluate("document.cookie")).contains(Sessions.COOKIE), "scripts cannot read it");
            // the page's own action goes through: it sends the session's CSRF token
            page.click("#queue-toggle");
            PlaywrightAssertions.assertThat(page.locator("#queue-hold")).hasText("queue held");
            assertEquals(true, store.isQueueHeld());
            page.click("#queue-toggle");
            PlaywrightAssertions.assertThat(page.locator("#queue-hold")).hasText("queue running");
            assertEquals(false, store.isQueueHeld());
            page.click("#logout");
            page.waitForURL(base + "/login.html");
            page.navigate(base + "/");
            page.waitForURL(base + "/login.html");
        }
    }

    /** A page on another site (localhost is not 127.0.0.1) that posts a form to the queue's hold action as soon as it opens. */
    static HttpServer attacker() throws java.io.IOException {
        HttpServer evil = HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        evil.createContext("/", ex -> {
            byte[] b = ("<!doctype html><html><body><form method=\"POST\" action=\"" + base + "/api/queue/hold\"></form>"
                    + "<script>document.forms[0].submit()</script></body></html>").getBytes(java.nio.charset.StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "text/html");
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        evil.start();
        return evil;
    }

    @Test
    void aFormPostedFromAnotherSiteHoldsNothingWithASessionOrWithBasicCredentials() throws Exception {
        HttpServer evil = attacker();
        String evilUrl = "http://localhost:" + evil.getAddress().getPort() + "/";
        try (Playwright pw = playwright(); Browser browser = launch(pw)) {
            // an operator logged in on the dashboard (session cookie) visits the other site
            try (BrowserContext context = browser.newContext()) {
                Page page = context.newPage();
                page.navigate(base.replace("http://", "http://operator:secret@") + "/");
                PlaywrightAssertions.assertThat(page.locator("#who")).hasText("operator");
                var answer = page.waitForResponse(r -> r.url().equals(base + "/api/queue/hold"), () -> page.navigate(evilUrl));
                assertEquals(401, answer.status(), "SameSite=Strict: the session cookie did not go with the other site's form");
                assertEquals(false, String.valueOf(answer.request().allHeaders().get("cookie")).contains(Sessions.COOKIE),
                        "the form's request carried no session cookie: " + answer.request().allHeaders());
                assertEquals(false, store.isQueueHeld(), "the other site's form held nothing");
            }
            // a browser that answers the Basic challenge with cached credentials
            try (BrowserContext context = browser.newContext(new Browser.NewContextOptions().setHttpCredentials("operator", "secret"))) {
                Page page = context.newPage();
                var answer = page.waitForResponse(r -> r.url().equals(base + "/api/queue/hold") && r.status() != 401,
                        () -> page.navigate(evilUrl));
                assertEquals(403, answer.status(), "the credentials went with it, and the Origin refused it");
                assertEquals(true, answer.text().contains("may not change anything"), answer.text());
                assertEquals(false, store.isQueueHeld(), "the other site's form held nothing");
            }
        } finally {
            evil.stop(0);
        }
    }
}
