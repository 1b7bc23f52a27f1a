package org.cdlib.mrt.ingestqueue.api.http;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How long and how many connections a client may hold. Vert.x closes a connection silent for
 * {@code ingest.http.idle-timeout} but has no timeout for a request that trickles in: here a
 * connection must deliver a request's headers within {@code ingest.http.header-timeout} of
 * opening (or of its previous answer), and a body must come at
 * {@code ingest.http.min-body-rate} bytes a second at least, judged over each header-timeout;
 * one client address holds at most {@code ingest.http.max-connections-per-address} (trusted
 * proxies are not counted). One timer checks every connection each second.
 */
public final class ConnectionLimits {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionLimits.class);

    /** @param minBodyRate bytes a second a body must come at (0: no minimum) */
    public record Settings(Duration idleTimeout, Duration headerTimeout, long minBodyRate, int perAddress) {
        public static Settings defaults() {
            return new Settings(Duration.ofSeconds(60), Duration.ofSeconds(20), 1024, 64);
        }
    }

    /** One connection: since when it waits for a request's headers (no request), or for its body's next bytes. */
    private static final class Watch {
        volatile long since = System.nanoTime();
        volatile HttpServerRequest request;
        volatile long bytesAtCheck;
    }

    private final Settings settings;
    private final Proxies proxies;
    private final Map<String, Integer> open = new ConcurrentHashMap<>();
    private final Map<HttpConnection, Watch> watched = new ConcurrentHashMap<>();

    public ConnectionLimits(Settings settings, Proxies proxies) {
        this.settings = settings;
        this.proxies = proxies;
    }

    Settings settings() {
        return settings;
    }

    public void start(Vertx vertx) {
        vertx.setPeriodic(1000, t -> sweep());
    }

    /** A new connection: counted against its address (refused past the cap) and watched. */
    public void opened(HttpConnection c) {
        String address = c.remoteAddress() == null ? "-" : c.remoteAddress().hostAddress();
        boolean counted = !proxies.isTrustedPeer(address);
        int n = counted ? open.merge(address, 1, Integer::sum) : 0;
        c.closeHandler(v -> {
            if (counted) {
                open.computeIfPresent(address, (k, m) -> m <= 1 ? null : m - 1);
            }
            watched.remove(c);
        });
        if (n > settings.perAddress()) {
            LOG.info("refused a connection from {}: it holds {} already (ingest.http.max-connections-per-address)",
                    address, n - 1);
            c.close();
            return;
        }
        watched.put(c, new Watch());
    }

    /** A request's headers have come: from now on its body is watched. */
    public void started(HttpServerRequest r) {
        Watch w = watched.get(r.connection());
        if (w != null) {
            w.request = r;
            w.bytesAtCheck = 0;
            w.since = System.nanoTime();
        }
    }

    /** The request was answered: the connection waits for the next request's headers. */
    public void answered(HttpConnection c) {
        Watch w = watched.get(c);
        if (w != null) {
            w.request = null;
            w.since = System.nanoTime();
        }
    }

    private void sweep() {
        long now = System.nanoTime();
        long window = settings.headerTimeout().toNanos();
        watched.forEach((c, w) -> {
            if (now - w.since < window) {
                return;
            }
            HttpServerRequest r = w.request;
            if (r == null) {
                // no request's headers within the timeout (a half-sent request, or a kept-alive connection left idle)
                c.close();
            } else if (!r.isEnded()) {
                long read = r.bytesRead();
                if (settings.minBodyRate() > 0
                        && read - w.bytesAtCheck < settings.minBodyRate() * settings.headerTimeout().toSeconds()) {
                    LOG.info(
                            "closed a connection from {}: its request body came at {} bytes in {} "
                            + "(ingest.http.min-body-rate)",
                            c.remoteAddress(), read - w.bytesAtCheck, settings.headerTimeout());
                    c.close();
                    return;
                }
                w.bytesAtCheck = read;
                w.since = now;
            }
            // a request read whole and being answered (a long answer, the live feed) is left to the idle timeout
        });
    }
}
