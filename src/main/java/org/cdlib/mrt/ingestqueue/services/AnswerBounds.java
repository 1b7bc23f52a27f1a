package org.cdlib.mrt.ingestqueue.services;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.net.URISyntaxException;
import java.time.Duration;
import org.apache.camel.component.http.HttpClientConfigurer;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.concurrent.Cancellable;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.MessageConstraintException;
import org.apache.hc.core5.http.io.SocketConfig;
import org.apache.hc.core5.http.io.entity.HttpEntityWrapper;
import org.apache.hc.core5.util.Timeout;
import org.cdlib.mrt.ingestqueue.fetch.AnswerLimitException;
import org.cdlib.mrt.ingestqueue.fetch.BoundedHeads;
import org.cdlib.mrt.ingestqueue.fetch.Watch;

/**
 * The bounds of every answer an outside service gives to the routes' camel-http calls (EZID,
 * storage, inventory, and the callback, whose URL a depositor's profile names): at most
 * {@code ingest.services.max-header-count} header lines of {@code ingest.services.max-line-length}
 * bytes (HttpClient's own limits, on the connections of the one connection manager every
 * endpoint shares), the answer's head within {@code headTimeout} in total (a server that trickles
 * its head would otherwise hold a worker for as long as it likes), and a body of at most
 * {@code ingest.services.max-answer-bytes} (Camel keeps an answer's body in memory). A breach
 * fails the call with an {@link AnswerLimitException} naming the limit, which is never sent again
 * (routes/error-handling.yaml: a {@code FetchException}).
 */
public final class AnswerBounds implements HttpClientConfigurer {
    private final int maxHeaderCount;
    private final int maxLineLength;
    private final long maxAnswerBytes;
    private final Duration headTimeout;

    public AnswerBounds(int maxHeaderCount, int maxLineLength, long maxAnswerBytes, Duration headTimeout) {
        if (maxHeaderCount < 1 || maxLineLength < 256 || maxAnswerBytes < 1) {
            throw new IllegalArgumentException("ingest.services.max-header-count (" + maxHeaderCount
                    + ") and ingest.services.max-answer-bytes (" + maxAnswerBytes + ") must be positive, "
                    + "ingest.services.max-line-length (" + maxLineLength + ") at least 256");
        }
        this.maxHeaderCount = maxHeaderCount;
        this.maxLineLength = maxLineLength;
        this.maxAnswerBytes = maxAnswerBytes;
        this.headTimeout = headTimeout;
    }

    /**
     * The connections camel-http's endpoints share, their heads bounded; sized and timed as camel-http's own would be.
     */
    public PoolingHttpClientConnectionManager connections(int maxTotal, int maxPerRoute, long soTimeoutMillis) {
        return PoolingHttpClientConnectionManagerBuilder.create()
                .setConnectionFactory(BoundedHeads.connections(maxHeaderCount, maxLineLength))
                .setDefaultSocketConfig(SocketConfig.custom()
                        .setSoTimeout(Timeout.ofMilliseconds(soTimeoutMillis))
                        .build())
                .setMaxConnTotal(maxTotal)
                .setMaxConnPerRoute(maxPerRoute)
                .build();
    }

    @Override
    public void configureHttpClient(HttpClientBuilder builder) {
        builder.addExecInterceptorFirst("answer-bounds", (request, scope, chain) -> {
            String call = call(request);
            Cancellable exchange = scope.originalRequest instanceof Cancellable c ? c : () -> {
                scope.execRuntime.discardEndpoint();
                return true;
            };
            ClassicHttpResponse r;
            try (Watch watch = Watch.cancelling(exchange, headTimeout.toNanos())) {
                try {
                    r = chain.proceed(request, scope);
                } catch (MessageConstraintException e) {
                    throw AnswerLimitException.of(call, e, maxHeaderCount, maxLineLength, "ingest.services");
                } catch (IOException e) {
                    if (watch.fired()) {
                        throw new SocketTimeoutException("no answer's head within " + headTimeout
                                + " in all (camel.component.http.response-timeout)");
                    }
                    throw e;
                }
            }
            HttpEntity body = r.getEntity();
            if (body != null) {
                if (body.getContentLength() > maxAnswerBytes) {
                    exchange.cancel(); // not read, nor drained by closing
                    try {
                        r.close();
                    } catch (IOException e) {
                        // the connection is gone, as meant
                    }
                    throw tooLarge(call, "the answer announces " + body.getContentLength() + " bytes, more than "
                            + maxAnswerBytes);
                }
                r.setEntity(new Bounded(body, call, exchange));
            }
            return r;
        });
    }

    private static String call(ClassicHttpRequest request) {
        try {
            return request.getMethod() + " " + request.getUri();
        } catch (URISyntaxException e) {
            return request.getMethod() + " " + request.getRequestUri();
        }
    }

    private AnswerLimitException tooLarge(String call, String what) {
        return new AnswerLimitException(call + ": " + what + " (limit ingest.services.max-answer-bytes)");
    }

    /** An answer's body that refuses to be read past the limit. */
    private final class Bounded extends HttpEntityWrapper {
        private final String call;
        private final Cancellable exchange;

        Bounded(HttpEntity body, String call, Cancellable exchange) {
            super(body);
            this.call = call;
            this.exchange = exchange;
        }

        @Override
        public InputStream getContent() throws IOException {
            return new FilterInputStream(super.getContent()) {
                private long n;
                private boolean ended;

                @Override
                public int read() throws IOException {
                    int b = super.read();
                    ended |= b < 0;
                    count(b < 0 ? 0 : 1);
                    return b;
                }

                @Override
                public int read(byte[] buf, int off, int len) throws IOException {
                    int got = super.read(buf, off, len);
                    ended |= got < 0;
                    count(Math.max(got, 0));
                    return got;
                }

                /**
                 * A body left unread is cut: HttpClient would read the rest (maybe without end) to keep the connection.
                 */
                @Override
                public void close() throws IOException {
                    if (ended) {
                        super.close();
                        return;
                    }
                    exchange.cancel();
                    try {
                        super.close();
                    } catch (IOException e) {
                        // the connection is gone, as meant
                    }
                }

                private void count(int got) throws IOException {
                    n += got;
                    if (n > maxAnswerBytes) {
                        exchange.cancel(); // the rest is not read: closing would drain it
                        throw tooLarge(call, "the answer's body is larger than " + maxAnswerBytes + " bytes");
                    }
                }
            };
        }

        @Override
        public void writeTo(OutputStream out) throws IOException {
            try (InputStream in = getContent()) {
                in.transferTo(out);
            }
        }

        @Override
        public boolean isStreaming() {
            return true;
        }

        @Override
        public boolean isRepeatable() {
            return false;
        }
    }
}
