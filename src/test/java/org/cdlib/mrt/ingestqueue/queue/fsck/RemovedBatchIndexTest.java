package org.cdlib.mrt.ingestqueue.queue.fsck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A batch root removed by another writer while no host's watch heard it (Merritt's cleanup during
 * a time every host was disconnected): fsck names the index entries that still name it and its
 * repair drops them; a batch that is there keeps its entries.
 */
class RemovedBatchIndexTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();

    final Path dir = ZK.dir();

    @Test
    void indexEntriesOfARootRemovedBehindTheQueuesBackAreFoundAndDropped() throws Exception {
        QueueStore store = ZK.store(dir);
        String gone = QueueTestSupport.batchWithJobs(store, 2, 5);
        String kept = QueueTestSupport.batchWithJobs(store, 3, 5);
        // Merritt's Batch#delete: each job's nodes, then rm_rf of the root; our indexes untouched
        for (String jid : store.batches().jobs(gone, BatchRef.PROCESSING)) {
            ZK.client().delete().deletingChildrenIfNeeded().forPath(QueuePaths.job(jid));
            for (var s : JobState.values()) {
                for (String ref : store.jobs().refs(s)) {
                    if (QueuePaths.jidOfRef(ref).equals(jid)) {
                        ZK.client().delete().forPath(QueuePaths.jobState(s) + "/" + ref);
                    }
                }
            }
        }
        ZK.client().delete().deletingChildrenIfNeeded().forPath(QueuePaths.batch(gone));
        assertTrue(store.calls().exists(QueuePaths.batchIndex(BatchState.PROCESSING, gone)));

        ConsistencyCheck.Report found = new ConsistencyCheck(store).check();
        List<String> kinds = found.violations().stream().map(v -> v.kind() + " " + v.path()).toList();
        assertEquals(List.of("index-of-removed-batch " + QueuePaths.batch(gone)), kinds, found.toString());

        ConsistencyCheck.Report repaired = new ConsistencyCheck(store).repair();
        assertTrue(repaired.violations().get(0).repaired(), repaired.toString());
        assertFalse(store.calls().exists(QueuePaths.batchIndex(BatchState.PROCESSING, gone)));
        assertFalse(store.calls().exists(QueuePaths.batchNumberEntry(gone)));
        assertTrue(store.calls().exists(QueuePaths.batchIndex(BatchState.PROCESSING, kept)));
        assertTrue(store.calls().exists(QueuePaths.batchNumberEntry(kept)));
        assertTrue(new ConsistencyCheck(store).check().clean());
    }
}
