package org.cdlib.mrt.ingestqueue.queue.zk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.state.ConnectionState;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.errors.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.fsck.Violation;
import org.cdlib.mrt.ingestqueue.queue.hosts.Hosts;
import org.cdlib.mrt.ingestqueue.queue.jobs.MerrittJobNodes;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.Damaged;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Nodes written larger than their kind may hold (anything with ZooKeeper access can): four of
 * 300 KB would make one read answer larger than the client's 512 KB packet limit and drop the
 * connection. Their size is looked at first: they are named damaged, the rest is read, the
 * connection never drops, fsck reports each with its bytes, and the API's delete removes the job.
 */
class OversizedNodesTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    final Path dir = ZK.dir();

    @Test
    void oversizedNodesAreNamedNotReadAndTheRestIsServed() throws Exception {
        QueueStore store = ZK.store(dir);
        String bid = QueueTestSupport.batchWithJobs(store, 6, 5);
        List<String> jids = store.batches().jobs(bid, BatchRef.PROCESSING);
        AtomicInteger drops = drops();
        byte[] big = big();
        List<String> bad = jids.subList(0, 4);
        for (String jid : bad.subList(0, 3)) {
            ZK.client().setData().forPath(QueuePaths.jobStatus(jid), big);
        }
        // read as "none" it would re-mint
        ZK.client().setData().forPath(QueuePaths.jobNode(bad.get(3), "identifiers"), big);

        List<Damaged> named = new ArrayList<>();
        List<Job> loaded = store.jobs().load(jids, named::add);
        assertEquals(jids.subList(4, 6), loaded.stream().map(Job::id).toList(), "the healthy jobs are served");
        assertEquals(bad, named.stream().map(Damaged::id).sorted().toList());
        assertTrue(named.stream().allMatch(d -> d.problem().contains("oversized: 307200 bytes")), named.toString());
        assertThrows(CorruptNodeException.class, () -> store.jobs().load(bad.get(0)), "a single read looks first too");
        assertEquals(0, drops.get(), "no connection loss");

        ConsistencyCheck.Report fsck = new ConsistencyCheck(store).check();
        List<Violation> oversized = fsck.violations().stream().filter(v -> v.kind().equals("oversized")).toList();
        assertEquals(
                List.of(
                        QueuePaths.jobStatus(bad.get(0)),
                        QueuePaths.jobStatus(bad.get(1)),
                        QueuePaths.jobStatus(bad.get(2)),
                        QueuePaths.jobNode(bad.get(3), "identifiers")),
                oversized.stream().map(Violation::path).sorted().toList());
        assertTrue(oversized.get(0).detail().contains("307200 bytes"), oversized.get(0).detail());
        assertEquals(0, drops.get());

        new AdminActions(store, Clock.systemUTC()).deleteJob(bad.get(0), true, "op");
        assertFalse(
                ZK.client().checkExists().forPath(QueuePaths.job(bad.get(0))) != null,
                "deleted through the API's action");
    }

    /**
     * A claim reads the job right behind its lock, blind: two nodes of 300 KB make that answer larger
     * than the client's packet and drop the connection, which pauses every consumer of the host. The
     * dispatch tries a damaged job again every 30 s; from the second claim on it is read with its
     * sizes looked at first, so the connection drops once, not on every claim, and other jobs are served.
     */
    @Test
    void aDamagedJobDropsTheConnectionOnceNotOnEveryClaim() throws Exception {
        QueueStore store = ZK.store(dir);
        String bid = QueueTestSupport.batchWithJobs(store, 2, 5);
        List<String> jids = store.batches().jobs(bid, BatchRef.PROCESSING);
        AtomicInteger drops = drops();
        byte[] big = big();
        String bad = jids.get(0);
        ZK.client().setData().forPath(QueuePaths.jobNode(bad, "configuration"), big);
        ZK.client().setData().forPath(QueuePaths.jobNode(bad, "identifiers"), big);
        for (int claim = 1; claim <= 3; claim++) {
            CorruptNodeException e = assertThrows(
                    CorruptNodeException.class, () -> store.claims().tryLockJob(bad, "t"));
            assertTrue(e.getMessage().contains("oversized: 307200 bytes"), e.getMessage());
            assertEquals(
                    null,
                    ZK.client().checkExists().forPath(QueuePaths.jobLock(bad)),
                    "claim " + claim + " left no lock");
        }
        var healthy = store.claims().tryLockJob(jids.get(1), "t").orElseThrow();
        assertEquals(jids.get(1), healthy.job().id());
        store.moves().unlock(healthy);

        // repaired by hand: claimed and read as any job again
        ZK.client().setData().forPath(QueuePaths.jobNode(bad, "identifiers"),
                ZK.client().getData().forPath(QueuePaths.jobNode(jids.get(1), "identifiers")));
        ZK.client().setData().forPath(QueuePaths.jobNode(bad, "configuration"),
                ZK.client().getData().forPath(QueuePaths.jobNode(jids.get(1), "configuration")));
        var repaired = store.claims().tryLockJob(bad, "t").orElseThrow();
        assertEquals(bad, repaired.job().id());
        store.moves().unlock(repaired);
        assertEquals(
                1,
                drops.get(),
                "the first claim's blind read dropped the connection; the later claims looked at sizes first");
    }

    /** Counts the client's connection losses from now on. */
    static AtomicInteger drops() {
        AtomicInteger drops = new AtomicInteger();
        ZK.client().getConnectionStateListenable().addListener((c, s) -> {
            if (s != ConnectionState.CONNECTED && s != ConnectionState.RECONNECTED) {
                drops.incrementAndGet();
            }
        });
        return drops;
    }

    /** 300 KB: within a packet alone, over it with any other such node. */
    static byte[] big() {
        byte[] big = new byte[300 * 1024];
        Arrays.fill(big, (byte) 'x');
        return big;
    }

    /**
     * Nodes that are legitimately larger than 1 KB are read: a host's published work, a long delete list cut to fit.
     */
    @Test
    void nodesWithinTheirKindsLimitAreRead() throws Exception {
        QueueStore store = ZK.store(dir);
        StringBuilder work = new StringBuilder();
        for (int i = 0; i < Hosts.MAX_LISTED_WORK; i++) {
            work.append(i == 0 ? "" : ",")
                    .append("{\"job_id\":\"jid00000000")
                    .append(i + 10)
                    .append("\",\"since\":\"2026-11-24T10:00:00Z\"}");
        }
        byte[] host =
                ("{\"id\":\"h1\",\"host\":\"a\",\"pid\":1,\"started\":\"2026-11-24T10:00:00Z\","
                    + "\"updated\":\"2026-11-24T10:00:00Z\","
                    + "\"work\":[" + work + "],\"leads\":[]}")
                        .getBytes(StandardCharsets.UTF_8);
        assertTrue(host.length > 2048, "larger than the default 1 KB: " + host.length);
        ZK.client().create().creatingParentsIfNeeded().forPath(QueuePaths.HOSTS + "/h1", host);
        Map<String, Object> h1 = store.hosts().list().stream()
                .filter(m -> "h1".equals(m.get("id")))
                .findFirst()
                .orElseThrow();
        assertEquals(null, h1.get("damaged"));
        assertEquals(Hosts.MAX_LISTED_WORK, ((List<?>) h1.get("work")).size());

        List<String> many = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            many.add("producer/folder/file-" + i + ".txt");
        }
        String lines = MerrittJobNodes.deleteLines(many);
        assertTrue(
                QueueLimits.utf8Length(lines) < QueueLimits.NODE_BYTES - 2048,
                "fits the store node: " + lines.length());
        assertTrue(
                lines.startsWith("producer/folder/file-0.txt\n")
                        && lines.matches("(?s).*# \\.\\.\\. and \\d+ more, in system/mrt-delete.txt\n"),
                lines.substring(lines.length() - 80));
        assertEquals("producer/a\nproducer/b\n", MerrittJobNodes.deleteLines(List.of("producer/a", "producer/b")));
    }
}
