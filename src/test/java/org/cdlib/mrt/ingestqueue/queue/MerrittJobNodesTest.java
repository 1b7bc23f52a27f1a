package org.cdlib.mrt.ingestqueue.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.cdlib.mrt.ingestqueue.queue.lease.JobLock;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code store} and {@code inventory} nodes mrt-zk describes a storage add with are written by
 * the transaction that records the add, without reading them first: whether they exist is guessed
 * from the effect records, and a wrong guess (a node Merritt's host left, or one removed by hand)
 * is corrected by one more transaction, never by a stale job.
 */
class MerrittJobNodesTest {
    @RegisterExtension
    static final TestZooKeeper ZK = new TestZooKeeper();
    @TempDir
    Path dir;
    QueueStore store;
    String jid;

    @BeforeEach
    void setUp() {
        store = ZK.store(dir);
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        for (JobState s = JobState.PENDING; s != JobState.STORING; s = s.successor()) {
            JobLock lock = store.claims().claim(s, store.jobs().load(jid).refName(), "worker").orElseThrow();
            store.transition(lock, s.successor(), Change.because("step succeeded"));
        }
    }

    JobLock storing() {
        return store.claims().claim(JobState.STORING, store.jobs().load(jid).refName(), "worker").orElseThrow();
    }

    String node(String name) throws Exception {
        return new String(ZK.client().getData().forPath(QueuePaths.jobNode(jid, name)), StandardCharsets.UTF_8);
    }

    @Test
    void writtenWithTheirRecordsWhenNoneExistYet() throws Exception {
        JobLock lock = storing();
        long before = store.operations();
        store.records().storeStarted(lock, "0", "http://localhost/manifest", "add/7777/ark:/99999/fk4a", List.of());
        store.records().storeDone(lock, "{\"version\":1}", "http://localhost/store/manifest/7777/1");
        // two transactions of four operations (the lock's fence, the status's version, the records, the node); no read
        assertEquals(8, store.operations() - before);
        assertTrue(node("store").contains("\"mode\":\"add/7777/ark:/99999/fk4a\""), node("store"));
        assertTrue(node("inventory").contains("http://localhost/store/manifest/7777/1"), node("inventory"));
        assertTrue(store.jobs().effects(jid).done(JobEffects.STORAGE));
    }

    @Test
    void aNodeAlreadyThereIsOverwritten() throws Exception {
        ZK.client().create().forPath(QueuePaths.jobNode(jid, "store"), "{\"manifest_url\":\"left by Merritt\"}".getBytes(StandardCharsets.UTF_8));
        ZK.client().create().forPath(QueuePaths.jobNode(jid, "inventory"), "{}".getBytes(StandardCharsets.UTF_8));
        JobLock lock = storing();
        store.records().storeStarted(lock, "0", "http://localhost/manifest", "add/7777/ark:/99999/fk4a", List.of());
        store.records().storeDone(lock, "{\"version\":1}", "http://localhost/store/manifest/7777/1");
        assertTrue(node("store").contains("\"manifest_url\":\"http://localhost/manifest\""), node("store"));
        assertTrue(node("inventory").contains("http://localhost/store/manifest/7777/1"), node("inventory"));
        assertEquals("done", store.jobs().effects(jid).get(JobEffects.STORAGE).state());
    }

    @Test
    void aNodeTheRecordsSayExistsButIsGoneIsCreated() throws Exception {
        JobLock lock = storing();
        store.records().storeStarted(lock, "0", "http://localhost/manifest", "add/7777/ark:/99999/fk4a", List.of());
        ZK.client().delete().forPath(QueuePaths.jobNode(jid, "store"));
        store.records().storeStarted(lock, "1", "http://localhost/manifest2", "add/7777/ark:/99999/fk4a", List.of());
        assertTrue(node("store").contains("http://localhost/manifest2"), node("store"));
        assertEquals("1", store.jobs().effects(jid).get(JobEffects.STORAGE).detail());
    }
}
