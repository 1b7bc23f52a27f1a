package org.cdlib.mrt.ingestqueue.bench;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * What ZooKeeper itself can do for the queue's write pattern: each transition is one 5-op
 * {@code multi()} shaped like the queue's (status set with its version, old state reference
 * deleted, new one created, the batch's processing category bumped, a check on the job node),
 * sent with the raw asynchronous API, {@code inFlight} at a time. No reads, no locks, no
 * listing: the ceiling the queue's own transitions are compared with.
 */
final class CeilingProbe {
    static final int STATES = 8; // pending … completed: 7 transitions per job

    private CeilingProbe() {
    }

    /** Transitions per second for {@code jobs} jobs walked through 7 transitions, {@code inFlight} multis pipelined. */
    static double run(CuratorFramework client, int jobs, int inFlight) throws Exception {
        String root = "/ceiling-" + System.nanoTime();
        ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
        client.create().forPath(root);
        client.create().forPath(root + "/batch-processing");
        for (int s = 0; s < STATES; s++) {
            client.create().forPath(root + "/s" + s);
        }
        client.create().forPath(root + "/jobs");
        List<Op> setup = new ArrayList<>();
        for (int j = 0; j < jobs; j++) {
            setup.add(Op.create(root + "/jobs/j" + j, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
            setup.add(Op.create(
                    root + "/jobs/j" + j + "-status", status(0), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
            setup.add(
                    Op.create(root + "/s0/05-j" + j, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
            if (setup.size() >= 300) {
                zk.multi(setup);
                setup.clear();
            }
        }
        if (!setup.isEmpty()) {
            zk.multi(setup);
        }
        Semaphore window = new Semaphore(inFlight);
        AtomicInteger errors = new AtomicInteger();
        long t0 = System.nanoTime();
        for (int s = 0; s < STATES - 1; s++) {
            CountDownLatch round = new CountDownLatch(jobs);
            for (int j = 0; j < jobs; j++) {
                String job = root + "/jobs/j" + j;
                List<Op> ops = List.of(
                        Op.setData(job + "-status", status(s + 1), s),
                        Op.delete(root + "/s" + s + "/05-j" + j, -1),
                        Op.create(root + "/s" + (s + 1) + "/05-j" + j, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE,
                                CreateMode.PERSISTENT),
                        Op.setData(root + "/batch-processing", new byte[0], -1),
                        Op.check(job, -1));
                window.acquire();
                zk.multi(ops, (rc, path, ctx, results) -> {
                    if (rc != KeeperException.Code.OK.intValue()) {
                        errors.incrementAndGet();
                    }
                    window.release();
                    round.countDown();
                }, null);
            }
            if (!round.await(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("the ceiling probe did not finish");
            }
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (errors.get() > 0) {
            System.out.printf("  ceiling probe: %d multis failed%n", errors.get());
        }
        client.delete().deletingChildrenIfNeeded().forPath(root); // not timed
        return jobs * (STATES - 1) / seconds;
    }

    private static byte[] status(int state) {
        return ("{\"status\":\"s" + state + "\",\"last_successful_status\":null,\"last_modification_date\":\""
                + Instant.now() + "\",\"retry_count\":0,\"error_message\":null}").getBytes();
    }
}
