package org.cdlib.mrt.ingestqueue.api.dashboard;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.assertions.LocatorAssertions;
import com.microsoft.playwright.assertions.PlaywrightAssertions;
import com.microsoft.playwright.options.SameSiteAttribute;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import org.cdlib.mrt.ingestqueue.api.auth.Sessions;
import org.cdlib.mrt.ingestqueue.api.http.RunningApi;
import org.cdlib.mrt.ingestqueue.fetch.AddressPolicy;
import org.cdlib.mrt.ingestqueue.objects.StatusLinks;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.model.JobHistory;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.runtime.Demo;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The dashboard in headless Chromium (Debian's package, driven by Playwright): a batch completes
 * on screen without a reload, a job's timeline, search by local id, a bulk requeue after a failed
 * download is fixed, a host's drain, the depositor's status page; the login, its CSRF token and a
 * cross-site form; every page on a 360 px phone with nothing cut off. Each page is saved as a screenshot under
 * target/screenshots/ (phone-*.png: at 360 px).
 */
class DashboardTest {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path SHOTS = Path.of("target", "screenshots");
    static final LocatorAssertions.HasTextOptions LONG = new LocatorAssertions.HasTextOptions().setTimeout(30_000);
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().keepNodesBetweenTests();
    @RegisterExtension
    static final RunningApi API = new RunningApi(ZK);
    static HttpServer files;
    static HttpServer fixable;
    static final AtomicBoolean FIXED = new AtomicBoolean();
    static QueueStore store;
    static String base;

    @BeforeAll
    static void start() throws Exception {
        assumeTrue(Files.isExecutable(CHROMIUM), "Debian's chromium is needed (.ci/run installs it)");
        files = Demo.serve();
        fixable = fixableFiles();
        Map<String, String> config = API.realSteps();
        config.remove("ingest.storage.settle"); // the service's own, as this test has always run
        config.put("ingest.fetch.allow", AddressPolicy.LOOPBACK); // the demo files on loopback
        config.put("ingest.download.retries", "0");
        config.put("ingest.api.users", "operator:secret:admin|submitter");
        store = API.start(config).store();
        base = API.base();
        Files.createDirectories(SHOTS);
    }

    @AfterAll
    static void stop() {
        if (files != null) {
            files.stop(0);
            fixable.stop(0);
        }
    }

    @AfterEach
    void queueRunsAgain() {
        if (store != null) {
            store.holds().releaseQueue();
            store.hosts().undrain(store.hosts().id(), "test");
        }
    }

    /**
     * A batch of two objects whose second file answers 404 until {@link #FIXED}: a download that fails, then is fixed.
     */
    static HttpServer fixableFiles() throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        s.createContext("/fix/", ex -> {
            String name = ex.getRequestURI().getPath().substring("/fix/".length());
            String root = "http://127.0.0.1:" + s.getAddress().getPort() + "/fix";
            String head = "#%checkm_0.7\n#%profile | "
                    + "http://uc3.cdlib.org/registry/ingest/manifest/mrt-ingest-manifest\n"
                    + "#%prefix | nfo: | http://www.semanticdesktop.org/ontologies/2007/03/22/nfo#\n"
                    + "#%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | "
                    + "nfo:fileLastModified | nfo:fileName\n";
            String body = switch (name) {
                case "batch.checkm" ->
                        "#%checkm_0.7\n#%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-batch-manifest\n"
                        + "#%prefix | mrt: | http://merritt.cdlib.org/terms#\n"
                        + "#%prefix | nfo: | http://www.semanticdesktop.org/ontologies/2007/03/22/nfo#\n"
                        + "#%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | "
                        + "nfo:fileLastModified | nfo:fileName"
                        + " | mrt:primaryIdentifier | mrt:localIdentifier | mrt:creator | mrt:title | mrt:date\n"
                        + root + "/good.checkm |  |  |  |  | good.checkm |  | fix-good | A | Good object | 2020\n"
                        + root
                        + "/late.checkm |  |  |  |  | late.checkm |  | fix-late | B | Late object | 2021\n#%eof\n";
                case "good.checkm" -> head + root + "/good.txt |  |  |  |  | good.txt\n#%eof\n";
                case "late.checkm" -> head + root + "/late.txt |  |  |  |  | late.txt\n#%eof\n";
                case "good.txt" -> "good\n";
                case "late.txt" -> FIXED.get() ? "late but here\n" : null;
                default -> null;
            };
            if (body == null) {
                ex.sendResponseHeaders(404, -1);
            } else {
                byte[] b = body.getBytes(StandardCharsets.UTF_8);
                ex.sendResponseHeaders(200, ex.getRequestMethod().equals("HEAD") ? -1 : b.length);
                if (!ex.getRequestMethod().equals("HEAD")) {
                    ex.getResponseBody().write(b);
                }
            }
            ex.close();
        });
        s.start();
        return s;
    }

    static BatchSubmission manifest(String url, String title) {
        return new BatchSubmission("demo_content", "operator", url, title, "demo", null, null, "batch-manifest", "add",
                null,
                null, null, null, null, null, "json", null, Instant.now().toString(), null);
    }

    static String demoBatch() {
        return store.batches().create(manifest("http://127.0.0.1:" + files.getAddress().getPort()
                + "/demo/batch.checkm", "Demo"));
    }

    static Browser launch(Playwright pw) {
        return pw.chromium().launch(new BrowserType.LaunchOptions().setExecutablePath(CHROMIUM).setHeadless(true)
                .setArgs(List.of("--no-sandbox")));
    }

    static Playwright playwright() {
        return Playwright.create(new Playwright.CreateOptions().setEnv(Map.of("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD",
                "1")));
    }

    /** A page logged in as the operator (the credentials in the URL log it in), at 1366×768. */
    static Page operator(Browser browser) {
        BrowserContext context = browser.newContext(new Browser.NewContextOptions().setViewportSize(1366, 768));
        Page page = context.newPage();
        page.navigate(base.replace("http://", "http://operator:secret@") + "/");
        PlaywrightAssertions.assertThat(page.locator("#who")).hasText("operator");
        PlaywrightAssertions.assertThat(page.locator("#live")).hasText("live");
        return page;
    }

    static void shot(Page page, String name) {
        page.screenshot(new Page.ScreenshotOptions().setPath(SHOTS.resolve(name + ".png")).setFullPage(true));
    }

    @Test
    void aBatchCompletesOnScreenWithoutAReloadAndAJobShowsItsTimeline() {
        try (Playwright pw = playwright(); Browser browser = launch(pw)) {
            Page page = operator(browser);
            assertEquals(base + "/", page.url(), "the address bar no longer carries the password");
            page.evaluate("window.notReloaded = true");
            String bid = demoBatch();
            var row = page.locator("tr[data-batch='" + bid + "']");
            PlaywrightAssertions.assertThat(row.locator(".batch-status")).hasText("completed", LONG);
            PlaywrightAssertions.assertThat(row.locator(".progress-text").first())
                    .hasText("3 completed · 0 failed · 0 open (0 held) of 3");
            PlaywrightAssertions.assertThat(row).containsText("Demo");
            PlaywrightAssertions.assertThat(row).containsText("batch.checkm");
            // a finished batch: its mean rate, never the last minutes' rate as "now"
            PlaywrightAssertions.assertThat(row.locator(".batch-rate")).hasText(Pattern.compile(
                    "^ · mean rate [0-9.]+ jobs/min$"));
            assertEquals(true, page.evaluate("window.notReloaded === true"),
                    "the row changed by live updates, not a reload");
            PlaywrightAssertions.assertThat(page.locator("#job-summary [data-summary='completed'] b")).not()
                    .hasText("0");
            PlaywrightAssertions.assertThat(page.locator(".chart svg")).hasCount(3);
            PlaywrightAssertions.assertThat(page.locator(".chart svg").first()).hasAttribute("aria-label",
                    Pattern.compile("[1-9]\\d* completed"));
            shot(page, "overview");

            // the batch's page at its address, then a job's page with its timeline
            row.locator("a").first().click();
            // waits: the hash changes after the click
            PlaywrightAssertions.assertThat(page).hasURL(base + "/#/batches/" + bid);
            PlaywrightAssertions.assertThat(page.locator("#batch-status")).hasText("completed");
            String jid = store.batches().load(bid).jobIds().get(0);
            page.locator("tr[data-job='" + jid + "'] a").click();
            PlaywrightAssertions.assertThat(page).hasURL(base + "/#/jobs/" + jid);
            PlaywrightAssertions.assertThat(page.locator("#job-status")).hasText("completed");
            List<JobHistory.Entry> history = store.jobs().load(jid).status().history();
            assertEquals(null, history.get(0).from(), "the history starts at the job's creation: " + history);
            assertEquals("completed", history.get(history.size() - 1).to());
            PlaywrightAssertions.assertThat(page.locator("#timeline li")).hasCount(history.size());
            PlaywrightAssertions.assertThat(page.locator("#timeline li").first()).containsText("→ completed");
            PlaywrightAssertions.assertThat(page.locator("#timeline li").last()).containsText("created → pending");
            shot(page, "job");
            page.goBack();
            PlaywrightAssertions.assertThat(page.locator("#batch-title")).containsText(bid);
            shot(page, "batch");
        }
    }

    @Test
    void searchFindsAJobByItsLocalId() {
        String bid = demoBatch();
        await().atMost(Duration.ofSeconds(30)).until(() -> store.batches().load(bid).state() == BatchState.COMPLETED);
        try (Playwright pw = playwright(); Browser browser = launch(pw)) {
            Page page = operator(browser);
            // by keyboard alone: tab to the search field, type, Enter; tab to the first result, Enter
            tabTo(page, "search-q");
            page.keyboard().type("demo-letters-v1");
            page.keyboard().press("Enter");
            // waits for the keypress's navigation
            PlaywrightAssertions.assertThat(page).hasURL(base + "/#/search?q=demo-letters-v1");
            var hit = page.locator("#results li[data-result^='jid']").first();
            PlaywrightAssertions.assertThat(hit).containsText("matched by local id");
            shot(page, "search");
            String jid = hit.getAttribute("data-result");
            tabTo(page, "result-" + jid);
            page.keyboard().press("Enter");
            PlaywrightAssertions.assertThat(page).hasURL(base + "/#/jobs/" + jid);
            PlaywrightAssertions.assertThat(page.locator("#job-ids")).containsText("demo-letters-v1");
        }
    }

    /** Presses Tab until the element with this id has the focus (at most 40 times). */
    static void tabTo(Page page, String id) {
        for (int i = 0; i < 40; i++) {
            if (id.equals(page.evaluate("document.activeElement && document.activeElement.id"))) {
                return;
            }
            page.keyboard().press("Tab");
        }
        throw new AssertionError("Tab never reached #" + id);
    }

    @Test
    void anOperatorRequeuesABatchsFailedJobsAfterTheDownloadIsFixedAndReportsAgain() {
        FIXED.set(false);
        String bid = store.batches().create(manifest("http://127.0.0.1:" + fixable.getAddress().getPort()
                + "/fix/batch.checkm", "Fixable"));
        await().atMost(Duration.ofSeconds(30)).until(() -> store.batches().load(bid).state() == BatchState.FAILED);
        try (Playwright pw = playwright(); Browser browser = launch(pw)) {
            Page page = operator(browser);
            page.navigate(base + "/#/batches/" + bid);
            PlaywrightAssertions.assertThat(page.locator("#batch-status")).hasText("failed");
            var requeue = page.locator("button[data-action='requeue-failed']");
            PlaywrightAssertions.assertThat(requeue).hasText("Requeue 1 failed");
            // asked first: cancelling changes nothing
            requeue.click();
            PlaywrightAssertions.assertThat(page.locator("#confirm-text")).containsText("1 failed job(s) go back");
            page.click("#confirm-cancel");
            assertEquals(1, store.batches().load(bid).count(BatchRef.FAILED));
            FIXED.set(true);
            requeue.click();
            page.click("#confirm-ok");
            PlaywrightAssertions.assertThat(page.locator(".progress-text").first())
                    .hasText("2 completed · 0 failed · 0 open (0 held) of 2", LONG);
            // the report again, once nothing failed: confirmed with what it will do
            page.click("button[data-action='update-report']");
            PlaywrightAssertions.assertThat(page.locator("#confirm-text")).containsText("gets a new report mail");
            page.click("#confirm-ok");
            PlaywrightAssertions.assertThat(page.locator("#batch-status")).hasText("completed", LONG);
            shot(page, "batch-requeued");
        }
    }

    @Test
    void aDrainedHostFinishesItsWorkAndTakesNoMoreUntilUndrained() {
        String host = store.hosts().id();
        // the only host leads the routes of one host at a time; its record says so with its next beat
        await().atMost(Duration.ofSeconds(10)).until(() -> store.hosts().list().stream()
                .anyMatch(h -> host.equals(h.get("id")) && ((List<?>) h.get("leads")).contains("cleanup")));
        try (Playwright pw = playwright(); Browser browser = launch(pw)) {
            Page page = operator(browser);
            page.click("header nav a[data-nav='hosts']");
            var row = page.locator("tr[data-host='" + host + "']");
            PlaywrightAssertions.assertThat(row.locator(".host-state")).hasText("alive");
            PlaywrightAssertions.assertThat(row.locator(".host-leads")).containsText("cleanup");
            PlaywrightAssertions.assertThat(row.locator(".host-leads")).containsText("batch-reporting-sweep");
            row.locator("button[data-action='drain']").click();
            PlaywrightAssertions.assertThat(page.locator("#confirm-text")).containsText("takes no new work");
            page.click("#confirm-ok");
            PlaywrightAssertions.assertThat(row.locator(".host-state")).containsText("alive, drained");
            assertTrue(store.hosts().isDrained());
            String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
            String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
            // the consumers see the drain as they see a queue hold: the job waits
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4))
                    .until(() -> store.jobs().load(jid).state() == JobState.PENDING);
            shot(page, "hosts");
            row.locator("button[data-action='undrain']").click();
            PlaywrightAssertions.assertThat(row.locator(".host-state")).hasText("alive");
            await().atMost(Duration.ofSeconds(30)).until(() -> store.jobs().load(jid).state() != JobState.PENDING);
        }
    }

    @Test
    void theDepositorsStatusLinkShowsPositionsAndWhyNoEstimateWithoutALogin() {
        String done = demoBatch(); // a measured completion rate
        await().atMost(Duration.ofSeconds(30)).until(() -> store.batches().load(done).state() == BatchState.COMPLETED);
        StatusLinks links = API.service().camel().getRegistry().lookupByNameAndType("statusLinks", StatusLinks.class);
        // the "queued" mail carries the batch's status link
        String mailed = links.link(done).substring(links.link(done).indexOf("/status.html"));
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            try (var mails = Files.list(API.dir().resolve("outbox"))) {
                return mails.anyMatch(m -> {
                    try {
                        return Files.readString(m).contains(mailed);
                    } catch (IOException e) {
                        return false;
                    }
                });
            }
        });
        store.holds().holdQueue("test");
        String bid = QueueTestSupport.batchWithJobs(store, 3, 5);
        String link = base + links.link(bid).substring(links.link(bid).indexOf("/status.html"));
        try (Playwright pw = playwright(); Browser browser = launch(pw);
             BrowserContext phone = browser.newContext(new Browser.NewContextOptions().setViewportSize(390, 844))) {
            Page page = phone.newPage();
            page.navigate(link);
            PlaywrightAssertions.assertThat(page.locator("#batch-id")).hasText(bid);
            PlaywrightAssertions.assertThat(page.locator("#open-jobs tbody tr")).hasCount(3);
            List<String> positions = page.locator("#open-jobs td.position").allTextContents();
            assertEquals(3, positions.stream().filter(p -> p.matches("\\d+")).distinct().count(),
                    "three places in line: " + positions);
            // the queue is held: no estimate, and the page says why (a job's and the batch's)
            for (String eta : page.locator("#open-jobs td.eta").allTextContents()) {
                assertTrue(eta.contains("the queue is on hold"), "why there is no estimate: " + eta);
            }
            PlaywrightAssertions.assertThat(page.locator("#eta")).containsText("the queue is on hold");
            shot(page, "depositor-status");
            // a changed token opens nothing
            page.navigate(link.substring(0, link.length() - 2) + "xx");
            page.reload();
            PlaywrightAssertions.assertThat(page.locator("#message")).containsText("no batch for this status link");
        }
    }

    /**
     * What a page spreads past a 360 px phone's width: the page scrolling sideways, or any element whose right edge
     * is beyond the viewport (a visually hidden table head aside); empty when everything fits.
     */
    static final String CUT_OFF = """
            () => {
              const page = document.documentElement, w = page.clientWidth, out = [];
              if (page.scrollWidth > w) out.push('the page is ' + page.scrollWidth + ' px wide');
              for (const e of document.querySelectorAll('body *')) {
                const r = e.getBoundingClientRect();
                if (r.width > 0 && r.right > w + 0.5 && !e.closest('thead')) {
                  out.push(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + '.' + e.className + ' ends at '
                    + Math.round(r.right) + ': ' + (e.textContent || '').slice(0, 40));
                }
              }
              return out.slice(0, 8);
            }""";

    static void fitsThePhone(Page page, String name) {
        shot(page, "phone-" + name);
        assertEquals(List.of(), page.evaluate(CUT_OFF), name + " at 360 px: nothing may be cut off");
    }

    @Test
    void everyPageFitsA360PxPhoneWithOpenEstimatedAndHeldWork() {
        String done = demoBatch(); // a measured rate in every state: the open jobs below have estimates
        await().atMost(Duration.ofSeconds(30)).until(() -> store.batches().load(done).state() == BatchState.COMPLETED);
        store.hosts().drain(store.hosts().id(), "test"); // nothing more starts: the work below stays open
        AdminActions admin = new AdminActions(store, Clock.systemUTC());
        String open = QueueTestSupport.batchWithJobs(store, 3, 5);
        String heldJob = store.batches().jobs(open, BatchRef.PROCESSING).get(0);
        admin.holdJob(heldJob, "test");
        String heldBatch = store.batches().create(manifest("http://127.0.0.1:" + files.getAddress().getPort()
                + "/demo/batch.checkm", "Held before it started"));
        admin.holdBatch(heldBatch, "test");
        String waiting = store.batches().create(manifest("http://127.0.0.1:" + files.getAddress().getPort()
                + "/demo/batch.checkm", "Waiting behind the queue's hold"));
        StatusLinks links = API.service().camel().getRegistry().lookupByNameAndType("statusLinks", StatusLinks.class);
        try (Playwright pw = playwright(); Browser browser = launch(pw);
             BrowserContext phone = browser.newContext(new Browser.NewContextOptions().setViewportSize(360, 740))) {
            Page page = phone.newPage();
            page.navigate(base + "/login.html");
            PlaywrightAssertions.assertThat(page.locator("#submit")).isVisible();
            fitsThePhone(page, "login");
            page.navigate(base.replace("http://", "http://operator:secret@") + "/");
            PlaywrightAssertions.assertThat(page.locator("#live")).hasText("live");
            PlaywrightAssertions.assertThat(page.locator("tr[data-batch='" + heldBatch + "'] .batch-status"))
                    .hasText("held");
            PlaywrightAssertions.assertThat(page.locator(".chart svg")).hasCount(3);
            // a row is a card: each cell under its column's name
            PlaywrightAssertions.assertThat(page.locator("tr[data-batch='" + open + "'] td[data-label='progress']"))
                    .isVisible();
            fitsThePhone(page, "overview");

            page.navigate(base + "/#/batches/" + open);
            PlaywrightAssertions.assertThat(page.locator("#batch-job-states")).hasText("0 active, 2 waiting, 1 held");
            // an estimate, or the note why there is none (this service's states may have no worker or no step
            // measured yet): either is a line the phone must fit
            PlaywrightAssertions.assertThat(page.locator("#batch-estimate")).containsText(Pattern.compile(
                    "last job done by|no live host works on|no step .* measured"));
            PlaywrightAssertions.assertThat(page.locator("tr[data-job='" + heldJob + "'] .job-status"))
                    .hasText("held");
            fitsThePhone(page, "batch-open");
            page.navigate(base + "/#/jobs/" + heldJob);
            PlaywrightAssertions.assertThat(page.locator("#job-status")).hasText("held");
            fitsThePhone(page, "job-held");
            page.navigate(base + "/#/batches/" + heldBatch);
            PlaywrightAssertions.assertThat(page.locator("#batch-status")).hasText("held");
            fitsThePhone(page, "batch-held");
            page.navigate(base + "/#/hosts");
            PlaywrightAssertions.assertThat(page.locator(".host-state").first()).containsText("drained");
            fitsThePhone(page, "hosts");
            page.navigate(base + "/#/search?q=demo-letters-v1");
            PlaywrightAssertions.assertThat(page.locator("#results li").first()).containsText("matched by local id");
            fitsThePhone(page, "search");

            // the queue held: a pending batch names the hold, not "no open jobs"
            store.holds().holdQueue("test");
            page.navigate(base + "/#/batches/" + waiting);
            PlaywrightAssertions.assertThat(page.locator("#batch-hold")).containsText("the queue is on hold");
            PlaywrightAssertions.assertThat(page.locator("#batch-estimate")).not().containsText("no open jobs");
            fitsThePhone(page, "batch-pending-queue-held");

            Page status = phone.newPage();
            status.navigate(base + links.link(open).substring(links.link(open).indexOf("/status.html")));
            PlaywrightAssertions.assertThat(status.locator("#open-jobs tbody tr")).hasCount(3);
            PlaywrightAssertions.assertThat(status.locator("#counts")).containsText("0 active, 2 waiting, 1 held");
            PlaywrightAssertions.assertThat(status.locator("#open-jobs td.eta[data-label='estimated completion']")
                    .first()).isVisible();
            fitsThePhone(status, "depositor-status");
        }
    }

    @Test
    void aLockedJobsButtonsSayWhyTheyAreDisabledAndARefusalAppearsBesideItsButton() {
        store.holds().holdQueue("test");
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        var lock = store.claims().tryLockJob(jid, "worker-7").orElseThrow();
        try (Playwright pw = playwright(); Browser browser = launch(pw)) {
            Page page = operator(browser);
            page.navigate(base + "/#/jobs/" + jid);
            var hold = page.locator("#job-actions button[data-action='hold']");
            PlaywrightAssertions.assertThat(hold).isDisabled();
            PlaywrightAssertions.assertThat(page.locator("#locked-why")).containsText("locked by worker-7@");
            PlaywrightAssertions.assertThat(hold).hasAttribute("title", Pattern.compile("worker-7@"));
            shot(page, "job-locked");
            store.moves().unlock(lock);
            page.reload();
            PlaywrightAssertions.assertThat(hold).isEnabled();
            // a refusal stays next to the button that caused it
            page.navigate(base + "/#/");
            PlaywrightAssertions.assertThat(page.locator("#collection-name")).isVisible();
            page.fill("#collection-name", "no_such_profile");
            page.click("button[data-action='hold-collection']");
            page.click("#confirm-ok");
            PlaywrightAssertions.assertThat(page.locator("#collection-refusal")).containsText("no_such_profile");
            assertEquals(List.of(), store.holds().heldCollections());
            // readable on a phone
            page.setViewportSize(390, 844);
            shot(page, "overview-phone");
            PlaywrightAssertions.assertThat(page.locator("#search-q")).isVisible();
        } finally {
            if (store.jobs().find(jid).isPresent() && store.jobs().load(jid).lockOwner() != null) {
                store.moves().unlock(lock);
            }
        }
    }

    @Test
    void theLoginPageGivesAnHttpOnlySessionWhoseActionsCarryTheCsrfToken() {
        try (Playwright pw = playwright(); Browser browser = launch(
                pw); BrowserContext context = browser.newContext()) {
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
            var cookie = context.cookies().stream().filter(c -> c.name.equals(Sessions.COOKIE)).findFirst()
                    .orElseThrow();
            assertEquals(true, cookie.httpOnly);
            assertEquals(SameSiteAttribute.STRICT, cookie.sameSite);
            assertEquals(false, String.valueOf(page.evaluate("document.cookie")).contains(Sessions.COOKIE),
                    "scripts cannot read it");
            // the page's own action goes through (after its confirmation): it sends the session's CSRF token
            page.click("#queue-toggle");
            PlaywrightAssertions.assertThat(page.locator("#confirm-text")).containsText("No host starts a new step");
            page.click("#confirm-ok");
            PlaywrightAssertions.assertThat(page.locator("#queue-hold")).hasText("queue held");
            assertEquals(true, store.holds().isQueueHeld());
            page.click("#queue-toggle");
            PlaywrightAssertions.assertThat(page.locator("#queue-hold")).hasText("queue not held");
            assertEquals(false, store.holds().isQueueHeld());
            page.click("#logout");
            page.waitForURL(base + "/login.html");
            page.navigate(base + "/");
            page.waitForURL(base + "/login.html");
        }
    }

    /**
     * A page on another site (localhost is not 127.0.0.1) that posts a form to the queue's hold action as soon as it
     * opens.
     */
    static HttpServer attacker() throws IOException {
        HttpServer evil = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        evil.createContext("/", ex -> {
            byte[] b = ("<!doctype html><html><body><form method=\"POST\" action=\"" + base
                    + "/api/queue/hold\"></form>"
                    + "<script>document.forms[0].submit()</script></body></html>").getBytes(StandardCharsets.UTF_8);
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
                var answer = page.waitForResponse(r -> r.url().equals(base + "/api/queue/hold"), () ->
                        page.navigate(evilUrl));
                assertEquals(401, answer.status(),
                        "SameSite=Strict: the session cookie did not go with the other site's form");
                assertEquals(false, String.valueOf(answer.request().allHeaders().get("cookie"))
                        .contains(Sessions.COOKIE),
                        "the form's request carried no session cookie: " + answer.request().allHeaders());
                assertEquals(false, store.holds().isQueueHeld(), "the other site's form held nothing");
            }
            // a browser that answers the Basic challenge with cached credentials
            try (BrowserContext context = browser.newContext(new Browser.NewContextOptions()
                    .setHttpCredentials("operator", "secret"))) {
                Page page = context.newPage();
                var answer = page.waitForResponse(r -> r.url().equals(base + "/api/queue/hold") && r.status() != 401,
                        () -> page.navigate(evilUrl));
                assertEquals(403, answer.status(), "the credentials went with it, and the Origin refused it");
                assertEquals(true, answer.text().contains("may not change anything"), answer.text());
                assertEquals(false, store.holds().isQueueHeld(), "the other site's form held nothing");
            }
        } finally {
            evil.stop(0);
        }
    }
}
