package org.cdlib.mrt.ingestqueue.services;

import java.util.Locale;
import java.util.Set;
import org.apache.camel.Exchange;
import org.apache.camel.spi.HeaderFilterStrategy;

/**
 * The headers a call to an outside service may carry: those its request half set, never the
 * queue's own ({@code jobId}, {@code batchId}, Camel's). Every answer header is taken in.
 * Set on the camel-http component by {@code ProcessingModule}.
 */
public final class ServiceHeaders implements HeaderFilterStrategy {
    private static final Set<String> SENT = Set.of("authorization", "content-type", "idempotency-key", "accept");

    @Override
    public boolean applyFilterToCamelHeaders(String name, Object value, Exchange exchange) {
        return !SENT.contains(name.toLowerCase(Locale.ROOT));
    }

    @Override
    public boolean applyFilterToExternalHeaders(String name, Object value, Exchange exchange) {
        return false;
    }
}
