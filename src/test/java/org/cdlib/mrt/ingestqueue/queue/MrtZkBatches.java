package org.cdlib.mrt.ingestqueue.queue;

import org.apache.zookeeper.ZooKeeper;
import org.cdlib.mrt.ingestqueue.testing.merritt.MrtZk;

/**
 * The mrt-zk stand-in's batch calls under their old name, kept only for the api/ tests being moved by
 * another engineer at the same time; other tests call {@link MrtZk} itself. Remove with their next move.
 */
public final class MrtZkBatches {
    private MrtZkBatches() {
    }

    public static String createBatch(ZooKeeper zk, String uuid, String submission) throws Exception {
        return new MrtZk(zk).createBatch(uuid, submission);
    }

    public static String submission(String uuid, String file) {
        return MrtZk.submission(uuid, file);
    }
}
