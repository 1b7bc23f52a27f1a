package org.cdlib.mrt.ingestqueue.queue.model;

import org.cdlib.mrt.ingestqueue.queue.errors.CorruptNodeException;

/**
 * A job or batch whose nodes cannot be read as the design says (missing, not JSON, out of
 * range). Reads of many items return the healthy ones and name these, so one damaged node
 * harms no other item; an operator repairs or deletes it through the API.
 */
public record Damaged(String kind, String id, String path, String problem) {
    public static Damaged of(String kind, String id, CorruptNodeException e) {
        return new Damaged(kind, id, e.path(), e.getMessage());
    }
}
