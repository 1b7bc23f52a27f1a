package org.cdlib.mrt.ingestqueue.fetch;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.CancellationException;
import java.util.function.Function;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.SystemDefaultDnsResolver;
import org.apache.hc.client5.http.classic.ExecChain;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.ChainElement;
import org.apache.hc.client5.http.impl.classic.CloseableHttpResponse;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.MessageConstraintException;
import org.apache.hc.core5.http.io.SocketConfig;
import org.apache.hc.core5.util.Timeout;

/**
 * The HTTP client depositors' URLs are fetched with: pooled connections, each checked by the
 * {@link AddressPolicy} on the address it is about to use, and redirects followed here hop by hop
 * (at most {@link #MAX_REDIRECTS}, never from https to http), each hop checked by the
 * {@link UrlPolicy}. It sends one request and answers with its response or a
 * {@link StatusException}; retrying is left to {@link Retries}.
 * <p>
 * Its pool holds at most {@code perHost} connections to one host ({@code total} in all); a request
 * beyond waits for one. Nothing is written once the service stops ({@link StopGate}) or the run
 * is cancelled, checked after the connection is leased and open, just before the first byte.
 */
final class CheckedClient {
    static final int MAX_REDIRECTS = 5;

    private final UrlPolicy policy;
    private final CloseableHttpClient client;
    private final int maxHeaderCount;
    private final int maxLineLength;
    private final StopGate gate;

    /**
     * @param leaseWait the longest wait for a pooled connection: the exchange's own bound (the read timeout for a
     *                  download's head, the probe timeout for a small read), whose watch ends the wait as a timeout
     *                  at the same moment; HttpClient's own default (3 minutes) would end it first, as an
     *                  {@link InterruptedIOException} that reads as an interrupt
     */
    CheckedClient(FetchSettings settings, UrlPolicy policy, int perHost, int total, Duration leaseWait,
            StopGate gate) {
        this.policy = policy;
        this.gate = gate;
        this.maxHeaderCount = settings.answers().maxHeaderCount();
        this.maxLineLength = settings.answers().maxLineLength();
        AddressPolicy addresses = settings.addresses();
        PoolingHttpClientConnectionManager connections = PoolingHttpClientConnectionManagerBuilder.create()
                .setDnsResolver(new CheckedResolver(addresses))
                .setDefaultSocketConfig(SocketConfig.custom()
                        .setSoTimeout(Timeout.ofMilliseconds(settings.readTimeout().toMillis())).build())
                .setMaxConnTotal(total)
                .setMaxConnPerRoute(perHost)
                .setConnectionFactory(BoundedHeads.connections(maxHeaderCount, maxLineLength))
                .build();
        this.client = HttpClients.custom()
                .setConnectionManager(connections)
                .addExecInterceptorBefore(ChainElement.MAIN_TRANSPORT.name(), "first-byte", this::firstByte)
                .setDefaultRequestConfig(RequestConfig.custom()
                        .setConnectTimeout(Timeout.ofMilliseconds(settings.connectTimeout().toMillis()))
                        .setResponseTimeout(Timeout.ofMilliseconds(settings.readTimeout().toMillis()))
                        .setConnectionRequestTimeout(Timeout.ofMilliseconds(leaseWait.toMillis()))
                        .setRedirectsEnabled(false)
                        .build())
                .disableAutomaticRetries() // retried here, with the backoff
                .disableRedirectHandling() // followed here, each hop checked
                .disableContentCompression() // the bytes as served: sizes and digests are of them
                .disableCookieManagement()
                .disableAuthCaching()
                .build();
    }

    /**
     * The connection is leased and open, the request's first byte next: not written when the run
     * was cancelled (its session lost, its stop out of time) or the service began to stop.
     */
    private ClassicHttpResponse firstByte(ClassicHttpRequest request, ExecChain.Scope scope, ExecChain chain)
            throws IOException, HttpException {
        if (Thread.currentThread().isInterrupted() || RunCancelled.here()) {
            throw new InterruptedIOException("not sent: the run was cancelled");
        }
        gate.send((StopGate.Ticket) scope.clientContext.getAttribute(StopGate.TICKET));
        return chain.proceed(request, scope);
    }

    /**
     * Checks the addresses a connection is about to be made to: the ones the name resolved to for
     * this very connection (HttpClient connects to what this returns), so that a name that
     * resolves differently the second time gains nothing.
     */
    private record CheckedResolver(AddressPolicy addresses) implements DnsResolver {
        @Override
        public InetAddress[] resolve(String host) throws UnknownHostException {
            return SystemDefaultDnsResolver.INSTANCE.resolve(host);
        }

        @Override
        public String resolveCanonicalHostname(String host) throws UnknownHostException {
            return SystemDefaultDnsResolver.INSTANCE.resolveCanonicalHostname(host);
        }

        @Override
        public List<InetSocketAddress> resolve(String host, int port) throws UnknownHostException {
            List<InetSocketAddress> all = DnsResolver.super.resolve(host, port);
            for (InetSocketAddress a : all) {
                addresses.checkConnect(host, a);
            }
            return all;
        }
    }

    /** A status that ends an attempt; 5xx and 429 may go better next time. */
    static final class StatusException extends IOException {
        final int status;

        StatusException(int status) {
            super("HTTP " + status);
            this.status = status;
        }

        boolean retryable() {
            return status >= 500 || status == 429;
        }
    }

    /**
     * A response and the watch on its exchange's deadline. {@link #failure} tells what ended a read
     * of it: the deadline, a broken limit, or the I/O error itself.
     */
    final class Answer implements AutoCloseable {
        final CloseableHttpResponse response;
        final URI at;
        private final HttpUriRequestBase request;
        private final Watch watch;
        private final Deadline deadline;
        private boolean read;

        private Answer(
                CloseableHttpResponse response, URI at, HttpUriRequestBase request, Watch watch, Deadline deadline) {
            this.response = response;
            this.at = at;
            this.request = request;
            this.watch = watch;
            this.deadline = deadline;
        }

        /** The body was read to its end (or there is none): the connection may serve the next request. */
        void read() {
            read = true;
        }

        /** The head has come: a download's body is bounded by the minimum rate from here, not the deadline. */
        void headDone() {
            watch.close();
        }

        /** What {@code e}, raised while reading the body, means: the deadline's cut, a limit, or itself. */
        IOException failure(IOException e) {
            return CheckedClient.this.failure(at, e, watch, deadline);
        }

        /** Whether the deadline cut the exchange short (a body that then ends early is not complete). */
        boolean cut() {
            return watch.fired();
        }

        /**
         * Closing a response reads the rest of its body (to keep the connection): a body not read to
         * its end, which may be endless, is cut instead, its connection dropped.
         */
        @Override
        public void close() throws IOException {
            watch.close();
            if (read) {
                response.close();
            } else {
                closeCut(request, response);
            }
        }
    }

    /**
     * Sends a request made by {@code method} for {@code uri}, following redirects itself: each
     * hop's URL is checked by the policy (and its connection by the address policy); https to
     * http and more than {@link #MAX_REDIRECTS} hops end with the redirect status. Every hop is
     * cancelled at {@code deadline}; the answer keeps that watch until closed (or its head is done).
     */
    Answer execute(URI uri, Function<URI, HttpUriRequestBase> method, Deadline deadline) throws IOException {
        URI at = uri;
        for (int hop = 0; ; hop++) {
            if (deadline.passed()) {
                throw deadline.exceeded(at);
            }
            HttpUriRequestBase request = method.apply(at);
            StopGate.Ticket ticket = gate.enter(request);
            if (gate.refused(ticket)) {
                throw new StoppingException(request.getMethod() + " " + at);
            }
            HttpClientContext context = HttpClientContext.create();
            context.setAttribute(StopGate.TICKET, ticket);
            Watch watch = Watch.cancelling(request, deadline.remainingNanos());
            CloseableHttpResponse r;
            try {
                r = client.execute(request, context);
            } catch (AddressPolicy.RefusedAddressException e) {
                watch.close();
                throw new FetchException(at + ": " + e.getMessage());
            } catch (IOException | RuntimeException e) {
                watch.close();
                if (gate.refused(ticket)) { // the wait for a connection cancelled, or the first byte refused
                    throw new StoppingException(request.getMethod() + " " + at);
                }
                if (e instanceof CancellationException || Thread.currentThread().isInterrupted()) {
                    // the run's interrupt ended the wait for a connection (HttpClient's lease answers with this)
                    InterruptedIOException interrupted = new InterruptedIOException(at + ": not sent: interrupted");
                    interrupted.initCause(e);
                    throw interrupted;
                }
                if (e instanceof RuntimeException re) {
                    throw re;
                }
                throw failure(at, (IOException) e, watch, deadline);
            } finally {
                gate.leave(ticket);
            }
            int code = r.getCode();
            if (code / 100 != 3 || code == 304) {
                return new Answer(r, at, request, watch, deadline);
            }
            watch.close();
            Header location = r.getFirstHeader("Location");
            closeCut(request, r); // the redirect's body is not read (nor drained)
            if (location == null || hop >= MAX_REDIRECTS) {
                throw new StatusException(code);
            }
            URI next;
            try {
                next = at.resolve(location.getValue().strip().replace(" ", "%20"));
            } catch (IllegalArgumentException e) {
                throw new FetchException(
                        at + ": HTTP " + code + " to an invalid Location '" + location.getValue() + "'");
            }
            if ("https".equalsIgnoreCase(at.getScheme()) && !"https".equalsIgnoreCase(next.getScheme())) {
                throw new StatusException(code);
            }
            String scheme = next.getScheme() == null ? "" : next.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https")) {
                throw new FetchException(
                        at + ": HTTP " + code + " redirects to " + next + ", which is not an http(s) URL");
            }
            try {
                next = policy.check(next.toString());
            } catch (FetchException e) {
                throw new FetchException(at + ": redirected to " + e.getMessage());
            }
            at = next;
        }
    }

    /**
     * Drops the connection of a response whose body is not read, then closes it (which then fails, told by nothing).
     */
    private static void closeCut(HttpUriRequestBase request, CloseableHttpResponse response) {
        request.cancel();
        try {
            response.close();
        } catch (IOException e) {
            // the connection is gone, as meant
        }
    }

    private IOException failure(URI at, IOException e, Watch watch, Deadline deadline) {
        if (watch.fired()) {
            return deadline.exceeded(at); // the cancel's own error (aborted, socket closed) says nothing
        }
        if (e instanceof MessageConstraintException limit) {
            return AnswerLimitException.of(at.toString(), limit, maxHeaderCount, maxLineLength, "ingest.download");
        }
        return e;
    }

    static OptionalLong length(CloseableHttpResponse r) {
        Header h = r.getFirstHeader("Content-Length");
        if (h == null) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(h.getValue().strip()));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }
}
