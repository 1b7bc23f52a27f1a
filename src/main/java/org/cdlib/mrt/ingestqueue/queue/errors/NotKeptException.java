package org.cdlib.mrt.ingestqueue.queue.errors;

/**
 * A finished batch whose removal was asked while history could not take it (its database down or
 * full): nothing was removed; the batch stays in ZooKeeper until history has it.
 */
public final class NotKeptException extends QueueException {
    public NotKeptException(String message) {
        super(message);
    }
}
