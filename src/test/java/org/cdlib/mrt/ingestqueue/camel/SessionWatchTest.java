package org.cdlib.mrt.ingestqueue.camel;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryOneTime;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A consumer's view of its connection, as Curator's events arrive (in whatever order they come). */
class SessionWatchTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();

    private SessionWatch watch(QueueStore store, AtomicInteger woken) {
        Workers workers = new Workers(1, store, id -> id, () -> { });
        return new SessionWatch("job/test", new QueueHold(store, () -> { }), workers,
                new Backlog("job/test", id -> id), woken::incrementAndGet);
    }

    @Test
    void aSessionLossPostedAfterTheNewSessionConnectedLeavesTheConsumerTakingWork() throws Exception {
        QueueStore store = ZK.store(Files.createTempDirectory("session-watch"));
        AtomicInteger woken = new AtomicInteger();
        SessionWatch watch = watch(store, woken);
        CuratorFramework connected = store.client();

        watch.stateChanged(connected, ConnectionState.LOST);
        watch.stateChanged(connected, ConnectionState.RECONNECTED);
        watch.stateChanged(connected, ConnectionState.LOST); // late: the client is connected again by now
        assertTrue(watch.connected(), "a late LOST of the old session does not stop the consumer");
        assertTrue(woken.get() >= 3, "each event wakes the dispatcher to list its state afresh");
    }

    @Test
    void aSessionLossWhileTheClientIsDisconnectedStopsTakingWork() throws Exception {
        QueueStore store = ZK.store(Files.createTempDirectory("session-watch"));
        SessionWatch watch = watch(store, new AtomicInteger());
        // a client that never connects: the session is truly gone until a RECONNECTED says otherwise
        try (CuratorFramework nowhere = CuratorFrameworkFactory.newClient("127.0.0.1:1", 1000, 1000,
                new RetryOneTime(10))) {
            nowhere.start();
            watch.stateChanged(nowhere, ConnectionState.LOST);
            assertFalse(watch.connected(), "no work is taken while the session is lost");
            watch.stateChanged(nowhere, ConnectionState.RECONNECTED);
            assertTrue(watch.connected());
        }
    }
}
