package org.cdlib.mrt.ingestqueue.fetch;

import org.apache.hc.client5.http.impl.io.ManagedHttpClientConnectionFactory;
import org.apache.hc.core5.http.config.Http1Config;

/**
 * Connections whose answers' heads are bounded by HttpClient's own limits: at most
 * {@code maxHeaderCount} header lines of at most {@code maxLineLength} bytes each (a folded
 * header counts whole), so a head is never larger than their product. Without them HttpClient
 * keeps every header line a server sends: endless lines filled the heap. A head beyond them
 * fails the exchange with a {@code MessageConstraintException}, told by {@link AnswerLimitException#of}.
 */
public final class BoundedHeads {
    private BoundedHeads() {
    }

    public static ManagedHttpClientConnectionFactory connections(int maxHeaderCount, int maxLineLength) {
        return ManagedHttpClientConnectionFactory.builder()
                .http1Config(Http1Config.custom()
                        .setMaxHeaderCount(maxHeaderCount)
                        .setMaxLineLength(maxLineLength)
                        .setMaxEmptyLineCount(10)
                        .build())
                .build();
    }
}
