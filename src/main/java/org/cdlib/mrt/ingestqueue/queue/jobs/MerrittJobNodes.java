package org.cdlib.mrt.ingestqueue.queue.jobs;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.Op;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * mrt-zk's description of a job's storage add and inventory record ({@code Job.setStore},
 * {@code Job.setInventory}): {@code /jobs/JID/store} {@code {manifest_url, mode, delete}} with
 * {@code mode} {@code add/<node>/<ARK>} or {@code update/<node>/<ARK>} and {@code delete} the
 * deleted files, one {@code producer/...} line each (mrt-ingest's {@code HandlerTransfer});
 * {@code /jobs/JID/inventory} {@code {manifest_url, mode}} with storage's manifest URL of the
 * object (mrt-ingest's {@code ProcessConsumer}). Written with the effect records they belong to,
 * so Merritt's Admin Tool and consumers see the same as ours; no step here reads them back.
 */
public final class MerrittJobNodes {
    private MerrittJobNodes() {
    }

    static Op store(String jid, String manifestUrl, String mode, List<String> deleted, boolean exists) {
        Map<String, String> node = new LinkedHashMap<>();
        node.put("manifest_url", manifestUrl);
        node.put("mode", mode);
        node.put("delete", deleteLines(deleted));
        return write(QueuePaths.jobNode(jid, "store"), node, exists);
    }

    /**
     * One line per deleted file; a list past the node's limit is cut, saying how many more (all are
     * in system/mrt-delete.txt).
     */
    public static String deleteLines(List<String> deleted) {
        StringBuilder b = new StringBuilder();
        int left = QueueLimits.NODE_BYTES - 4096; // room for the URL and mode
        for (int i = 0; i < deleted.size(); i++) {
            String line = deleted.get(i) + "\n";
            left -= QueueLimits.utf8Length(line) + 8; // JSON may escape a little
            if (left < 0) {
                return b.append("# ... and ").append(deleted.size() - i).append(" more, in system/mrt-delete.txt\n")
                        .toString();
            }
            b.append(line);
        }
        return b.toString();
    }

    static Op inventory(String jid, String manifestUrl, boolean exists) {
        Map<String, String> node = new LinkedHashMap<>();
        node.put("manifest_url", manifestUrl);
        node.put("mode", "");
        return write(QueuePaths.jobNode(jid, "inventory"), node, exists);
    }

    /**
     * Only the job's lock holder writes these (fenced with it): created, or overwritten when it
     * {@code exists} (a guess from the effect records: a wrong one fails its transaction whole,
     * and the other form is sent; {@link EffectsNode}, the record written with a node).
     */
    private static Op write(String path, Map<String, String> node, boolean exists) {
        byte[] data = QueueLimits.checkNode(path, QueueJson.write(node));
        return exists ? ZooKeeperCalls.setData(path, data, -1) : ZooKeeperCalls.create(path, data);
    }
}
