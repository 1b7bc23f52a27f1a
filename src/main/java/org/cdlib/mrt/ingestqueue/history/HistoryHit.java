package org.cdlib.mrt.ingestqueue.history;

/**
 * One finished batch or job a search found: {@code kind} is {@code batch} or {@code job};
 * {@code matched} says by what (ARK, local id, title, submitter, date).
 */
public record HistoryHit(String kind, String id, String batchId, String matched, String state, String title,
                         String finishedAt) {
}
