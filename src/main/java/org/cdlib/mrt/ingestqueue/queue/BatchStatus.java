package org.cdlib.mrt.ingestqueue.queue;

import java.time.Instant;

/**
 * {@code /batches/BID/status}.
 *
 * @param jobsCreated  how many jobs Batch Pending has created so far: creation of a large batch
 *                     takes several transactions and resumes from here after a crash
 * @param errorMessage why the batch could not be turned into jobs, if it could not
 */
public record BatchStatus(String status, String lastModified, int jobsCreated, String errorMessage) {

    public static BatchStatus pending() {
        return new BatchStatus(BatchState.PENDING.wire(), Instant.now().toString(), 0, null);
    }

    public BatchState state() {
        return BatchState.fromWire(status);
    }
}
