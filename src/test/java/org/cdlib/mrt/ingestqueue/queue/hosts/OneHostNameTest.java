package org.cdlib.mrt.ingestqueue.queue.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.JobHistory;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.LockOwner;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.cdlib.mrt.ingestqueue.testing.StoreTest;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * What an operator reads about a host names it one way: the hosts page's id ({@code ingest.host.id},
 * else host-pid) is the host in a lock's data and in a job's timeline; and a batch's first
 * transition line says it is new, never {@code null}.
 */
class OneHostNameTest extends StoreTest {
    @Test
    void theHostsPageTheLockDataAndTheTimelineNameTheHostByItsId() throws Exception {
        store.registerHost("ingest-7");
        assertEquals("ingest-7", store.hosts().id());
        assertEquals(List.of("ingest-7"), store.hosts().list().stream().map(h -> h.get("id")).toList());

        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        String jid = QueuePaths.jidOfRef(store.jobs().refs(JobState.PENDING).get(0));
        HeldJob lock = store.claims().claim(JobState.PENDING, store.jobs().load(jid).refName(), "pending-1")
                .orElseThrow();
        LockOwner owner = QueueJson.read(QueuePaths.jobLock(jid), client.getData().forPath(QueuePaths.jobLock(jid)),
                LockOwner.class);
        assertEquals("ingest-7", owner.host(), "the lock node's data");
        store.moves().transition(lock, JobState.ESTIMATING, Change.because("ok"));

        List<JobHistory.Entry> history = store.jobs().load(jid).status().history();
        assertEquals(2, history.size(), history.toString());
        assertEquals("test@ingest-7", history.get(0).by(), "created by the batch's worker on this host");
        assertEquals("pending-1@ingest-7", history.get(1).by(), "moved by the pending worker on this host");
        assertTrue(store.batches().exists(bid));
    }

    @Test
    void withoutAConfiguredIdTheDefaultIsTheOneNameToo() throws Exception {
        store.registerHost(null);
        String id = store.hosts().id();
        assertTrue(id.startsWith(LockOwner.hostName().replaceAll("[^A-Za-z0-9_.-]", "_") + "-"
                + ProcessHandle.current().pid()), id);
        QueueTestSupport.batchWithJobs(store, 1, 5);
        String jid = QueuePaths.jidOfRef(store.jobs().refs(JobState.PENDING).get(0));
        assertEquals(List.of("test@" + id),
                store.jobs().load(jid).status().history().stream().map(JobHistory.Entry::by).toList());
    }

    @Test
    void aNewBatchsFirstLineSaysNewAndWhoSubmittedIt() {
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        Logger transitions = (Logger) LoggerFactory.getLogger("ingestqueue.transitions");
        transitions.addAppender(lines);
        try {
            String bid = store.batches().create(QueueTestSupport.submission("demo_content"));
            List<String> logged = lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
            assertEquals(List.of("batch " + bid + ": new -> pending: submitted by tester (batch-manifest, profile "
                    + "demo_content)"), logged);
            assertTrue(logged.stream().noneMatch(l -> l.contains("null")), logged.toString());
        } finally {
            transitions.detachAppender(lines);
        }
    }
}
