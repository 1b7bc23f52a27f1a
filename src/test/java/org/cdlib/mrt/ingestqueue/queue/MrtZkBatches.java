package org.cdlib.mrt.ingestqueue.queue;

import org.apache.zookeeper.ZooKeeper;

/** The mrt-zk stand-in's batch calls ({@link MrtZk}), for tests outside this package. */
public final class MrtZkBatches {
    private MrtZkBatches() {
    }

    /** mrt-zk's {@code Batch.createBatch}: the sequential root, its uuid, submission and Pending status. */
    public static String createBatch(ZooKeeper zk, String uuid, String submission) throws Exception {
        return new MrtZk(zk).createBatch(uuid, submission);
    }

    /** A submission as mrt-ingest's {@code batchProcess.HandlerSubmit} writes it. */
    public static String submission(String uuid, String file) {
        return "{\"submitter\":\"merritt/Merritt Depositor\",\"filename\":\"" + file + "\","
                + "\"notificationFormat\":\"xml\",\"size\":5,\"profile\":\"demo_content\",\"update\":false,"
                + "\"submissionDate\":\"Tue Nov 24 10:00:00 UTC 2026\","
                + "\"batchID\":\"" + uuid + "\",\"type\":\"file\",\"title\":\"A greeting\",\"creator\":\"Someone\","
                + "\"localID\":\"greeting-1\"}";
    }
}
