package org.cdlib.mrt.ingestqueue.fetch;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.function.Function;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.SystemDefaultDnsResolver;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.CloseableHttpResponse;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.io.SocketConfig;
import org.apache.hc.core5.util.Timeout;

/**
 * The HTTP client depositors' URLs are fetched with: pooled connections, each checked by the
 * {@link AddressPolicy} on the address it is about to use, and redirects followed here hop by hop
 * (at most {@link #MAX_REDIRECTS}, never from https to http), each hop checked by the
 * {@link UrlPolicy}. It sends one request and answers with its response or a
 * {@link StatusException}; retrying is left to {@link Retries}.
 */
final class CheckedClient {
    static final int MAX_REDIRECTS = 5;

    private final UrlPolicy policy;
    private final CloseableHttpClient client;

    CheckedClient(FetchSettings settings, UrlPolicy policy) {
        this.policy = policy;
        AddressPolicy addresses = settings.addresses();
        PoolingHttpClientConnectionManager connections = PoolingHttpClientConnectionManagerBuilder.create()
                .setDnsResolver(new CheckedResolver(addresses))
                .setDefaultSocketConfig(SocketConfig.custom()
                        .setSoTimeout(Timeout.ofMilliseconds(settings.readTimeout().toMillis())).build())
                .setMaxConnTotal(64)
                .setMaxConnPerRoute(Math.max(8, settings.parallelism() * 2))
                .build();
        this.client = HttpClients.custom()
                .setConnectionManager(connections)
                .setDefaultRequestConfig(RequestConfig.custom()
                        .setConnectTimeout(Timeout.ofMilliseconds(settings.connectTimeout().toMillis()))
                        .setResponseTimeout(Timeout.ofMilliseconds(settings.readTimeout().toMillis()))
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
     * Sends a request made by {@code method} for {@code uri}, following redirects itself: each
     * hop's URL is checked by the policy (and its connection by the address policy); https to
     * http and more than {@link #MAX_REDIRECTS} hops end with the redirect status.
     */
    CloseableHttpResponse execute(URI uri, Function<URI, HttpUriRequestBase> method) throws IOException {
        URI at = uri;
        for (int hop = 0; ; hop++) {
            CloseableHttpResponse r;
            try {
                r = client.execute(method.apply(at));
            } catch (AddressPolicy.RefusedAddressException e) {
                throw new FetchException(at + ": " + e.getMessage());
            }
            int code = r.getCode();
            if (code / 100 != 3 || code == 304) {
                return r;
            }
            Header location = r.getFirstHeader("Location");
            r.close();
            if (location == null || hop >= MAX_REDIRECTS) {
                throw new StatusException(code);
            }
            URI next;
            try {
                next = at.resolve(location.getValue().strip().replace(" ", "%20"));
            } catch (IllegalArgumentException e) {
                throw new FetchException(at + ": HTTP " + code + " to an invalid Location '" + location.getValue() + "'");
            }
            if ("https".equalsIgnoreCase(at.getScheme()) && !"https".equalsIgnoreCase(next.getScheme())) {
                throw new StatusException(code);
            }
            String scheme = next.getScheme() == null ? "" : next.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https")) {
                throw new FetchException(at + ": HTTP " + code + " redirects to " + next + ", which is not an http(s) URL");
            }
            try {
                next = policy.check(next.toString());
            } catch (FetchException e) {
                throw new FetchException(at + ": redirected to " + e.getMessage());
            }
            at = next;
        }
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
