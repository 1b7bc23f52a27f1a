package org.cdlib.mrt.ingestqueue.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** fsck finds corruption made by hand, and repair derives the truth from the status nodes. */
class ConsistencyCheckTest {
    static TestingServer zk;
    static CuratorFramework client;

    @TempDir
    Path dir;
    QueueStore store;
    ConsistencyCheck fsck;
    String bid;
    List<String> jids;

    @BeforeAll
    static void start() throws Exception {
        zk = new TestingServer(true);
        client = QueueTestSupport.client(zk);
    }

    @AfterAll
    static void stop() throws Exception {
        client.close();
        zk.close();
    }

    @BeforeEach
    void setUp() throws Exception {
        QueueTestSupport.wipe(client);
        store = QueueTestSupport.store(client, dir);
        fsck = new ConsistencyCheck(store);
        bid = QueueTestSupport.batchWithJobs(store, 3, 5);
        jids = store.loadBatch(bid).jobs(BatchRef.PROCESSING);
        assertTrue(fsck.check().clean());
    }

    private List<String> kinds(ConsistencyCheck.Report r) {
        return r.violations().stream().map(ConsistencyCheck.Violation::kind).sorted().toList();
    }

    @Test
    void missingSecondAndWrongReferencesAreFoundAndRepaired() throws Exception {
        client.delete().forPath(QueuePaths.jobRef(JobState.PENDING, 5, jids.get(0)));            // none
        client.create().forPath(QueuePaths.jobRef(JobState.ESTIMATING, 5, jids.get(1)));        // two
        client.delete().forPath(QueuePaths.jobRef(JobState.PENDING, 5, jids.get(2)));
        client.create().forPath(QueuePaths.jobRef(JobState.PENDING, 7, jids.get(2)));           // wrong PP
        client.create().forPath(QueuePaths.jobRef(JobState.NOTIFY, 5, "jid0000009999"));         // dangling
        ConsistencyCheck.Report r = fsck.check();
        assertEquals(List.of("dangling-reference", "no-reference", "several-references", "wrong-reference"), kinds(r));
        assertTrue(r.violations().stream().noneMatch(ConsistencyCheck.Violation::repaired), "check only reads");
        ConsistencyCheck.Report fixed = fsck.repair();
        assertTrue(fixed.violations().stream().allMatch(ConsistencyCheck.Violation::repaired), fixed.toString());
        assertTrue(fsck.check().clean(), fsck.check().toString());
        assertEquals(3, store.jobRefs(JobState.PENDING).size());
        assertTrue(store.jobRefs(JobState.ESTIMATING).isEmpty());
    }

    @Test
    void aBatchReferenceInTheWrongCategoryIsFoundAndMoved() throws Exception {
        client.delete().forPath(QueuePaths.batchRef(bid, BatchRef.PROCESSING, jids.get(0)));
        client.create().forPath(QueuePaths.batchRef(bid, BatchRef.COMPLETED, jids.get(0)));
        assertEquals(List.of("wrong-batch-reference"), kinds(fsck.check()));
        fsck.repair();
        assertTrue(fsck.check().clean());
        assertEquals(3, store.loadBatch(bid).jobs(BatchRef.PROCESSING).size());
    }

    @Test
    void garbageJsonAndAJobWithoutItsBatchAreReportedNotGuessed() throws Exception {
        client.setData().forPath(QueuePaths.jobStatus(jids.get(0)), "{not json".getBytes(StandardCharsets.UTF_8));
        client.setData().forPath(QueuePaths.jobNode(jids.get(1), "bid"), "\"bid0000000404\"".getBytes(StandardCharsets.UTF_8));
        ConsistencyCheck.Report r = fsck.repair();
        assertEquals(List.of("corrupt-job", "job-without-batch"), kinds(r));
        assertFalse(r.violations().get(0).repaired());
        assertTrue(r.violations().stream().filter(v -> v.kind().equals("corrupt-job")).findFirst().orElseThrow()
                .detail().contains(QueuePaths.jobStatus(jids.get(0))));
    }
}
