package org.cdlib.mrt.ingestqueue.api.reads;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.history.HistoryStore;
import org.cdlib.mrt.ingestqueue.history.OpenIndex;
import org.cdlib.mrt.ingestqueue.history.OpenIndexPass;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionEvent;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.model.NewJob;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 45: search finds any open job by local id, ARK or title in one request, however many jobs
 * and batches the queue holds: the index of open work, filled by its bounded pass, answers; what it
 * has not reached yet is scanned; a hit is read again from ZooKeeper, so a batch deleted behind the
 * index's back is not shown, and the pass forgets it.
 */
class OpenIndexSearchTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    static final int BATCHES = 4;
    static final int JOBS = 160; // 580 jobs: more than one scan reads
    HistoryStore history;
    QueueStore store;
    OpenIndexPass pass;
    Search search;
    List<String> bids = new ArrayList<>();

    @BeforeEach
    void open() {
        history = new HistoryStore("jdbc:h2:mem:openindex" + System.nanoTime() + ";DB_CLOSE_DELAY=-1", null, null);
        store = ZK.store(ZK.dir());
        pass = new OpenIndexPass(store, history.open(), 200);
        search = new Search(store, history);
        for (int b = 0; b < BATCHES; b++) {
            bids.add(batch(b, JOBS - 10 * b)); // unequal sizes
        }
    }

    @AfterEach
    void close() {
        history.close();
    }

    /** A processing batch titled "Box b", its jobs titled "Letter b-i of Ada", local ids "ada-b-i". */
    String batch(int b, int n) {
        BatchSubmission s = new BatchSubmission("demo_content", "tester", "http://localhost/m.checkm", "Box " + b,
                "who", null, null, "batch-manifest", "add", null, null, null, null, null, null, "json", null,
                Instant.now().toString(), Map.of());
        String bid = store.batches().create(s);
        HeldBatch lock = store.batches().tryLock(bid, "test").orElseThrow();
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String local = "ada-" + b + "-" + i;
            JobConfiguration c = new JobConfiguration(null, "demo_content", "tester", "http://localhost/" + local,
                    "object_manifest", "json", "add", null, local, null, null, null, null, "who",
                    "Letter " + b + "-" + i + " of Ada", "when", null, Map.of());
            jobs.add(new NewJob(c, new Identifiers(null, List.of(local)), 5));
        }
        store.batches().createJobs(lock, jobs);
        store.moves().transition(lock, BatchState.PROCESSING, "jobs created", null, null);
        return bid;
    }

    List<Map<String, Object>> find(String q) {
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> r = (List<Map<String, Object>>) search.find(Search.Terms.of(q, null, null, null),
                null, 0, null).get("results");
        return r;
    }

    void indexWhole() {
        await("the index holds every open job").atMost(Duration.ofSeconds(60)).until(() -> {
            pass.run();
            return history.open().toLookAt(false, 50).isEmpty() && history.open().seen(bids).size() == BATCHES;
        });
    }

    @Test
    void anyOpenJobIsFoundInOneRequestWhileTheIndexFillsAndAfter() {
        OpenIndex index = history.open();
        String oldestJob = store.batches().load(bids.get(0)).jobIds().get(JOBS - 1);
        // before the index: the scan reads the newest 500 jobs only, and the oldest batch's last job is past them
        Map<String, Object> before = search.find(Search.Terms.of("ada-0-" + (JOBS - 1), null, null, null), null, 0,
                null);
        assertTrue(before.containsKey("next"), "the scan alone needs more requests: " + before);

        pass.run(); // one pass: every batch entered, a budget of jobs indexed, the rest still to come
        assertFalse(index.toLookAt(false, 50).isEmpty(), "one pass is bounded: jobs are left for the next");
        OpenIndex.Progress partial = index.toLookAt(false, 50).stream().filter(p -> p.indexed() > 0).findFirst()
                .orElseThrow();
        int b = bids.indexOf(partial.batchId());
        List<String> jids = store.batches().load(partial.batchId()).jobIds();
        String tail = "ada-" + b + "-" + (jids.size() - 1);
        assertEquals(List.of(jids.get(jids.size() - 1)), find(tail).stream().map(r -> r.get("id")).toList(),
                "a job past what the index holds is scanned: found while indexing");
        assertEquals(List.of(jids.get(0)), find("ada-" + b + "-0").stream().map(r -> r.get("id")).toList(),
                "and one it holds, from the index");

        indexWhole();
        Map<String, Object> after = search.find(Search.Terms.of("ada-0-" + (JOBS - 1), null, null, null), null, 0,
                null);
        assertEquals(oldestJob, ((List<?>) after.get("results")).isEmpty() ? null
                : ((Map<?, ?>) ((List<?>) after.get("results")).get(0)).get("id"));
        assertFalse(after.containsKey("next"), "one request: " + after);
        assertEquals("pending", ((Map<?, ?>) ((List<?>) after.get("results")).get(0)).get("state"),
                "the state as ZooKeeper has it now");

        // title words: the whole words first (the job of batch 2), then words beginning so (2-130 … 2-139)
        List<Map<String, Object>> titled = find("letter 2-13 ada");
        assertEquals(store.batches().load(bids.get(2)).jobIds().get(13), titled.get(0).get("id"), titled.toString());
        assertEquals(11, titled.size(), titled.toString());
        // a batch by its title
        assertEquals(List.of(bids.get(3)), find("Box 3").stream().filter(r -> r.get("kind").equals("batch"))
                .map(r -> r.get("id")).toList());
    }

    @Test
    void anArkMintedInProcessingIsFoundOnceTheJobMovesToStoring() {
        indexWhole();
        String jid = store.batches().jobs(bids.get(1), BatchRef.PROCESSING).get(5);
        String ark = "ark:/99999/fk4open" + System.nanoTime();
        QueueTestSupport.walkToNotifyWithEffects(store, jid, new Identifiers(ark, List.of("ada-1-x")), ark);
        pass.accept(new TransitionEvent(TransitionEvent.JOB, jid, bids.get(1), "processing", "storing", "step",
                Instant.now()));
        await("the ARK is indexed").atMost(Duration.ofSeconds(30)).until(() -> !find(ark).isEmpty());
        assertEquals(jid, find(ark).get(0).get("id"));
    }

    @Test
    void aBatchDeletedBehindTheIndexIsNotShownAndIsForgotten() throws Exception {
        indexWhole();
        String gone = bids.get(3);
        assertEquals(store.batches().load(gone).jobIds().get(4), find("ada-3-4").get(0).get("id"),
                "the local id first, then titles with words beginning so");
        store.client().delete().deletingChildrenIfNeeded().forPath(QueuePaths.batch(gone));
        assertEquals(0, find("ada-3-4").size(), "a hit is read again from ZooKeeper");
        await("the pass forgets it").atMost(Duration.ofSeconds(60)).until(() -> {
            pass.run();
            return history.open().seen(List.of(gone)).isEmpty();
        });
    }
}
