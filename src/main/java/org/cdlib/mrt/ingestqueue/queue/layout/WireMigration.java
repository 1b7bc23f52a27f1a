package org.cdlib.mrt.ingestqueue.queue.layout;

import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.Op;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A queue written before this build spoke mrt-zk's wire format, brought to it in place. The batch
 * index moves from {@code /batches/states} (which mrt-zk would take for a batch named "states") to
 * {@link QueuePaths#BATCH_STATES}, at start, in transactions of at most {@link #CHUNK} entries that
 * each create the new entries and delete the old ones, so a crash in between leaves every batch
 * indexed once and the next start goes on. The nodes' values ({@code pending} → {@code Pending},
 * {@code primary} → {@code primary_id} …) are read in either form and rewritten by fsck's repair
 * ({@code old-wire-format}) under each job's or batch's lock.
 */
public final class WireMigration {
    private static final Logger LOG = LoggerFactory.getLogger(WireMigration.class);
    static final int CHUNK = 500;
    private final ZooKeeperCalls zk;

    public WireMigration(ZooKeeperCalls zk) {
        this.zk = zk;
    }

    public void moveBatchIndex() {
        if (!zk.exists(QueuePaths.OLD_BATCH_STATES)) {
            return;
        }
        int moved = 0;
        for (String state : zk.children(QueuePaths.OLD_BATCH_STATES)) {
            String from = QueuePaths.OLD_BATCH_STATES + "/" + state;
            String to = QueuePaths.BATCH_STATES + "/" + state;
            if (!zk.exists(to)) {
                zk.createPersistent(to, ZooKeeperCalls.EMPTY);
            }
            List<String> bids = zk.children(from);
            for (int i = 0; i < bids.size(); i += CHUNK) {
                List<Op> ops = new ArrayList<>();
                for (String bid : bids.subList(i, Math.min(bids.size(), i + CHUNK))) {
                    if (!zk.exists(to + "/" + bid)) {
                        ops.add(ZooKeeperCalls.create(to + "/" + bid, ZooKeeperCalls.EMPTY));
                    }
                    ops.add(Op.delete(from + "/" + bid, -1));
                }
                zk.commitUnlocked("move the batch index of " + state, ops);
                moved += Math.min(bids.size(), i + CHUNK) - i;
            }
            zk.deleteIfExists(from);
        }
        zk.deleteIfExists(QueuePaths.OLD_BATCH_STATES);
        LOG.info("moved the batch index ({} entries) from {} to {}, where mrt-zk does not look for batches", moved,
                QueuePaths.OLD_BATCH_STATES, QueuePaths.BATCH_STATES);
    }
}
