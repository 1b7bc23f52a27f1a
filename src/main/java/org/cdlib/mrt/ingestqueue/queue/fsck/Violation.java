package org.cdlib.mrt.ingestqueue.queue.fsck;

/** What the consistency check found at one node, and whether this pass repaired it. */
public record Violation(String kind, String path, String detail, boolean repaired) {
}
