package org.cdlib.mrt.ingestqueue.steps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Outside calls whose answer comes too late, or to a worker that lost its job, against a real
 * HTTP server on 127.0.0.1 playing Merritt's inventory, EZID and a callback receiver: an inventory
 * add or an EZID update that lands only after its sender gave up waiting is not sent a second time
 * (it is given time to land before the service is asked), a worker that lost its job sends no
 * EZID update and no callback, and a callback's answer is in ZooKeeper the moment it is known.
 */
class LateAnswersTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    private static final ObjectMapper JSON = new ObjectMapper();

    final Path dir = ZK.dir();
    QueueStore store;
    HttpServer server;
    final List<ServiceRoutes> started = new CopyOnWriteArrayList<>();
    /** Calls by "METHOD path" (the path decoded), in order. */
    final Map<String, List<String>> calls = new ConcurrentHashMap<>();
    /** Inventory's highest version of each ARK, what {@code GET /inv/current/<ark>} answers (0: none). */
    final Map<String, Integer> inventory = new ConcurrentHashMap<>();
    /** EZID's metadata of each ARK as the last update set it. */
    final Map<String, String> ezid = new ConcurrentHashMap<>();
    final AtomicInteger mints = new AtomicInteger();
    /** How long an inventory add or EZID update takes before it is made and answered. */
    volatile long landsAfterMs;
    /** Run when EZID is asked about an ARK, before it answers. */
    volatile Runnable onView = () -> { };

    @BeforeEach
    void setUp() throws Exception {
        store = ZK.store(dir.resolve("queue"));
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", ex -> {
            try {
                handle(ex);
            } catch (Exception e) {
                answer(ex, 500, e.toString());
            }
        });
        server.start();
    }

    @AfterEach
    void stop() {
        started.forEach(ServiceRoutes::close);
        server.stop(0);
    }

    private void handle(HttpExchange ex) throws Exception {
        String method = ex.getRequestMethod();
        String path = URLDecoder.decode(ex.getRequestURI().getRawPath(), StandardCharsets.UTF_8);
        String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        calls.computeIfAbsent(method + " " + path.replaceAll("/mc/.*", "/mc"), k -> new CopyOnWriteArrayList<>())
                .add(path);
        if (method.equals("POST") && path.startsWith("/shoulder/")) {
            answer(ex, 201, "success: ark:/99999/fk4late" + mints.incrementAndGet());
        } else if (method.equals("POST") && path.startsWith("/id/")) {
            Thread.sleep(landsAfterMs); // EZID busy: the update is made after its sender stopped waiting
            ezid.put(path.substring(4), body);
            answer(ex, 200, "success: " + path.substring(4));
        } else if (method.equals("GET") && path.startsWith("/id/")) {
            onView.run();
            answer(
                    ex,
                    200,
                    "success: " + path.substring(4) + "\n"
                            + ezid.getOrDefault(path.substring(4), "_target: https://ezid.example/"));
        } else if (method.equals("GET") && path.startsWith("/inv/primary/")) {
            answer(ex, 404, "{}");
        } else if (method.equals("POST") && path.startsWith("/inv/primary/")) {
            answer(ex, 200, "{}");
        } else if (method.equals("POST") && path.equals("/inv/add")) {
            // the storage manifest's URL names the ARK (encoded once or twice, as the storage back-end makes it)
            Matcher m = Pattern.compile("ark:/99999/fk4late\\d+")
                    .matcher(
                            URLDecoder.decode(URLDecoder.decode(body, StandardCharsets.UTF_8), StandardCharsets.UTF_8));
            String ark = m.find() ? m.group() : "?";
            Thread.sleep(landsAfterMs); // inventory busy: the add is made after its sender stopped waiting
            inventory.put(ark, 1);
            answer(ex, 200, "{}");
        } else if (method.equals("GET") && path.startsWith("/inv/current/")) {
            answer(ex, 200, "{\"invv:versionsState\":{\"invv:currentVersion\":"
                    + inventory.getOrDefault(path.substring("/inv/current/".length()), 0) + "}}");
        } else if (method.equals("POST") && path.startsWith("/cb/mc/")) {
            answer(ex, 200, "{}");
        } else {
            answer(ex, 404, "no " + method + " " + path);
        }
    }

    private static void answer(HttpExchange ex, int status, String text) throws IOException {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        try (ex; OutputStream out = ex.getResponseBody()) {
            ex.sendResponseHeaders(status, b.length);
            out.write(b);
        } catch (IOException gone) {
            // the caller stopped waiting: the call was still made
        }
    }

    private String base() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private ServiceRoutes routes(String... more) throws Exception {
        List<String> c = new ArrayList<>(List.of("ingest.storage.local.root", dir.resolve("storage").toString(),
                "ingest.inventory", "http", "ingest.inventory.url", base() + "/inv",
                "ingest.minter", "ezid", "ingest.ezid.user", "u", "ingest.ezid.password", "p",
                "ingest.ezid.target", "https://merritt.example.org/m/",
                "camel.component.http.response-timeout", "1000", "camel.component.http.so-timeout", "1000"));
        c.addAll(List.of(more));
        ServiceRoutes r = new ServiceRoutes(store, StepTestSupport.merrittProfiles(dir.resolve("profiles"), base()),
                ServiceRoutes.config(c.toArray(String[]::new)));
        started.add(r);
        return r;
    }

    private int count(String call) {
        return calls.getOrDefault(call, List.of()).size();
    }

    /** The job's effects as ZooKeeper has them now (not as the worker's lock remembers them). */
    private JsonNode effectsInZooKeeper(HeldJob lock) throws Exception {
        JsonNode n = JSON.readTree(ZK.client().getData().forPath(QueuePaths.jobNode(lock.jid(), "effects")));
        return n.has("effects") ? n.get("effects") : n;
    }

    /**
     * Inventory takes 2.5 s to make an add, the sender waits 1 s: its retry asks inventory too soon,
     * reads "none" and sends a second add — unless the add, begun at a known time, is given until
     * then + {@code ingest.inventory.settle} to land. With the settle: one add, asked about once.
     */
    @Test
    void anInventoryAddStillLandingWhenItsAnswerTimedOutIsGivenTimeAndNotSentAgain() throws Exception {
        ServiceRoutes routes = routes("ingest.inventory.settle", "PT5S");
        HeldJob lock = StepTestSupport.downloadedJob(store);
        routes.processAndStore(lock);
        landsAfterMs = 2_500;
        routes.recording(lock);
        assertEquals(1, count("POST /inv/add"), "one add: " + calls.keySet());
        assertEquals(
                1,
                calls.keySet().stream()
                        .filter(k -> k.startsWith("GET /inv/current/"))
                        .mapToInt(this::count)
                        .sum());
        assertTrue(store.stepWrites().effects(lock).done(JobEffects.INVENTORY));
    }

    /** The same without a settle: the read comes before the add lands, and the add is sent again. */
    @Test
    void withoutTheSettleTheAddStillLandingIsSentTwice() throws Exception {
        ServiceRoutes routes = routes("ingest.inventory.settle", "PT0S");
        HeldJob lock = StepTestSupport.downloadedJob(store);
        routes.processAndStore(lock);
        landsAfterMs = 2_500;
        routes.recording(lock);
        assertTrue(count("POST /inv/add") >= 2, "what the settle prevents: " + calls);
    }

    /**
     * EZID takes 2.5 s to make an update, the sender waits 1 s: the retry of the update asks EZID
     * first, once the update had {@code ingest.ezid.settle} to land, finds it there, and does not
     * send it again (PT0S: asked too soon, sent again).
     */
    @Test
    void anEzidUpdateWhoseAnswerTimedOutIsAskedAboutAndNotSentAgain() throws Exception {
        landsAfterMs = 2_500;
        for (String settle : List.of("PT5S", "PT0S")) {
            ServiceRoutes routes = routes("ingest.ezid.settle", settle);
            HeldJob lock = StepTestSupport.downloadedJob(store);
            routes.processing(lock);
            String ark = store.jobs().load(lock.jid()).identifiers().primary();
            int views = count("GET /id/" + ark);
            if (settle.equals("PT5S")) {
                assertEquals(1, count("POST /id/" + ark), "one update: " + calls);
                assertEquals(1, views, "asked once, after the settle: " + calls);
                assertTrue(store.stepWrites().effects(lock).done(JobEffects.EZID_UPDATE));
            } else {
                assertTrue(count("POST /id/" + ark) >= 2, "what the settle prevents: " + calls);
            }
        }
    }

    /**
     * An attempt after the one that minted asks EZID first; when the job's lock is gone while EZID
     * answers "described", the record of that fails, and the update must not be sent anyway (it
     * was: the failure to record was taken for a failure to ask).
     */
    @Test
    void aWorkerThatLostTheJobWhileAskingEzidSendsNoUpdate() throws Exception {
        ServiceRoutes routes = routes();
        HeldJob first = StepTestSupport.downloadedJob(store);
        routes.processing(first);
        String ark = store.jobs().load(first.jid()).identifiers().primary();
        assertEquals(1, count("POST /id/" + ark));
        // a later attempt of the same job that finds the mint done
        // and the update unrecorded (its answer lost with a host)
        ZK.client()
                .setData()
                .forPath(
                        QueuePaths.jobNode(first.jid(), "effects"),
                        JSON.writeValueAsBytes(Map.of(
                                "effects",
                                Map.of("mint", Map.of("state", "done", "at", "2026-01-01T00:00:00Z", "detail", ark)))));
        ZK.client().delete().forPath(QueuePaths.jobLock(first.jid()));
        HeldJob again = store.claims().tryLockJob(first.jid(), "test").orElseThrow();
        onView = () -> {
            try {
                ZK.client().delete().forPath(QueuePaths.jobLock(again.jid())); // broken while EZID answers
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };
        assertThrows(Exception.class, () -> routes.processing(again));
        assertEquals(1, count("GET /id/" + ark), "asked");
        assertEquals(1, count("POST /id/" + ark), "not sent by a worker that lost the job: " + calls);
    }

    /**
     * The callback's answer is in ZooKeeper as soon as it is known, not only with the job's move
     * (a host killed before its move left it unrecorded, and the next holder called back again);
     * a worker whose job is gone sends no callback.
     */
    @Test
    void aCallbackIsRecordedAtOnceAndNotSentByAWorkerThatLostTheJob() throws Exception {
        ServiceRoutes routes = routes();
        HeldJob lock = StepTestSupport.downloadedJob(store);
        routes.notify(lock);
        assertEquals(1, count("POST /cb/mc"));
        JsonNode cb = effectsInZooKeeper(lock).path(JobEffects.CALLBACK);
        assertEquals(
                "done",
                cb.path("state").asText(),
                "recorded in ZooKeeper before any move: " + effectsInZooKeeper(lock));
        assertEquals(lock.jid() + "-completed-0", cb.path("detail").asText());

        HeldJob lost = StepTestSupport.downloadedJob(store);
        ZK.client().delete().forPath(QueuePaths.jobLock(lost.jid()));
        assertThrows(Exception.class, () -> routes.notify(lost));
        assertEquals(1, count("POST /cb/mc"), "no callback from a worker that lost the job: " + calls);
    }
}
