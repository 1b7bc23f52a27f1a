package org.cdlib.mrt.ingestqueue.queue.batches;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.OpResult;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchStatus;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * Each depositor's open batches ({@link QueuePaths#BATCH_DEPOSITORS}), what
 * {@code ingest.queue.max-open-batches-per-depositor} counts. The depositor is the user the
 * submission names ({@code submitter}, Merritt's {@code user/Display Name} counted as
 * {@code user}), not the account that posted it: Merritt's UI posts for everyone. An entry is
 * created with the batch and removed by the move that takes it out of the open states, or its
 * removal; one left by a batch another writer moved or removed is dropped when the depositor
 * reaches the cap ({@link #pruneClosed}), so a stale entry never refuses a submission.
 */
final class BatchDepositors {
    private BatchDepositors() {
    }

    /** The depositor's node name: the submitter's user part, URL-encoded; a long one shortened with its hash. */
    static String name(String submitter) {
        String user = submitter == null ? "" : submitter.strip();
        int slash = user.indexOf('/');
        user = slash < 0 ? user : user.substring(0, slash).strip();
        if (user.isEmpty()) {
            return "%20"; // no submitter named: one shared name, never an empty node name
        }
        String encoded = URLEncoder.encode(user, StandardCharsets.UTF_8).replace("*", "%2A");
        if (encoded.equals(".") || encoded.equals("..")) {
            return encoded.replace(".", "%2E"); // names ZooKeeper refuses
        }
        if (encoded.length() > 120) {
            try {
                byte[] hash = MessageDigest.getInstance("SHA-256").digest(user.getBytes(StandardCharsets.UTF_8));
                return encoded.substring(0, 56) + "~" + HexFormat.of().formatHex(hash);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
        return encoded;
    }

    static String entry(String submitter, String bid) {
        return QueuePaths.depositorBatch(name(submitter), bid);
    }

    /**
     * Drops the entries of the depositor's folder whose batch is gone or no longer open (moved or
     * removed by another writer, or before this build counted). Bounded: the folder holds at most
     * the cap's entries, listed only after its {@code Stat}.
     */
    static int pruneClosed(ZooKeeperCalls zk, String depositor) {
        String folder = QueuePaths.depositorBatches(depositor);
        List<String> bids = zk.children(folder);
        int dropped = 0;
        for (int from = 0; from < bids.size(); from += 200) {
            List<String> chunk = bids.subList(from, Math.min(bids.size(), from + 200));
            List<String> paths = new ArrayList<>();
            for (String bid : chunk) {
                paths.add(QueuePaths.batchStatus(bid));
            }
            Map<String, OpResult> r = zk.readMany(paths);
            for (String bid : chunk) {
                if (!open(bid, r.get(QueuePaths.batchStatus(bid)))
                        && zk.deleteIfExists(QueuePaths.depositorBatch(depositor, bid))) {
                    dropped++;
                }
            }
        }
        return dropped;
    }

    private static boolean open(String bid, OpResult read) {
        if (!(read instanceof OpResult.GetDataResult d)) {
            return false; // gone
        }
        if (ZooKeeperCalls.dataOf(read) == null) {
            return true; // too large to read: damaged, counted until fsck names it
        }
        try {
            return BatchState.OPEN.contains(QueueJson.read(QueuePaths.batchStatus(bid), d.getData(), BatchStatus.class)
                    .state());
        } catch (RuntimeException damaged) {
            return true; // fsck names it; counted meanwhile
        }
    }
}
