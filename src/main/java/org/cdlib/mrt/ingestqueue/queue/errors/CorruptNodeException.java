package org.cdlib.mrt.ingestqueue.queue.errors;


/** A znode whose content is not what the design says it holds (e.g. garbage JSON). */
public class CorruptNodeException extends QueueException {
    private final String path;

    public CorruptNodeException(String path, String problem) {
        super("znode " + path + " is corrupt: " + problem);
        this.path = path;
    }

    public String path() {
        return path;
    }
}
