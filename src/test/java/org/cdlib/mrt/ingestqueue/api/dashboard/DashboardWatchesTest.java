package org.cdlib.mrt.ingestqueue.api.dashboard;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerResponse;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.ZooKeeper;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard's watches kept only while a page is connected, and a page greeted before they are
 * in place told to reload once they are.
 */
public class DashboardWatchesTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    @TempDir
    Path dir;

    @Test
    void theDashboardsWatchesAreOnOnlyWhileAPageIsConnected() throws Exception {
        QueueStore store = ZK.store(dir);
        ZooKeeper zk = store.client().getZookeeperClient().getZooKeeper();
        LiveFeed feed = new LiveFeed(store, 300).start();
        try {
            assertFalse(feed.watching());
            assertEquals(List.of(), recursiveWatches(zk), "no page: no watch");

            Page page = new Page();
            assertTrue(feed.subscribe(page.response, () -> true, null));
            await().atMost(Duration.ofSeconds(20)).until(() -> page.written().contains("event: hello"));
            assertTrue(recursiveWatches(zk).contains("/jobs/states"), recursiveWatches(zk).toString());
            // a change after the greeting reaches the page: the watches were in place before it
            String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
            await().atMost(Duration.ofSeconds(20)).until(() -> page.written().contains(bid));

            page.close();
            await().atMost(Duration.ofSeconds(30)).until(() -> !feed.watching() && recursiveWatches(zk).isEmpty());
        } finally {
            feed.close();
        }
    }

    @Test
    void aPageConnectingWhileZooKeeperIsAwayIsGreetedAndToldToReloadOnceTheWatchesAreIn() throws Exception {
        QueueStore store = ZK.store(dir);
        LiveFeed feed = new LiveFeed(store, 300).start();
        try {
            ZK.server().stop();
            Page page = new Page();
            assertTrue(feed.subscribe(page.response, () -> true, null));
            await().atMost(Duration.ofSeconds(30)).until(() -> page.written().contains("event: hello"));
            assertFalse(page.written().contains("\"reload\":true"), page.written());
            ZK.server().restart();
            // the page loaded (or failed to) before any watch was in place: it reloads once they are
            await().atMost(Duration.ofSeconds(60)).until(() -> page.written().contains("\"reload\":true"));
        } finally {
            feed.close();
        }
    }

    /**
     * ZooKeeper up but slow to answer: the watches are asked for and not yet in place when the
     * page's greeting is due ({@link FeedPages#GREET_MS}), so the page loads what it shows before
     * they are. Once they are, it must reload, or it misses what changed between its load and
     * then. (Stopping the server does not show this: Curator sets the watches again on
     * reconnecting, and that second setting alone makes every page reload.)
     */
    @Test
    @SuppressWarnings("deprecation") // Thread.suspend: a server that is connected but does not answer
    void aPageGreetedBeforeTheWatchesAnsweredReloadsOnceTheyHave() throws Exception {
        CuratorFramework client = QueueTestSupport.client(ZK.server(), 40_000); // pings wait with the rest
        QueueStore store = QueueTestSupport.store(client, dir);
        LiveFeed feed = new LiveFeed(store, 300).start();
        String port = ":" + ZK.server().getPort();
        Thread requests = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("ProcessThread(") && t.getName().contains(port)).findFirst()
                .orElseThrow();
        try {
            requests.suspend();
            Page page = new Page();
            assertTrue(feed.subscribe(page.response, () -> true, null));
            await().atMost(Duration.ofSeconds(30)).until(() -> page.written().contains("event: hello"));
            assertFalse(feed.live(), "the watches were asked for and are not in place yet");
            assertFalse(page.written().contains("\"reload\":true"), page.written());
            requests.resume();
            await().atMost(Duration.ofSeconds(30)).until(() -> page.written().contains("\"reload\":true"));
        } finally {
            requests.resume();
            feed.close();
            client.close();
        }
    }

    @SuppressWarnings("unchecked")
    public static List<String> recursiveWatches(ZooKeeper zk) throws Exception {
        Method m = ZooKeeper.class.getDeclaredMethod("getPersistentRecursiveWatches");
        m.setAccessible(true);
        return (List<String>) m.invoke(zk);
    }

    /** A connected page as the feed sees it: what was written to it, and its closing. */
    static final class Page {
        final List<String> writes = new CopyOnWriteArrayList<>();
        final AtomicReference<Handler<Void>> onClose = new AtomicReference<>();
        volatile boolean closed;
        final HttpServerResponse response = (HttpServerResponse) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {HttpServerResponse.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "write" -> writes.add(String.valueOf(args[0]));
                        case "closeHandler" -> onClose.set((Handler<Void>) args[0]);
                        case "closed", "ended" -> {
                            return closed;
                        }
                        case "writeQueueFull" -> {
                            return false;
                        }
                        case "hashCode" -> {
                            return System.identityHashCode(proxy);
                        }
                        case "equals" -> {
                            return proxy == args[0];
                        }
                        default -> {
                        }
                    }
                    return method.getReturnType().isInstance(proxy) ? proxy : null;
                });

        String written() {
            return String.join("", writes);
        }

        void close() {
            closed = true;
            onClose.get().handle(null);
        }
    }
}
