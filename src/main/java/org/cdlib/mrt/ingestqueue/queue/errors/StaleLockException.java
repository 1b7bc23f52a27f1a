package org.cdlib.mrt.ingestqueue.queue.errors;


/**
 * The writer no longer owns what it is changing: its lock or session is gone, or someone
 * else changed the node first. Nothing was written.
 */
public class StaleLockException extends QueueException {
    public StaleLockException(String message) {
        super(message);
    }
}
