package org.cdlib.mrt.ingestqueue.api.dashboard;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.retry.RetryOneTime;
import org.awaitility.Awaitility;
import org.cdlib.mrt.ingestqueue.api.auth.Sessions;
import org.cdlib.mrt.ingestqueue.api.http.ApiServiceTest;
import org.cdlib.mrt.ingestqueue.api.reads.Search;
import org.cdlib.mrt.ingestqueue.objects.StatusLinks;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.JobHistory;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.NewJob;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's API over real HTTP: job histories bounded in their status node, live changes
 * as small server-sent events, a depositor's own batches with positions, the signed status link,
 * a host's drain as the consumers see it, bulk requeue, search. This host is drained while the
 * tests run (so jobs stay where a test puts them), except where a test lets it work.
 */
class DashboardApiTest extends ApiServiceTest {
    static final Map<String, String> PASSWORDS = Map.of("alice", "pw-a", "sam", "pw-s", "rita", "pw-r");

    @BeforeAll
    static void start() throws Exception {
        startService(Map.of("ingest.api.users", "alice:pw-a:admin|submitter, sam:pw-s:submitter, rita:pw-r"));
        store.hosts().drain(store.hosts().id(), "test");
    }

    static HttpResponse<String> send(String method, String path, String user) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).method(method,
                HttpRequest.BodyPublishers.noBody());
        if (user != null) {
            b.header("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":" + PASSWORDS.get(user))
                    .getBytes(StandardCharsets.UTF_8)));
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode json(HttpResponse<String> r) throws Exception {
        return JSON.readTree(r.body());
    }

    /** A batch of {@code n} pending jobs submitted by {@code submitter}. */
    static String batchOf(String submitter, int n) {
        BatchSubmission s = QueueTestSupport.submission("demo_content");
        String bid = store.batches().create(new BatchSubmission(s.profileName(), submitter, s.payloadUrl(), "Batch of "
                + submitter,
                s.ercWho(), s.ercWhen(), null, s.type(), s.submissionMode(), null, null, null, null, null, null, "json",
                null,
                s.submitted(), Map.of()));
        HeldBatch lock = store.batches().tryLock(bid, "test").orElseThrow();
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            jobs.add(QueueTestSupport.newJob(bid + "-local" + i, 5));
        }
        store.batches().createJobs(lock, jobs);
        store.moves().transition(lock, BatchState.PROCESSING, "jobs created", null, null);
        return bid;
    }

    @Test
    void aJobsHistoryIsKeptInItsStatusNodeWithinItsEntryAndByteBounds() throws Exception {
        AdminActions admin = new AdminActions(store, Clock.systemUTC());
        String bid = batchOf("tester", 2);
        List<String> jids = store.batches().jobs(bid, BatchRef.PROCESSING);
        String shortNames = jids.get(0);
        String longNames = jids.get(1);
        String operator = "an-operator-with-a-name-" + "x".repeat(300);
        for (int i = 0; i < 15; i++) {
            admin.holdJob(shortNames, "ops");
            admin.releaseJob(shortNames, "ops");
            admin.holdJob(longNames, operator);
            admin.releaseJob(longNames, operator);
        }
        List<JobHistory.Entry> h = store.jobs().load(shortNames).status().history();
        assertEquals(JobHistory.MAX_ENTRIES, h.size(), "the last 20 of 31 transitions");
        assertEquals("held", h.get(h.size() - 1).from());
        assertEquals("pending", h.get(h.size() - 1).to());
        assertEquals("released by ops", h.get(h.size() - 1).reason());
        List<JobHistory.Entry> long_ = store.jobs().load(longNames).status().history();
        assertTrue(QueueJson.write(long_).length <= JobHistory.MAX_BYTES, "bounded by bytes: "
                + QueueJson.write(long_).length);
        assertTrue(long_.size() < JobHistory.MAX_ENTRIES && long_.size() >= 5, "long entries: fewer kept, "
                + long_.size());
        byte[] node = store.client().getData().forPath(QueuePaths.jobStatus(longNames));
        assertTrue(node.length <= QueueLimits.nodeBytes(QueuePaths.jobStatus(longNames)),
                "the status node within its limit: " + node.length);
        JsonNode api = json(send("GET", "/api/jobs/" + shortNames, "rita")).get("status").get("history");
        assertEquals(JobHistory.MAX_ENTRIES, api.size());
        assertEquals("pending", api.get(api.size() - 1).get("to").asText());
        assertTrue(api.get(0).get("at").asText().matches("\\d{4}-.*Z"), api.toString());
    }

    @Test
    void liveEventsCarryTheChangedIdsAndTheCountsNotListings() throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create(base + "/api/events")).header("Authorization", "Basic "
                + Base64.getEncoder().encodeToString("rita:pw-r".getBytes(StandardCharsets.UTF_8))).build();
        HttpResponse<Stream<String>> stream = CLIENT.send(r, HttpResponse.BodyHandlers.ofLines());
        assertEquals(200, stream.statusCode());
        assertTrue(stream.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream"));
        LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try {
                stream.body().forEach(lines::add);
            } catch (RuntimeException closed) {
                // the test ended the stream
            }
        });
        reader.setDaemon(true);
        reader.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> lines.contains("event: hello"));
            // another host's change: its own session, nothing of it in this process's listeners
            String bid;
            try (var other = CuratorFrameworkFactory.newClient(ZK.connectString(),
                    new RetryOneTime(100))) {
                other.start();
                QueueStore elsewhere = new QueueStore(other, dir.resolve("other-host")).start();
                bid = elsewhere.batches().create(QueueTestSupport.submission("demo_content"));
                elsewhere.close();
            }
            List<String> seen = new ArrayList<>();
            String created = bid;
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                lines.drainTo(seen);
                return seen.stream().anyMatch(l -> l.startsWith("data:") && l.contains(created));
            });
            String data = seen.stream().filter(l -> l.startsWith("data:") && l.contains(created)).findFirst()
                    .orElseThrow();
            JsonNode change = JSON.readTree(data.substring("data:".length()));
            assertTrue(change.get("batches_changed").toString().contains(bid), data);
            assertTrue(change.get("counts").get("jobs").has("pending"), data);
            assertTrue(data.length() < 8192, "a delta, not a listing: " + data.length() + " bytes");
        } finally {
            stream.body().close();
        }
    }

    /** A depositor's live stream names only their own batches and jobs; an operator's names every one. */
    @Test
    void aDepositorsLiveStreamCarriesOnlyTheirOwnIds() throws Exception {
        LinkedBlockingQueue<String> samLines = new LinkedBlockingQueue<>();
        LinkedBlockingQueue<String> ritaLines = new LinkedBlockingQueue<>();
        List<HttpResponse<Stream<String>>> streams = new ArrayList<>();
        for (var who : List.of(Map.entry("sam", samLines), Map.entry("rita", ritaLines))) {
            HttpResponse<Stream<String>> s = CLIENT.send(HttpRequest.newBuilder(URI.create(base
                    + "/api/events")).header("Authorization",
                    "Basic " + Base64.getEncoder().encodeToString((who.getKey() + ":" + PASSWORDS.get(who.getKey()))
                            .getBytes(StandardCharsets.UTF_8))).build(), HttpResponse.BodyHandlers.ofLines());
            assertEquals(200, s.statusCode());
            streams.add(s);
            Thread reader = new Thread(() -> {
                try {
                    s.body().forEach(who.getValue()::add);
                } catch (RuntimeException closed) {
                    // the test ended the stream
                }
            });
            reader.setDaemon(true);
            reader.start();
        }
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> samLines.contains("event: hello")
                    && ritaLines.contains("event: hello"));
            String others = batchOf("tester", 2);
            String own = batchOf("sam", 2);
            AdminActions admin = new AdminActions(store, Clock.systemUTC());
            String othersJob = store.batches().jobs(others, BatchRef.PROCESSING).get(0);
            String ownJob = store.batches().jobs(own, BatchRef.PROCESSING).get(0);
            admin.holdJob(othersJob, "alice");
            admin.holdJob(ownJob, "alice");
            List<String> rita = new ArrayList<>();
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                ritaLines.drainTo(rita);
                String all = String.join("\n", rita);
                return all.contains(othersJob) && all.contains(ownJob) && all.contains(others) && all.contains(own);
            });
            List<String> sam = new ArrayList<>();
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                samLines.drainTo(sam);
                String all = String.join("\n", sam);
                return all.contains(ownJob) && all.contains(own);
            });
            String samAll = String.join("\n", sam);
            assertFalse(samAll.contains(others) || samAll.contains(othersJob), "another depositor's ids: " + samAll);
            assertTrue(samAll.contains("\"counts\""), "the queue's counts, which name no one");
        } finally {
            streams.forEach(s -> s.body().close());
        }
    }

    static HttpResponse<Stream<String>> stream() throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create(base + "/api/events")).header("Authorization", "Basic "
                + Base64.getEncoder().encodeToString("rita:pw-r".getBytes(StandardCharsets.UTF_8))).build(),
                HttpResponse.BodyHandlers.ofLines());
    }

    @Test
    void liveStreamsAreCappedAndAClosedOneFreesItsPlace() throws Exception {
        List<HttpResponse<Stream<String>>> open = new ArrayList<>();
        int refused = 0;
        try {
            for (int i = 0; i <= LiveFeed.MAX_CLIENTS; i++) {
                HttpResponse<Stream<String>> r = stream();
                if (r.statusCode() == 200) {
                    open.add(r);
                } else {
                    assertEquals(503, r.statusCode());
                    refused++;
                    r.body().close();
                }
            }
            assertTrue(refused >= 1 && open.size() <= LiveFeed.MAX_CLIENTS, open.size() + " open, " + refused
                    + " refused");
        } finally {
            open.forEach(r -> r.body().close());
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            HttpResponse<Stream<String>> r = stream();
            r.body().close();
            return r.statusCode() == 200;
        });
    }

    @Test
    void aLiveStreamOnASessionEndsWithTheSession() throws Exception {
        HttpResponse<String> login = CLIENT.send(HttpRequest.newBuilder(URI.create(base + "/api/login"))
                .header("X-Requested-By", "test").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"username\":\"rita\",\"password\":\"pw-r\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, login.statusCode(), login.body());
        String cookie = login.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
        HttpResponse<String> read = CLIENT.send(HttpRequest.newBuilder(URI.create(base
                + "/api/session")).header("Cookie", cookie).build(),
                HttpResponse.BodyHandlers.ofString());
        String csrf = read.headers().allValues("Set-Cookie").stream().filter(c -> c.startsWith(Sessions.CSRF_COOKIE
                + "="))
                .findFirst().orElseThrow().split(";")[0].substring(Sessions.CSRF_COOKIE.length() + 1);
        HttpResponse<Stream<String>> stream = CLIENT.send(HttpRequest.newBuilder(URI.create(base + "/api/events"))
                .header("Cookie", cookie).build(), HttpResponse.BodyHandlers.ofLines());
        assertEquals(200, stream.statusCode());
        LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try {
                stream.body().forEach(lines::add);
                lines.add("<end>");
            } catch (RuntimeException closed) {
                lines.add("<end>");
            }
        });
        reader.setDaemon(true);
        reader.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> lines.contains("event: hello"));
        assertEquals(200, CLIENT.send(HttpRequest.newBuilder(URI.create(base + "/api/logout"))
                .header("Cookie", cookie + "; " + Sessions.CSRF_COOKIE + "=" + csrf).header(Sessions.CSRF_HEADER,
                csrf).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode());
        batchOf("tester", 1); // the next change finds the session gone
        await().atMost(Duration.ofSeconds(10)).until(() -> lines.contains("<end>"));
        assertTrue(lines.contains("event: logged-out"), lines.toString());
    }

    @Test
    void aDepositorReadsTheirOwnBatchesWithPositionsAndNobodyElses() throws Exception {
        String own = batchOf("sam", 3);
        String other = batchOf("tester", 1);
        JsonNode b = json(send("GET", "/api/batches/" + own, "sam"));
        JsonNode p = b.get("progress");
        assertEquals(3, p.get("jobs").get("waiting").asInt(), b.toString());
        List<Integer> positions = new ArrayList<>();
        p.get("open_jobs").forEach(j -> positions.add(j.get("position").asInt()));
        assertEquals(3, positions.stream().filter(x -> x > 0).distinct().count(), "three places in line: " + positions);
        assertTrue(p.get("last_position").asInt() >= 3, p.toString());
        assertEquals(404, send("GET", "/api/batches/" + other, "sam").statusCode(), "another submitter's batch");
        String othersJob = store.batches().jobs(other, BatchRef.PROCESSING).get(0);
        String ownJob = store.batches().jobs(own, BatchRef.PROCESSING).get(0);
        assertEquals(404, send("GET", "/api/jobs/" + othersJob, "sam").statusCode(), "another submitter's job");
        assertEquals(200, send("GET", "/api/jobs/" + ownJob, "sam").statusCode());
        assertEquals(404, send("GET", "/api/jobs?batch=" + other, "sam").statusCode());
        assertEquals(3, json(send("GET", "/api/jobs?batch=" + own, "sam")).get("jobs").size());
        assertEquals(400, send("GET", "/api/jobs?state=pending", "sam").statusCode(), "no listing across batches");
        assertEquals(403, send("GET", "/api/search?q=Batch", "sam").statusCode(), "search names everyone's batches");
        assertEquals(403, send("GET", "/api/hosts", "sam").statusCode(), "the hosts' work names everyone's jobs");
        assertEquals(200, send("GET", "/api/hosts", "rita").statusCode());
        assertEquals(200, send("GET", "/api/batches/" + other, "rita").statusCode(), "a reader sees every batch");
        assertEquals(200, send("GET", "/api/batches/" + other, "alice").statusCode(), "an operator sees every batch");
    }

    @Test
    void theStatusLinkOpensItsOneBatchWithoutALoginAndNothingElse() throws Exception {
        String bid = batchOf("sam", 1);
        String other = batchOf("sam", 1);
        StatusLinks links = service.camel().getRegistry().lookupByNameAndType("statusLinks", StatusLinks.class);
        String token = links.token(bid);
        assertTrue(links.link(bid).endsWith("/status.html#" + bid + "." + token), links.link(bid));
        HttpResponse<String> ok = CLIENT.send(HttpRequest.newBuilder(URI.create(base + "/api/status/" + bid))
                .header(DashboardRoutes.STATUS_TOKEN, token).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, ok.statusCode(), ok.body());
        assertEquals(bid, json(ok).get("batch_id").asText());
        assertFalse(ok.body().contains("payload_url"),
                "the depositor's page shows progress, not the queue's internals");
        assertEquals(404, send("GET", "/api/status/" + other + "?token=" + token, null).statusCode(),
                "a token opens its own batch only");
        assertEquals(404, send("GET", "/api/status/" + bid, null).statusCode(), "no token");
        assertEquals(404, send("GET", "/api/status/" + bid + "?token=" + token.substring(1), null).statusCode(),
                "a changed token");
    }

    @Test
    void aDrainedHostIsHeldForItsConsumersAndUndrainingWakesThem() throws Exception {
        String id = store.hosts().id();
        assertEquals(403, send("POST", "/api/hosts/" + id + "/undrain", "sam").statusCode());
        assertEquals(400, send("POST", "/api/hosts/bad%20id/drain", "alice").statusCode());
        CountDownLatch woken = new CountDownLatch(1);
        CuratorWatcher watcher = e -> woken.countDown();
        assertTrue(store.watchQueueHold(watcher), "drained (as the whole class runs)");
        JsonNode hosts = json(send("GET", "/api/hosts", "rita")).get("hosts");
        JsonNode me = null;
        for (JsonNode h : hosts) {
            me = h.get("id").asText().equals(id) ? h : me;
        }
        assertTrue(me != null && me.get("alive").asBoolean() && me.get("drained").asBoolean(), hosts.toString());
        String bid = batchOf("tester", 1);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        try {
            assertEquals(200, send("POST", "/api/hosts/" + id + "/undrain", "alice").statusCode());
            assertTrue(woken.await(10, TimeUnit.SECONDS), "the consumers' watch fired when the drain was lifted");
            assertFalse(store.watchQueueHold(e -> { }), "neither held nor drained");
            await().atMost(Duration.ofSeconds(20)).until(() -> store.jobs().load(jid).state() == JobState.COMPLETED);
        } finally {
            assertEquals(200, send("POST", "/api/hosts/" + id + "/drain", "alice").statusCode());
        }
        assertTrue(store.hosts().isDrained());
    }

    @Test
    void theHostsPageSaysWhatEachHostWorksOn() throws Exception {
        String bid = batchOf("tester", 1);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        store.workStarted(jid); // as a consumer does when its worker takes the job
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> send("GET", "/api/hosts", "rita").body().contains(jid));
            for (JsonNode h : json(send("GET", "/api/hosts", "rita")).get("hosts")) {
                if (h.get("id").asText().equals(store.hosts().id())) {
                    JsonNode w = h.get("work").get(0);
                    assertEquals(jid, w.get("job_id").asText());
                    assertEquals("pending", w.get("state").asText());
                    assertEquals(bid, w.get("batch_id").asText());
                    assertTrue(w.get("since").asText().endsWith("Z"), w.toString());
                }
            }
        } finally {
            store.workEnded(jid);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> !send("GET", "/api/hosts", "rita").body().contains(jid));
    }

    @Test
    void aBulkRequeueMovesEachFailedJobByItselfAndNamesWhatItCouldNot() throws Exception {
        AdminActions admin = new AdminActions(store, Clock.systemUTC());
        String bid = batchOf("tester", 2);
        List<String> jids = store.batches().jobs(bid, BatchRef.PROCESSING);
        for (String jid : jids) {
            var lock = store.claims().tryLockJob(jid, "test").orElseThrow();
            store.moves().transition(lock, JobState.FAILED, Change.failure("download failed: 404"));
        }
        // one of them is locked by a worker: refused, the other requeued
        var busy = store.claims().tryLockJob(jids.get(0), "worker").orElseThrow();
        try {
            JsonNode a = json(send("POST", "/api/batches/" + bid + "/requeue-failed", "alice"));
            assertEquals(List.of(jids.get(1)), JSON.convertValue(a.get("requeued"), List.class), a.toString());
            assertEquals(jids.get(0), a.get("refused").get(0).get("job_id").asText(), a.toString());
            assertEquals(JobState.PENDING, store.jobs().load(jids.get(1)).state());
            assertEquals(JobState.FAILED, store.jobs().load(jids.get(0)).state());
        } finally {
            store.moves().unlock(busy);
        }
        assertEquals(403, send("POST", "/api/batches/" + bid + "/requeue-failed", "rita").statusCode());
        admin.requeueJob(jids.get(0), "ops");
        assertEquals(JobState.PENDING, store.jobs().load(jids.get(0)).state());
    }

    @Test
    void aBatchShowsItsOwnRateWhileOpenAndNotTheLastMinutesOnceFinished() throws Exception {
        String bid = batchOf("tester", 2);
        List<String> jids = store.batches().jobs(bid, BatchRef.PROCESSING);
        assertTrue(json(send("GET", "/api/batches/" + bid, "rita")).get("rate_per_minute").isNull(), "none completed");
        QueueTestSupport.workTo(store, jids.get(0), JobState.COMPLETED);
        JsonNode open = json(send("GET", "/api/batches/" + bid, "rita"));
        assertEquals(1.0, open.get("rate_per_minute").asDouble(), "1 completed in its first minute: " + open);
        JsonNode row = null;
        for (JsonNode b : json(send("GET", "/api/batches?limit=25", "rita")).get("batches")) {
            row = bid.equals(b.path("batch_id").asText()) ? b : row;
        }
        assertEquals(1.0, row.get("rate_per_minute").asDouble(), "the list says the same: " + row);
        QueueTestSupport.workTo(store, jids.get(1), JobState.COMPLETED);
        HeldBatch lock = store.batches().tryLock(bid, "reporter").orElseThrow();
        store.moves().transition(lock, BatchState.COMPLETED, "reported", null, null);
        // finished: its mean rate; the last minutes' rate is no longer shown as "now"
        JsonNode finished = json(send("GET", "/api/batches/" + bid, "rita"));
        assertFalse(finished.has("rate_per_minute"), finished.toString());
        assertTrue(finished.get("mean_per_minute").asDouble() > 0, finished.toString());
        for (JsonNode b : json(send("GET", "/api/batches?limit=25", "rita")).get("batches")) {
            row = bid.equals(b.path("batch_id").asText()) ? b : row;
        }
        assertTrue(row.get("mean_per_minute").asDouble() > 0, "the list says the same: " + row);
    }

    @Test
    void theChartsDataHasAMinuteARowAndABacklogSample() throws Exception {
        JsonNode a = json(send("GET", "/api/activity?minutes=60", "rita"));
        assertEquals(60, a.get("per_minute").size());
        assertTrue(a.get("per_minute").get(59).has("completed") && a.get("per_minute").get(59).has("failed"),
                a.toString());
        assertEquals(400, send("GET", "/api/activity?minutes=lots", "rita").statusCode());
        // the first sample is taken a few seconds after the start
        await().atMost(Duration.ofSeconds(15)).until(() -> json(send("GET", "/api/activity",
                "rita")).get("samples").size() > 0);
        JsonNode sample = json(send("GET", "/api/activity", "rita")).get("samples").get(0);
        assertTrue(sample.get("jobs").has("pending") && sample.get("jobs").has("storing") && sample.has("wait_seconds"),
                sample.toString());
        // the open jobs as the tiles count them, and the step times of active jobs (the glossary's words)
        assertTrue(sample.path("work").has("active") && sample.path("work").has("waiting")
                && sample.path("work").has("held") && sample.has("step_seconds"), sample.toString());
    }

    @Test
    void theBatchListFiltersBySubmitterProfileAndDateAndPagesOnWithTheFilters() throws Exception {
        String mine = batchOf("sam", 1);
        batchOf("tester", 1);
        String older = batchOf("sam", 1);
        JsonNode sams = json(send("GET", "/api/batches?submitter=sam&limit=1", "rita"));
        assertEquals(older, sams.get("batches").get(0).get("batch_id").asText());
        assertTrue(sams.get("next").asText().contains("submitter=sam"), sams.toString());
        JsonNode page2 = json(send("GET", sams.get("next").asText(), "rita"));
        for (JsonNode b : page2.get("batches")) {
            assertEquals("sam", b.get("submission").get("submitter").asText(), page2.toString());
        }
        assertTrue(page2.toString().contains(mine), page2.toString());
        String today = LocalDate.now(ZoneOffset.UTC).toString();
        assertTrue(json(send("GET", "/api/batches?from=" + today + "&to=" + today + "&profile=demo_content", "rita"))
                .get("batches").size() >= 3);
        assertEquals(0, json(send("GET", "/api/batches?from=2999-01-01", "rita")).get("batches").size());
        assertEquals(0, json(send("GET", "/api/batches?profile=other", "rita")).get("batches").size());
        assertEquals(400, send("GET", "/api/batches?from=yesterday", "rita").statusCode());
        // a depositor lists their own batches only
        JsonNode own = json(send("GET", "/api/batches?limit=100", "sam"));
        assertTrue(own.get("batches").size() >= 2, own.toString());
        for (JsonNode b : own.get("batches")) {
            assertEquals("sam", b.get("submission").get("submitter").asText(), own.toString());
        }
    }

    @Test
    void searchFindsByLocalIdAndTitleWithinItsBoundsAndIdsDirectly() throws Exception {
        String bid = batchOf("sam", 2);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(1);
        JsonNode byLocal = json(send("GET", "/api/search?q=" + bid + "-local1", "rita"));
        assertEquals(jid, byLocal.get("results").get(0).get("id").asText(), byLocal.toString());
        assertEquals("local id", byLocal.get("results").get(0).get("matched").asText());
        assertTrue(byLocal.get("scanned").get("jobs").asInt() <= Search.SCAN_JOBS, byLocal.toString());
        JsonNode byTitle = json(send("GET", "/api/search?q=batch%20of%20sam", "rita"));
        assertTrue(byTitle.get("results").toString().contains(bid), byTitle.toString());
        // the jobs' own title (a manifest row's)
        JsonNode byJobTitle = json(send("GET", "/api/search?q=" + "what", "rita"));
        assertTrue(byJobTitle.get("results").toString().contains("\"matched\":\"title\""), byJobTitle.toString());

        // past the jobs one scan reads (issue 45): the search index of open work has the batch within seconds, and
        // then one request finds its last job, without "next"
        String big = batchOf("tester", Search.SCAN_JOBS + 20);
        String last = QueuePaths.jobId(QueuePaths.jobNumber(store.batches().jobs(big, BatchRef.PROCESSING).get(0))
                + Search.SCAN_JOBS + 19);
        String q = "/api/search?q=" + big + "-local" + (Search.SCAN_JOBS + 19);
        Awaitility.await("one request finds the last job").atMost(Duration.ofSeconds(60)).until(() -> {
            JsonNode one = json(send("GET", q, "rita"));
            return one.get("results").size() == 1 && last.equals(one.get("results").get(0).get("id").asText())
                    && !one.has("next") && !one.has("incomplete");
        });

        JsonNode byId = json(send("GET", "/api/search?q=" + jid, "rita"));
        assertEquals(1, byId.get("results").size());
        assertEquals(400, send("GET", "/api/search?q=", "rita").statusCode());
    }
}
