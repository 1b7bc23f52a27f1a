package org.cdlib.mrt.ingestqueue.queue.errors;


/**
 * A submission that would pass its depositor's cap of open batches
 * ({@code ingest.queue.max-open-batches-per-depositor}): this depositor should submit again when
 * some of their batches have finished; others' submissions are still taken.
 */
public final class DepositorLimitException extends QueueException {
    public DepositorLimitException(String message) {
        super(message);
    }
}
