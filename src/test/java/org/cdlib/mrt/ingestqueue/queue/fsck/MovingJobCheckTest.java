package org.cdlib.mrt.ingestqueue.queue.fsck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.OpResult;
import org.cdlib.mrt.ingestqueue.queue.jobs.JobNodes;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.cdlib.mrt.ingestqueue.testing.StoreTest;
import org.junit.jupiter.api.Test;

/**
 * The check of one job while the queue moves it. The periodic pass lists the open states' references
 * first and reads each batch's jobs after, so a busy queue moves jobs in between: such a job must not
 * be reported (on a loaded service every pass named hundreds of completed jobs as having "several
 * references", each with a repair that then found nothing to repair). A real second reference still is.
 */
class MovingJobCheckTest extends StoreTest {
    static final int PRIORITY = 5;

    String bid;
    String jid;

    /** One job walked to notify, unlocked. */
    void jobInNotify() {
        bid = QueueTestSupport.batchWithJobs(store, 1, PRIORITY);
        jid = store.batches().load(bid).jobIds().get(0);
        JobState s = JobState.PENDING;
        while (s != JobState.NOTIFY) {
            HeldJob l = store.claims().claim(s, store.jobs().load(jid).refName(), "t").orElseThrow();
            store.moves().transition(l, s.successor(), Change.because("test"));
            s = s.successor();
        }
    }

    void complete() {
        HeldJob l = store.claims().claim(JobState.NOTIFY, store.jobs().load(jid).refName(), "t").orElseThrow();
        store.moves().transition(l, JobState.COMPLETED, Change.because("notified"));
    }

    /** The job's nodes as the pass reads them for a batch (ConsistencyCheck.checkJobs). */
    Map<String, OpResult> nodes() {
        List<String> paths = new ArrayList<>(List.of(QueuePaths.job(jid)));
        JobNodes.CHILDREN.forEach(c -> paths.add(QueuePaths.jobNode(jid, c)));
        for (BatchRef ref : BatchRef.values()) {
            paths.add(QueuePaths.batchRef(bid, ref, jid));
        }
        return store.calls().readMany(paths);
    }

    FsckPass listedInNotify() {
        FsckPass p = new FsckPass(true, false);
        p.openRefs.put(jid, new ArrayList<>(List.of(QueuePaths.jobRef(JobState.NOTIFY, PRIORITY, jid))));
        return p;
    }

    @Test
    void aJobCompletedAfterTheOpenStatesWereListedIsNotReported() throws Exception {
        jobInNotify();
        FsckPass p = listedInNotify();
        complete();
        new FsckJobCheck(store, p, bid, jid, nodes()).run();
        assertEquals(List.of(), p.found);
        assertNotNull(client.checkExists().forPath(QueuePaths.jobRef(JobState.COMPLETED, PRIORITY, jid)));
    }

    @Test
    void aJobCompletedAfterItsNodesWereReadIsNotReported() throws Exception {
        jobInNotify();
        FsckPass p = listedInNotify();
        Map<String, OpResult> read = nodes();
        complete();
        new FsckJobCheck(store, p, bid, jid, read).run();
        assertEquals(List.of(), p.found);
        assertNotNull(client.checkExists().forPath(QueuePaths.jobRef(JobState.COMPLETED, PRIORITY, jid)));
    }

    @Test
    void aSecondReferenceThatIsThereIsStillReportedAndRepaired() throws Exception {
        jobInNotify();
        String stray = QueuePaths.jobRef(JobState.DOWNLOADING, PRIORITY, jid);
        client.create().forPath(stray);
        FsckPass p = listedInNotify();
        p.openRefs.get(jid).add(stray);
        new FsckJobCheck(store, p, bid, jid, nodes()).run();
        assertEquals(1, p.found.size(), p.found.toString());
        assertEquals("several-references", p.found.get(0).kind());
        assertTrue(p.found.get(0).repaired(), p.found.toString());
        assertNull(client.checkExists().forPath(stray));
        assertNotNull(client.checkExists().forPath(QueuePaths.jobRef(JobState.NOTIFY, PRIORITY, jid)));
    }
}
