package org.cdlib.mrt.ingestqueue.api.reads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.cdlib.mrt.ingestqueue.api.http.ApiServiceTest;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.space.IdBlocks;
import org.cdlib.mrt.ingestqueue.testing.merritt.MrtZk;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 49: the batch list, the dashboard's overview (the same list), search and the Merritt
 * intake reach every batch at any age and any id history. {@code /batches}' counter is moved far
 * past 20,000 numbers by reserved id blocks, as submissions move it, between batches made early,
 * midway and late; every batch is listed newest first through the pages and found by search in one
 * answer. A batch mrt-zk creates is listed; one its cleanup deletes is not. Each depositor's open
 * batches are capped: 429 with Retry-After naming the key, others still submit.
 */
class BatchListReachTest extends ApiServiceTest {
    static final int PER_DEPOSITOR = 4;

    @BeforeAll
    static void start() throws Exception {
        startService(Map.of("ingest.api.users", "olga:pw-o:admin|submitter, ui:pw-ui:poster",
                "ingest.queue.max-open-batches-per-depositor", String.valueOf(PER_DEPOSITOR)));
        store.holds().holdQueue("test"); // the batches stay as submitted
    }

    static HttpResponse<String> send(String method, String path, String user, String body) throws Exception {
        String pw = Map.of("olga", "pw-o", "ui", "pw-ui").get(user);
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":"
                + pw).getBytes(StandardCharsets.UTF_8)))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode get(String path) throws Exception {
        HttpResponse<String> r = send("GET", path, "olga", null);
        assertEquals(200, r.statusCode(), path + ": " + r.body());
        return JSON.readTree(r.body());
    }

    /** A JSON submission the Merritt UI's account posts for {@code submitter}. */
    static HttpResponse<String> submit(String submitter, String title) throws Exception {
        return send("POST", "/api/batches", "ui", "{\"profile\":\"demo_content\",\"type\":\"file\",\"payload_url\":"
                + "\"http://example.org/a.txt\",\"submitter\":\"" + submitter + "\",\"title\":\"" + title + "\"}");
    }

    static String created(String submitter, String title) throws Exception {
        HttpResponse<String> r = submit(submitter, title);
        assertEquals(201, r.statusCode(), r.body());
        return r.headers().firstValue("BID").orElseThrow();
    }

    /**
     * Moves {@code /batches}' counter on by about {@code n} numbers, as reserved id blocks do; new batches draw above
     * it.
     */
    static void drawNumbers(int n) {
        for (int done = 0; done < n; done += 4_000) {
            IdBlocks.reserve(store.calls(), store.calls().currentHandle(), QueuePaths.BATCHES, 2_000); // ~4,000 numbers
        }
        store.start(); // the service's next batch ids come after them (its block of ids is dropped)
    }

    /** Every batch id of the list, following its pages. */
    static List<String> listed(int limit) throws Exception {
        List<String> out = new ArrayList<>();
        String page = "/api/batches?limit=" + limit;
        for (int pages = 0; page != null; pages++) {
            assertTrue(pages < 100, "the pages end");
            JsonNode p = get(page);
            p.get("batches").forEach(b -> out.add(b.get("batch_id").asText()));
            page = p.hasNonNull("next") ? p.get("next").asText() : null;
        }
        return out;
    }

    @Test
    void batchesOfEveryAgeAreListedNewestFirstAndFoundBySearchFarPastTwentyThousandNumbers() throws Exception {
        List<String> mine = new ArrayList<>();
        for (int age = 0; age < 3; age++) {
            for (int i = 0; i < 3; i++) {
                mine.add(created("reach" + age, "reach-age" + age + "-" + i));
            }
            drawNumbers(12_000);
        }
        assertTrue(store.batches().newestNumber() > 30_000, "the counter is far past 20,000: "
                + store.batches().newestNumber());
        List<String> newestFirst = mine.stream().sorted(Comparator.reverseOrder()).toList();

        List<String> all = listed(2);
        assertEquals(newestFirst, all.stream().filter(mine::contains).toList(),
                "every batch, newest first, through the pages");
        assertEquals(all.stream().sorted(Comparator.reverseOrder()).toList(), all, "the whole list newest first");
        assertEquals(all.size(), all.stream().distinct().count(), "no batch twice across pages");
        assertEquals(newestFirst.subList(0, 3), listed(100).stream().filter(mine::contains).toList().subList(0, 3));
        assertTrue(get("/api/batches?state=pending&limit=100").get("batches").size() >= 9, "the open state's list too");

        JsonNode found = get("/api/search?q=" + URLEncoder.encode("reach-age", StandardCharsets.UTF_8));
        List<String> hits = new ArrayList<>();
        found.get("results").forEach(r -> hits.add(r.get("id").asText()));
        assertEquals(newestFirst, hits, "one answer finds them all: " + found);
        assertFalse(found.hasNonNull("next"), found.toString());
        JsonNode oldest = get("/api/search?q=reach-age0-0");
        assertEquals(mine.get(0), oldest.at("/results/0/id").asText(), "the oldest found in one answer: " + oldest);
    }

    @Test
    void aBatchMrtZkCreatesIsListedAndOneItsCleanupDeletedIsNot() throws Exception {
        drawNumbers(12_000);
        String gone = created("cleaned", "cleaned-up");
        String uuid = "bid-7c0e6f0e-2c1e-4d8e-9b0a-1f1f1f1f1f1f";
        String merritt = new MrtZk(store.client().getZookeeperClient().getZooKeeper()).createBatch(uuid,
                MrtZk.submission(uuid, "hello.txt"));
        // the running service's batch watch takes the new batch in the same moment: listed once that settles
        Awaitility.await("the Merritt batch is listed").atMost(Duration.ofSeconds(30))
                .ignoreExceptions().until(() -> listed(100).containsAll(List.of(merritt, gone)));

        // mrt-zk's Batch.deleteCompletedBatches: the batch's root and all under it, behind our back
        store.client().delete().deletingChildrenIfNeeded().forPath(QueuePaths.batch(gone));
        List<String> after = listed(100);
        assertFalse(after.contains(gone), after.toString());
        assertTrue(after.contains(merritt));
        assertNull(store.client().checkExists().forPath(QueuePaths.batchNumberEntry(gone)),
                "its index entry was dropped");
        assertEquals(0, get("/api/search?q=cleaned-up").get("results").size());
    }

    @Test
    void oneDepositorIsRefusedPastTheirLimitWith429AndOthersStillSubmit() throws Exception {
        for (int i = 0; i < PER_DEPOSITOR; i++) {
            created("gus/Gus Depositor", "gus-" + i);
        }
        HttpResponse<String> refused = submit("gus", "gus-over");
        assertEquals(429, refused.statusCode(), refused.body());
        assertEquals("60", refused.headers().firstValue("Retry-After").orElse(null));
        assertTrue(refused.body().contains("ingest.queue.max-open-batches-per-depositor = " + PER_DEPOSITOR),
                refused.body());
        assertEquals(0, get("/api/search?q=gus-over").get("results").size(), "the refused submission made no batch");
        created("hana", "hana-0"); // the same posting account, another depositor
    }
}
