package org.cdlib.mrt.ingestqueue.api.reads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.api.http.ApiServiceTest;
import org.cdlib.mrt.ingestqueue.cli.Commands;
import org.cdlib.mrt.ingestqueue.history.HandOver;
import org.cdlib.mrt.ingestqueue.history.HistoryStore;
import org.cdlib.mrt.ingestqueue.objects.StatusLinks;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.NewJob;
import org.cdlib.mrt.ingestqueue.queue.model.StatusReport;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Finished work read from history once Merritt's cleanup (or ours) removed it from ZooKeeper (issue 44):
 * every read of the API, the status link and the CLI answers as it did while the batch was live; search
 * finds it by ARK, local id, title words, submitter and date range; a depositor still sees only their own.
 * History is a real H2 database behind H2's TCP server, so the last test can take it away; one test runs
 * the reads on embedded PostgreSQL.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HistoryReadsTest extends ApiServiceTest {
    static final Map<String, String> PASSWORDS = Map.of("alice", "pw-a", "sam", "pw-s", "rita", "pw-r");
    static Server database;

    @BeforeAll
    static void start() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        database = Server.createTcpServer("-tcpPort", String.valueOf(port), "-ifNotExists").start();
        startService(Map.of("ingest.api.users", "alice:pw-a:admin|submitter, sam:pw-s:submitter, rita:pw-r",
                "ingest.history.url", "jdbc:h2:tcp://127.0.0.1:" + port + "/mem:reads;DB_CLOSE_DELAY=-1"));
        store.hosts().drain(store.hosts().id(), "test"); // jobs stay where a test puts them
    }

    @AfterAll
    static void stopDatabase() {
        if (database != null) {
            database.stop();
        }
    }

    static HttpResponse<String> get(String path, String user) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path));
        if (user != null) {
            b.header("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":" + PASSWORDS.get(user))
                    .getBytes(StandardCharsets.UTF_8)));
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> post(String path, String user) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create(base + path)).POST(HttpRequest.BodyPublishers.noBody())
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":"
                        + PASSWORDS.get(user)).getBytes(StandardCharsets.UTF_8))).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode json(String path, String user) throws Exception {
        HttpResponse<String> r = get(path, user);
        assertEquals(200, r.statusCode(), path + ": " + r.body());
        return JSON.readTree(r.body());
    }

    /** Two jobs (ARKs {@code ark}1 and 2, local ids {@code local}-1 and -2) walked to completed; the batch reported. */
    static String finishedBatch(String submitter, String title, String ark, String local) {
        BatchSubmission s = QueueTestSupport.submission("demo_content");
        String bid = store.batches().create(new BatchSubmission(s.profileName(), submitter, s.payloadUrl(), title,
                s.ercWho(), s.ercWhen(), null, s.type(), s.submissionMode(), null, null, null, null, null, null, "json",
                null, s.submitted(), Map.of()));
        HeldBatch lock = store.batches().tryLock(bid, "test").orElseThrow();
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 1; i <= 2; i++) {
            JobConfiguration c = new JobConfiguration(null, "demo_content", submitter, "http://localhost/o.checkm",
                    "object_manifest", "json", "add", null, local + "-" + i, null, null, null, null, "who",
                    title + " part " + i, "when", null, Map.of());
            jobs.add(new NewJob(c, new Identifiers(ark + i, List.of(local + "-" + i)), 5));
        }
        store.batches().createJobs(lock, jobs);
        store.moves().transition(lock, BatchState.PROCESSING, "jobs created", null, null);
        for (String jid : store.batches().jobs(bid, BatchRef.PROCESSING)) {
            QueueTestSupport.workTo(store, jid, JobState.COMPLETED);
        }
        HeldBatch report = store.batches().tryLock(bid, "reporter").orElseThrow();
        store.moves().transition(report, BatchState.COMPLETED, "reported", new StatusReport(Instant.now().toString(),
                List.of(), store.batches().jobs(bid, BatchRef.COMPLETED), 1), null);
        return bid;
    }

    /** The hand-over the service binds, then the cleanup: ZooKeeper no longer holds the batch. */
    static void handOverAndClean(HandOver handOver, String bid) {
        Batch b = store.batches().load(bid);
        assertTrue(handOver.keep(b));
        new AdminActions(store, Clock.systemUTC()).cleanup(Duration.ZERO);
        assertFalse(store.batches().exists(bid), "cleaned up");
    }

    static HandOver serviceHandOver() {
        return service.camel().getRegistry().lookupByNameAndType("handOver", HandOver.class);
    }

    /** A view without what moves with the clock (this minute's rates). */
    static JsonNode steady(JsonNode view) {
        ObjectNode v = view.deepCopy();
        v.remove("rate_per_minute");
        v.remove("completed_per_minute");
        if (v.has("progress")) {
            ((ObjectNode) v.get("progress")).remove("completed_per_minute");
        }
        return v;
    }

    static String search(String query) throws Exception {
        return json("/api/search?" + query, "rita").get("results").toString();
    }

    @Test
    @Order(1)
    void everyReadAnswersFromHistoryAsItDidLiveAndADepositorStillSeesOnlyTheirOwn() throws Exception {
        String mine = finishedBatch("sam", "Letters of Sam Reads", "ark:/99999/fk4sam", "sam-letter");
        String others = finishedBatch("tester", "Maps of Others", "ark:/99999/fk4other", "other-map");
        List<String> jids = store.batches().jobs(mine, BatchRef.COMPLETED).stream().sorted().toList();
        String otherJob = store.batches().jobs(others, BatchRef.COMPLETED).get(0);
        StatusLinks links = service.camel().getRegistry().lookupByNameAndType("statusLinks", StatusLinks.class);
        String token = URLEncoder.encode(links.token(mine), StandardCharsets.UTF_8);
        JsonNode batch = json("/api/batches/" + mine, "rita");
        JsonNode job = json("/api/jobs/" + jids.get(0), "rita");
        JsonNode page1 = json("/api/jobs?batch=" + mine + "&limit=1", "rita");
        JsonNode page2 = json("/api/jobs?batch=" + mine + "&limit=1&offset=1", "rita");
        JsonNode completed = json("/api/jobs?batch=" + mine + "&state=completed", "rita");
        JsonNode status = json("/api/status/" + mine + "?token=" + token, null);
        JsonNode own = json("/api/batches/" + mine, "sam");
        // handed over at its report: while ZooKeeper and history both hold it, a search finds it once
        assertTrue(serviceHandOver().keep(store.batches().load(mine)));
        assertEquals(1, json("/api/search?q=letters%20of%20sam%20reads", "rita").get("results").findValues("id")
                .stream().filter(id -> id.asText().equals(mine)).count());

        assertTrue(serviceHandOver().keep(store.batches().load(others)));
        handOverAndClean(serviceHandOver(), mine); // the cleanup takes both

        assertEquals(steady(batch), steady(json("/api/batches/" + mine, "rita")));
        assertEquals(job, json("/api/jobs/" + jids.get(0), "rita"));
        assertEquals("completed", job.get("status").get("status").asText());
        assertFalse(job.get("status").get("history").isEmpty(), "the timeline: " + job);
        assertEquals(page1, json("/api/jobs?batch=" + mine + "&limit=1", "rita"));
        assertEquals(1, page1.get("next_offset").asInt(), page1.toString());
        assertEquals(page2, json("/api/jobs?batch=" + mine + "&limit=1&offset=1", "rita"));
        assertEquals(completed, json("/api/jobs?batch=" + mine + "&state=completed", "rita"));
        assertEquals(0, json("/api/jobs?batch=" + mine + "&state=failed", "rita").get("jobs").size());
        assertEquals(steady(status), steady(json("/api/status/" + mine + "?token=" + token, null)),
                "the depositor's link holds as long as history keeps the batch");
        assertEquals(404, get("/api/status/" + mine + "?token=wrong", null).statusCode());

        // a depositor: their own finished batch as before; another's answers as a missing one, word for word
        assertEquals(steady(own), steady(json("/api/batches/" + mine, "sam")));
        assertEquals(200, get("/api/jobs?batch=" + mine, "sam").statusCode());
        HttpResponse<String> missing = get("/api/batches/bid9999999990", "sam");
        HttpResponse<String> hidden = get("/api/batches/" + others, "sam");
        assertEquals(404, hidden.statusCode());
        assertEquals(missing.body().replace("bid9999999990", others), hidden.body());
        assertEquals(404, get("/api/jobs/" + otherJob, "sam").statusCode());
        assertEquals(404, get("/api/jobs?batch=" + others, "sam").statusCode());
        assertEquals(200, get("/api/batches/" + others, "rita").statusCode(), "an operator sees every batch");

        // an operator's action on what left the queue: a 409 that says so, not a 404
        HttpResponse<String> again = post("/api/batches/" + mine + "/update-reporting", "alice");
        assertEquals(409, again.statusCode(), again.body());
        assertTrue(again.body().contains("left the queue for history"), again.body());
        assertEquals(409, post("/api/jobs/" + jids.get(0) + "/requeue", "alice").statusCode());
        assertEquals(404, post("/api/batches/bid9999999990/update-reporting", "alice").statusCode());

        // search: ARK, local id, title words, ids, submitter, date range; each from history's indexes
        assertTrue(search("q=ark:/99999/fk4sam1").contains(jids.get(0)) || search("q=ark:/99999/fk4sam1")
                .contains(jids.get(1)));
        assertTrue(search("q=sam-letter-2").contains("\"matched\":\"local id\""));
        String byTitle = search("q=" + URLEncoder.encode("letters of sam reads", StandardCharsets.UTF_8));
        assertTrue(byTitle.contains("\"id\":\"" + mine + "\""), byTitle);
        assertFalse(byTitle.contains(others), byTitle);
        assertTrue(search("q=" + mine).contains("\"state\":\"completed\""));
        assertTrue(search("q=" + jids.get(1)).contains(jids.get(1)));
        String today = LocalDate.now(ZoneOffset.UTC).toString();
        String bySam = search("submitter=sam&from=" + today + "&to=" + today);
        assertTrue(bySam.contains(mine) && !bySam.contains(others), bySam);
        assertFalse(search("submitter=sam&to=2000-01-01").contains(mine));
        assertFalse(search("submitter=sam&from=" + LocalDate.now(ZoneOffset.UTC).plusDays(1)).contains(mine));
        HttpResponse<String> bad = get("/api/search?submitter=sam&from=last-week", "rita");
        assertEquals(400, bad.statusCode());
        assertTrue(bad.body().contains("from must be"), bad.body());
        assertEquals(400, get("/api/search?q=", "rita").statusCode());
        assertEquals(403, get("/api/search?submitter=sam", "sam").statusCode());

        // the CLI reads the same API
        assertTrue(cli("job", jids.get(0)).contains("ark:/99999/fk4sam"));
        assertTrue(cli("batch", mine).contains("completed"));
        assertTrue(cli("search", "--submitter", "sam", "--from", today).contains(mine));
        assertTrue(cli("jobs", "--batch", mine).contains(jids.get(1)));
    }

    static String cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--url", base, "--user", "rita:pw-r"));
        int code = Commands.run(all.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
                System.err, Map.of());
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, text);
        return text;
    }

    @Test
    @Order(2)
    void onPostgresqlTheFinishedBatchIsReadAndSearchedAlike() throws Exception {
        try (EmbeddedPostgres pg = EmbeddedPostgres.builder().start();
             HistoryStore history = new HistoryStore(pg.getJdbcUrl("postgres", "postgres"), null, null)) {
            String bid = finishedBatch("pat", "Photographs on Postgres", "ark:/99999/fk4pg", "pg-photo");
            Batch live = store.batches().load(bid);
            handOverAndClean(new HandOver(store, history), bid);
            QueueOrHistory reads = new QueueOrHistory(store, history);
            QueueOrHistory.Found<Batch> found = reads.batch(bid);
            assertTrue(found.finished());
            assertEquals(live.status(), found.item().status());
            assertEquals(live.counts(), found.item().counts());
            List<String> jids = live.jobIds();
            assertEquals(List.of(jids.get(1)), history.jobs(bid, "completed", 1, 10).stream().map(j -> j.id())
                    .toList());
            Search search = new Search(store, history);
            assertTrue(search.find(Search.Terms.of("ark:/99999/fk4pg2", null, null, null), null, 0, null).toString()
                    .contains(jids.get(1)));
            assertTrue(search.find(Search.Terms.of("photographs postgres", null, null, null), null, 0, null)
                    .toString().contains(bid));
            String today = LocalDate.now(ZoneOffset.UTC).toString();
            assertTrue(search.find(Search.Terms.of(null, "pat", today, today), null, 0, null).toString()
                    .contains(bid));
        }
    }

    @Test
    @Order(3)
    void historyDownIsNamedInHealthAndOnTheDashboardWhileTheQueueStaysUp() throws Exception {
        assertEquals("UP", json("/api/health", null).get("history").get("status").asText());
        database.stop();
        // an id ZooKeeper does not hold may be finished work: not a 404 while history cannot be asked
        HttpResponse<String> unknown = get("/api/batches/bid9999999991", "rita");
        assertEquals(503, unknown.statusCode(), unknown.body());
        assertTrue(unknown.body().contains("history database"), unknown.body());
        HttpResponse<String> health = get("/api/health", null);
        assertEquals(200, health.statusCode(), health.body());
        JsonNode h = JSON.readTree(health.body());
        assertEquals("UP", h.get("status").asText(), "ZooKeeper's work goes on");
        assertEquals("DOWN", h.get("history").get("status").asText(), health.body());
        JsonNode queue = json("/api/queue", "rita").get("history");
        assertEquals("DOWN", queue.get("status").asText());
        assertTrue(queue.hasNonNull("since"), queue.toString());
        // open work is still searched; the answer says finished work was not
        JsonNode found = json("/api/search?q=anything", "rita");
        assertTrue(found.get("incomplete").asText().contains("history"), found.toString());
    }
}
