package org.cdlib.mrt.ingestqueue.api.http;

import io.vertx.core.http.HttpServerRequest;
import java.net.InetAddress;
import java.net.UnknownHostException;
import org.cdlib.mrt.ingestqueue.fetch.AddressPolicy;

/**
 * The proxies in front of this service ({@code ingest.http.trusted-proxies}: addresses and CIDRs).
 * Only a request from one of them is believed about the client: {@code X-Forwarded-Proto} (was it
 * https, so the session cookie is {@code Secure}) and {@code X-Forwarded-For} (who the client is,
 * for the login throttle). Vert.x Web's {@code allowForward} believes these headers from anyone,
 * which would let a client choose its own address; hence this.
 */
public final class Proxies {
    public static final String KEY = "ingest.http.trusted-proxies";
    private final AddressPolicy trusted;

    public Proxies(String spec) {
        this.trusted = spec == null || spec.isBlank() ? null : AddressPolicy.parse(spec, KEY);
    }

    public static Proxies none() {
        return new Proxies(null);
    }

    /** Whether the client reached this service over https (itself, or a trusted proxy that says so). */
    public boolean https(HttpServerRequest r) {
        if (r.isSSL()) {
            return true;
        }
        String proto = r.getHeader("X-Forwarded-Proto");
        return proto != null && isTrustedPeer(peer(r)) && proto.split(",")[0].strip().equalsIgnoreCase("https");
    }

    /** The client's address: the peer, or behind trusted proxies the nearest address they forwarded for. */
    public String client(HttpServerRequest r) {
        String peer = peer(r);
        String forwarded = r.getHeader("X-Forwarded-For");
        if (forwarded == null || !isTrustedPeer(peer)) {
            return peer;
        }
        String[] hops = forwarded.split(",");
        for (int i = hops.length - 1; i >= 0; i--) {
            String hop = hops[i].strip();
            if (!AddressPolicy.isAddress(hop)) {
                return peer; // not an address: the proxy's own word is all there is
            }
            if (!isTrustedPeer(hop) || i == 0) {
                return hop;
            }
        }
        return peer;
    }

    private static String peer(HttpServerRequest r) {
        return r.remoteAddress() == null ? "-" : r.remoteAddress().hostAddress();
    }

    /** Whether {@code address} is one of the trusted proxies. */
    boolean isTrustedPeer(String address) {
        if (trusted == null || !AddressPolicy.isAddress(address)) {
            return false;
        }
        try {
            return trusted.lists(InetAddress.getByName(address));
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
