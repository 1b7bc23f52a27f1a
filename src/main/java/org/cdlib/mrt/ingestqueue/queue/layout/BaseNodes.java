package org.cdlib.mrt.ingestqueue.queue.layout;

import java.util.ArrayList;
import java.util.List;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/** The fixed nodes of the layout: folders, state folders, counters; the old batch index moved once. */
public final class BaseNodes {
    private BaseNodes() {
    }

    /** Creates what is missing; safe on every start and beside mrt-zk hosts. */
    public static void create(ZooKeeperCalls zk) {
        List<String> paths = new ArrayList<>(List.of(
                QueuePaths.BATCHES,
                QueuePaths.JOBS,
                QueuePaths.JOB_STATES,
                QueuePaths.IDS,
                QueuePaths.COLLECTION_HOLDS,
                QueuePaths.BATCH_HOLDS,
                QueuePaths.BATCH_RELEASES,
                "/locks/queue",
                QueuePaths.BATCH_STATES,
                QueuePaths.OBJECT_LOCKS,
                QueuePaths.BATCH_UUIDS,
                QueuePaths.BATCH_NUMBERS,
                QueuePaths.BATCH_DEPOSITORS));
        for (JobState s : JobState.values()) {
            if (s != JobState.DELETED) {
                paths.add(QueuePaths.jobState(s));
            }
        }
        for (BatchState s : BatchState.values()) {
            paths.add(QueuePaths.batchIndex(s));
        }
        String chroot = zk.chroot();
        if (!chroot.isEmpty() && !zk.exists("/")) { // "/" is the chroot itself: without it every create fails as NoNode
            throw new QueueException(
                    "the chroot " + chroot + " named in zookeeper.connect does not exist in ZooKeeper: "
                            + "create it there (zkCli: create " + chroot + ") or correct zookeeper.connect");
        }
        try {
            for (String p : paths) {
                if (!zk.exists(p)) {
                    zk.createPersistent(p, ZooKeeperCalls.EMPTY);
                }
            }
            for (String counter : List.of(QueuePaths.BATCH_COUNTER, QueuePaths.JOB_COUNTER, QueuePaths.SPACE_ADMITTED,
                    QueuePaths.SPACE_RELEASED)) {
                if (!zk.exists(counter)) {
                    zk.createPersistent(counter, QueueJson.text(0));
                }
            }
            new WireMigration(zk).moveBatchIndex();
        } catch (Exception e) {
            throw new QueueException("cannot create the queue's base nodes: " + e.getMessage(), e);
        }
    }
}
