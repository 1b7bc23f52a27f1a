package org.cdlib.mrt.ingestqueue.queue.fsck;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.cdlib.mrt.ingestqueue.testing.ZooKeeperRelay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A repair of fsck whose transaction applied but whose answer a lost connection hid is known as
 * applied: reported once as repaired, not as an error, and not sent again onto its own result; one
 * that never reached the server is sent again and applies once. Before, the "applied?" checks of
 * repairs and lock breaks always answered no: a lock break that had applied was sent again, failed
 * on its own deletion and was not reported; a reference repair was reported as not repaired.
 *
 * <p>The store's connection passes a {@link MultiSpotter}, then the {@link ZooKeeperRelay}: the
 * spotter sees the repair's transaction go by (a multi naming its node) and, before passing it on,
 * tells the relay to hold what the server answers from then on (the transaction applies, its answer
 * is lost) or what the client sends (it never reaches the server); the test then cuts.
 */
class LostRepairAnswerTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    final Path dir = ZK.dir();
    ZooKeeperRelay relay;
    MultiSpotter spotter;
    CuratorFramework client;
    QueueStore store;
    ConsistencyCheck fsck;
    List<String> jids;

    @BeforeEach
    void setUp() throws Exception {
        relay = new ZooKeeperRelay(ZK.server().getPort());
        spotter = new MultiSpotter(Integer.parseInt(
                relay.connectString().substring(relay.connectString().lastIndexOf(':') + 1)));
        // the batch made on a direct connection (a relayed request is slower); only fsck's pass is relayed
        QueueStore direct = ZK.store(dir);
        String bid = QueueTestSupport.batchWithJobs(direct, 2, 5);
        jids = direct.batches().jobs(bid, BatchRef.PROCESSING);
        assertTrue(new ConsistencyCheck(direct, 0).check().clean());
        client = QueueTestSupport.client(spotter.connectString(), 30_000); // the session outlives the cut
        store = QueueTestSupport.store(client, dir);
        fsck = new ConsistencyCheck(store, 0);
    }

    @AfterEach
    void tearDown() throws Exception {
        client.close();
        spotter.close();
        relay.close();
    }

    /** A lock of the store's own session that no holder here has (as a create whose answer was lost leaves it). */
    String orphanLock() throws Exception {
        String jid = jids.get(0);
        store.client()
                .getZookeeperClient()
                .getZooKeeper()
                .create(
                        QueuePaths.jobLock(jid),
                        "{}".getBytes(StandardCharsets.UTF_8),
                        ZooDefs.Ids.OPEN_ACL_UNSAFE,
                        CreateMode.EPHEMERAL);
        return jid;
    }

    int statusVersion(String jid) throws Exception {
        return ZK.client().checkExists().forPath(QueuePaths.jobStatus(jid)).getVersion();
    }

    /** fsck's repair on its own thread. */
    CompletableFuture<ConsistencyCheck.Report> repairing() {
        return CompletableFuture.supplyAsync(fsck::repair, r -> new Thread(r, "fsck").start());
    }

    /**
     * Waits for the server to have applied the spotted transaction ({@code applied}) with its answer held, then cuts.
     */
    void loseTheAnswer(Callable<Boolean> applied) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> spotter.fired() && applied.call() && relay.heldAnswers() > 0);
        relay.cut();
    }

    /** Waits for the spotted transaction to be held on its way to the server, then cuts: it never gets there. */
    void loseTheRequest() {
        // more than a ping
        await().atMost(Duration.ofSeconds(30)).until(() -> spotter.fired() && relay.heldRequests() > 24);
        relay.cut();
    }

    List<String> kinds(ConsistencyCheck.Report r) {
        return r.violations().stream().map(v -> v.kind() + (v.repaired() ? " (repaired)" : "")).toList();
    }

    @Test
    void anOrphanLockBreakWhoseAnswerWasLostIsReportedOnceAsBroken() throws Exception {
        String jid = orphanLock();
        int before = statusVersion(jid);
        spotter.onMulti(QueuePaths.jobLock(jid), relay::holdAnswers);
        CompletableFuture<ConsistencyCheck.Report> repair = repairing();
        loseTheAnswer(() -> ZK.client().checkExists().forPath(QueuePaths.jobLock(jid)) == null);

        ConsistencyCheck.Report r = repair.get(90, TimeUnit.SECONDS);
        assertEquals(List.of("orphaned-lock (repaired)"), kinds(r), r.toString());
        assertEquals(1, store.claims().breaks().count(), "one break, counted once");
        assertEquals(before + 1, statusVersion(jid), "the status version moved exactly once");
        assertNull(ZK.client().checkExists().forPath(QueuePaths.jobLock(jid)));
        assertTrue(fsck.check().clean());
    }

    @Test
    void anOrphanLockBreakThatNeverReachedTheServerIsSentAgainAndAppliesOnce() throws Exception {
        String jid = orphanLock();
        int before = statusVersion(jid);
        spotter.onMulti(QueuePaths.jobLock(jid), relay::holdRequests);
        CompletableFuture<ConsistencyCheck.Report> repair = repairing();
        loseTheRequest();

        ConsistencyCheck.Report r = repair.get(90, TimeUnit.SECONDS);
        assertEquals(List.of("orphaned-lock (repaired)"), kinds(r), r.toString());
        assertEquals(1, store.claims().breaks().count());
        assertEquals(before + 1, statusVersion(jid), "the status version moved exactly once");
        assertNull(ZK.client().checkExists().forPath(QueuePaths.jobLock(jid)));
        assertTrue(fsck.check().clean());
    }

    @Test
    void aReferenceRepairWhoseAnswerWasLostIsReportedAsRepaired() throws Exception {
        String dangling = QueuePaths.jobRef(JobState.ESTIMATING, 5, "jid0000009999");
        ZK.client().create().forPath(dangling);
        spotter.onMulti(dangling, relay::holdAnswers);
        CompletableFuture<ConsistencyCheck.Report> repair = repairing();
        loseTheAnswer(() -> ZK.client().checkExists().forPath(dangling) == null);

        ConsistencyCheck.Report r = repair.get(90, TimeUnit.SECONDS);
        assertEquals(List.of("dangling-reference (repaired)"), kinds(r), r.toString());
        assertTrue(fsck.check().clean());
    }

    @Test
    void aReferenceRepairThatNeverReachedTheServerIsSentAgain() throws Exception {
        String dangling = QueuePaths.jobRef(JobState.ESTIMATING, 5, "jid0000009999");
        ZK.client().create().forPath(dangling);
        spotter.onMulti(dangling, relay::holdRequests);
        CompletableFuture<ConsistencyCheck.Report> repair = repairing();
        loseTheRequest();

        ConsistencyCheck.Report r = repair.get(90, TimeUnit.SECONDS);
        assertEquals(List.of("dangling-reference (repaired)"), kinds(r), r.toString());
        assertNull(ZK.client().checkExists().forPath(dangling));
        assertTrue(fsck.check().clean());
    }

    /**
     * The disk counters' repair (a counter written wrong by hand) whose answer was lost: reported as
     * repaired, written once. Sent again, it failed on its own write and the next look found the
     * counters right: the pass said nothing of a repair it had made.
     */
    @Test
    void aCounterRepairWhoseAnswerWasLostIsReportedAsRepaired() throws Exception {
        // 5 released, none admitted
        ZK.client().setData().forPath(QueuePaths.SPACE_RELEASED, "5".getBytes(StandardCharsets.UTF_8));
        int version = ZK.client().checkExists().forPath(QueuePaths.SPACE_ADMITTED).getVersion();
        spotter.onMulti(QueuePaths.SPACE_ADMITTED, relay::holdAnswers);
        CompletableFuture<ConsistencyCheck.Report> repair = repairing();
        loseTheAnswer(() -> ZK.client().checkExists().forPath(QueuePaths.SPACE_ADMITTED).getVersion() == version + 1);

        ConsistencyCheck.Report r = repair.get(90, TimeUnit.SECONDS);
        assertEquals(List.of("space-reservation (repaired)"), kinds(r), r.toString());
        // too little reserved (-5): admitted raised to match, no counter lowered
        assertEquals("5", new String(ZK.client().getData().forPath(QueuePaths.SPACE_ADMITTED), StandardCharsets.UTF_8));
        assertEquals(
                version + 1,
                ZK.client().checkExists().forPath(QueuePaths.SPACE_ADMITTED).getVersion(),
                "written once");
        assertTrue(fsck.check().clean());
    }

    /**
     * A TCP relay that reads the ZooKeeper requests a client sends, frame by frame (a length, then
     * for every frame after the connect request: xid, type, body), and runs an action just before
     * it passes on the first {@code multi} whose body names a given path. What the server answers
     * is passed on untouched.
     */
    static final class MultiSpotter implements AutoCloseable {
        private static final int MULTI = ZooDefs.OpCode.multi;
        private final ServerSocket listener;
        private final int targetPort;
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();
        private final AtomicReference<byte[]> watched = new AtomicReference<>();
        private volatile Runnable action;
        private volatile boolean fired;

        MultiSpotter(int targetPort) throws IOException {
            this.targetPort = targetPort;
            this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread accept = new Thread(this::accept, "spotter-accept");
            accept.setDaemon(true);
            accept.start();
        }

        String connectString() {
            return "127.0.0.1:" + listener.getLocalPort();
        }

        /** Runs {@code then} once, just before the first multi naming {@code path} goes on to the server. */
        void onMulti(String path, Runnable then) {
            action = then;
            watched.set(path.getBytes(StandardCharsets.UTF_8));
        }

        boolean fired() {
            return fired;
        }

        private void accept() {
            while (!listener.isClosed()) {
                try {
                    Socket in = listener.accept();
                    Socket out = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                    in.setTcpNoDelay(true); // a frame goes on at once, not after the last one's acknowledgement
                    out.setTcpNoDelay(true);
                    sockets.add(in);
                    sockets.add(out);
                    start(() -> requests(in, out));
                    start(() -> answers(out, in));
                } catch (IOException e) {
                    return;
                }
            }
        }

        private static void start(Runnable r) {
            Thread t = new Thread(r, "spotter-pump");
            t.setDaemon(true);
            t.start();
        }

        private void requests(Socket from, Socket to) {
            try (DataInputStream in = new DataInputStream(from.getInputStream());
                 DataOutputStream out = new DataOutputStream(to.getOutputStream())) {
                for (boolean connect = true; ; connect = false) {
                    int length = in.readInt();
                    byte[] frame = new byte[length];
                    in.readFully(frame);
                    if (!connect && length >= 8 && ByteBuffer.wrap(frame, 4, 4).getInt() == MULTI) {
                        byte[] path = watched.get();
                        if (path != null && contains(frame, path) && watched.compareAndSet(path, null)) {
                            action.run();
                            fired = true;
                        }
                    }
                    out.writeInt(length);
                    out.write(frame);
                    out.flush();
                }
            } catch (IOException e) {
                // cut or closed
            } finally {
                close(from, to);
            }
        }

        private static void answers(Socket from, Socket to) {
            byte[] buf = new byte[8192];
            try (InputStream is = from.getInputStream(); OutputStream os = to.getOutputStream()) {
                for (int n; (n = is.read(buf)) > 0; ) {
                    os.write(buf, 0, n);
                    os.flush();
                }
            } catch (IOException e) {
                // cut or closed
            } finally {
                close(from, to);
            }
        }

        private static boolean contains(byte[] frame, byte[] part) {
            outer:
            for (int i = 0; i + part.length <= frame.length; i++) {
                for (int j = 0; j < part.length; j++) {
                    if (frame[i + j] != part[j]) {
                        continue outer;
                    }
                }
                return true;
            }
            return false;
        }

        private static void close(Socket a, Socket b) {
            try {
                a.close();
                b.close();
            } catch (IOException e) {
                // closed already
            }
        }

        @Override
        public void close() throws IOException {
            listener.close();
            for (Socket s : sockets) {
                s.close();
            }
        }
    }
}
