package org.cdlib.mrt.ingestqueue.services;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/**
 * Calls to one outside service (EZID, storage, inventory, a callback): timeouts, a bounded
 * number of retries with backoff on connection errors and 5xx, and errors that name the service,
 * the URL and the answer.
 */
public final class HttpService {
    private final String name;
    private final HttpClient client;
    private final Duration timeout;
    private final int retries;
    private final Duration backoff;

    public HttpService(String name, Duration connectTimeout, Duration timeout, int retries, Duration backoff) {
        this.name = name;
        this.client = HttpClient.newBuilder().connectTimeout(connectTimeout).followRedirects(HttpClient.Redirect.NORMAL).build();
        this.timeout = timeout;
        this.retries = retries;
        this.backoff = backoff;
    }

    public static HttpService of(String name) {
        return new HttpService(name, Duration.ofSeconds(10), Duration.ofMinutes(2), 3, Duration.ofSeconds(1));
    }

    public HttpService withRetries(int n, Duration firstBackoff) {
        return new HttpService(name, Duration.ofSeconds(10), timeout, n, firstBackoff);
    }

    public HttpService withTimeout(Duration t) {
        return new HttpService(name, Duration.ofSeconds(10), t, retries, backoff);
    }

    /** A request builder for {@code uri} with Basic auth from the URI's user info, which is then dropped. */
    public HttpRequest.Builder request(URI uri) {
        HttpRequest.Builder b;
        if (uri.getUserInfo() != null) {
            URI bare = URI.create(uri.toString().replace(uri.getRawUserInfo() + "@", ""));
            b = HttpRequest.newBuilder(bare);
            b.header("Authorization", basic(uri.getUserInfo()));
        } else {
            b = HttpRequest.newBuilder(uri);
        }
        return b.timeout(timeout);
    }

    public static String basic(String userInfo) {
        return "Basic " + Base64.getEncoder().encodeToString(userInfo.getBytes(StandardCharsets.UTF_8));
    }

    /** Sends, retrying connection errors, timeouts and 5xx; returns the final answer (2xx or 4xx). */
    public HttpResponse<String> send(HttpRequest request) throws ServiceException, InterruptedException {
        return send(request, true);
    }

    /**
     * Sends a request that must not be applied twice (a mint, a storage or inventory add): it is
     * sent again only when it provably never left (the connection could not be made); a timeout
     * or a 5xx ends the call, since the service may have applied it, and the job's effect record
     * decides what its next attempt does.
     */
    public HttpResponse<String> sendOnce(HttpRequest request) throws ServiceException, InterruptedException {
        return send(request, false);
    }

    private HttpResponse<String> send(HttpRequest request, boolean idempotent) throws ServiceException, InterruptedException {
        String where = name + " " + request.method() + " " + request.uri();
        Duration wait = backoff;
        for (int attempt = 0; ; attempt++) {
            String problem;
            try {
                HttpResponse<String> r = client.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
                if (r.statusCode() < 500 || !idempotent) {
                    return r;
                }
                problem = "HTTP " + r.statusCode() + answer(r);
            } catch (HttpTimeoutException e) {
                problem = "no answer within " + timeout;
                if (!idempotent && !(e instanceof java.net.http.HttpConnectTimeoutException)) {
                    throw new ServiceException(where + ": " + problem + "; it may have been applied, so it is not sent again");
                }
            } catch (IOException e) {
                problem = "cannot connect (" + (e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName()) + ")";
                if (!idempotent && !(e instanceof java.net.ConnectException)) {
                    throw new ServiceException(where + ": the connection broke (" + (e.getMessage() != null ? e.getMessage()
                            : e.getClass().getSimpleName()) + "); it may have been applied, so it is not sent again");
                }
            }
            if (attempt >= retries) {
                throw new ServiceException(where + ": " + problem + " after " + (attempt + 1) + " attempt(s)");
            }
            Thread.sleep(wait.toMillis()); // backoff between retries of a failing service, not synchronisation
            wait = wait.multipliedBy(2);
        }
    }

    /** Fails unless the answer is the expected status. */
    public static HttpResponse<String> expect(HttpResponse<String> r, int status, String service) throws ServiceException {
        if (r.statusCode() != status) {
            throw new ServiceException(service + " " + r.request().method() + " " + r.request().uri() + ": HTTP "
                    + r.statusCode() + answer(r));
        }
        return r;
    }

    static String answer(HttpResponse<String> r) {
        String body = r.body() == null ? "" : r.body().strip();
        if (body.isEmpty()) {
            return "";
        }
        return ": " + (body.length() > 300 ? body.substring(0, 300) + "…" : body);
    }
}
