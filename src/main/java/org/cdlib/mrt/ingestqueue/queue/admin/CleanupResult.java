package org.cdlib.mrt.ingestqueue.queue.admin;

/** How many ended batches and their jobs a cleanup pass removed. */
public record CleanupResult(int batches, int jobs) {
}
