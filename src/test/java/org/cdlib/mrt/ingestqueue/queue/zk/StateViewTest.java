package org.cdlib.mrt.ingestqueue.queue.zk;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The consumers' view of a state: kept by the persistent watch's events without listing the
 * folder on every change, and listed again after the connection comes back (events may have
 * been missed meanwhile).
 */
class StateViewTest {
    /** A server of the test's own: it is stopped and restarted on its port and data. */
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().freshServerEachTest();

    @Test
    void referencesArriveAsEventsAndChangesMadeWhileDisconnectedAreSeenAfterReconnecting() throws Exception {
        TestingServer server = ZK.server();
        CuratorFramework other = QueueTestSupport.client(server);
        try {
            QueueStore store = ZK.store(ZK.dir());
            AtomicInteger changes = new AtomicInteger();
            StateView view = store.jobStateView(JobState.ESTIMATING).start(changes::incrementAndGet);
            await().atMost(Duration.ofSeconds(10)).until(view::isListed);
            String path = QueuePaths.jobState(JobState.ESTIMATING);
            other.create().forPath(path + "/05-jid0000000001");
            other.create().forPath(path + "/03-jid0000000002");
            await().atMost(Duration.ofSeconds(10)).until(() -> view.snapshot().size() == 2);
            assertEquals(List.of("03-jid0000000002", "05-jid0000000001"), view.snapshot(), "in run order");
            int listedBefore = changes.get();
            other.delete().forPath(path + "/05-jid0000000001");
            await().atMost(Duration.ofSeconds(10)).until(() -> view.snapshot().equals(List.of("03-jid0000000002")));
            assertTrue(changes.get() > listedBefore, "each change signals the consumer");

            server.stop(); // the view's client loses its connection; the other writes after the restart
            server.restart();
            other.blockUntilConnected(20, TimeUnit.SECONDS);
            other.create().forPath(path + "/07-jid0000000003");
            await().atMost(Duration.ofSeconds(30)).until(() -> view.snapshot().contains("07-jid0000000003"));
            assertEquals(List.of("03-jid0000000002", "07-jid0000000003"), view.snapshot());
            view.close();
        } finally {
            other.close();
        }
    }
}
