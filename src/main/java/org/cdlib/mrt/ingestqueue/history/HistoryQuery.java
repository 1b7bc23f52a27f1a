package org.cdlib.mrt.ingestqueue.history;

import java.time.Instant;

/**
 * A search of finished work. {@code text}: an ARK ({@code ark:/...}), a local id or title words
 * (every word must be in the title); {@code submitter} and the range {@code from} (inclusive) ..
 * {@code to} (exclusive) of when the work finished narrow it; each may be null. {@code before}: an
 * item id to go on below (the previous page's last). At least one of text, submitter, from or to.
 */
public record HistoryQuery(String text, String submitter, Instant from, Instant to, String before, int limit) {
    public HistoryQuery {
        text = text == null || text.isBlank() ? null : text.strip();
        submitter = submitter == null || submitter.isBlank() ? null : submitter.strip();
        limit = Math.max(1, Math.min(limit, HistoryStore.MAX_RESULTS));
        if (text == null && submitter == null && from == null && to == null) {
            throw new IllegalArgumentException("a history search needs text, a submitter or a date range");
        }
    }
}
