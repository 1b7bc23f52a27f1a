package org.cdlib.mrt.ingestqueue.fetch;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which addresses a depositor's URL may lead to. By default none that is loopback, link-local
 * (169.254/16, fe80::/10), private (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7, 64:ff9b:1::/48),
 * benchmarking (198.18/15), reserved (240/4), multicast, unspecified (0.0.0.0/8, ::), broadcast, or
 * an address of this host; an IPv6 address carrying an IPv4 one (mapped, compatible, NAT64
 * 64:ff9b::/96, 6to4 2002::/16) is judged by the IPv4 address it leads to. The
 * allow-list ({@code ingest.fetch.allow}: CIDRs, addresses and host names, comma-separated)
 * lets a deployment fetch from private servers. This service's own HTTP port on a local address
 * is never fetched, allow-list or not.
 * <p>
 * The check is made on the addresses a connection is about to use ({@link #checkConnect}, called
 * by the connection manager's DNS resolver on every address it returns), so a name that resolves
 * differently the second time (DNS rebinding) gains nothing; {@link UrlPolicy} also refuses an
 * address literal in a URL at once.
 */
public final class AddressPolicy {
    /** The ports this process serves HTTP on (the API registers its port when it starts). */
    private static final Set<Integer> OWN_PORTS = ConcurrentHashMap.newKeySet();

    public static final String KEY = "ingest.fetch.allow";
    /** Loopback, for tests and the demo that serve their payloads on this host. */
    public static final String LOOPBACK = "127.0.0.0/8,::1";

    /** An address refused by the policy: not retried, named with its rule (raised while resolving, hence its type). */
    public static final class RefusedAddressException extends UnknownHostException {
        public RefusedAddressException(String message) {
            super(message);
        }
    }

    private record Cidr(byte[] net, int prefix, String text) {
        boolean contains(InetAddress a) {
            byte[] b = a.getAddress();
            if (b.length != net.length) {
                return false;
            }
            int bits = prefix;
            for (int i = 0; i < b.length && bits > 0; i++, bits -= 8) {
                int mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
                if ((b[i] & mask) != (net[i] & mask)) {
                    return false;
                }
            }
            return true;
        }
    }

    private final List<Cidr> allowed;
    private final Set<String> allowedHosts;
    private final boolean allowAll;
    private final String spec;

    private AddressPolicy(List<Cidr> allowed, Set<String> allowedHosts, boolean allowAll, String spec) {
        this.allowed = allowed;
        this.allowedHosts = allowedHosts;
        this.allowAll = allowAll;
        this.spec = spec;
    }

    /** Nothing allowed beyond public addresses. */
    public static AddressPolicy defaults() {
        return parse(null);
    }

    /**
     * {@code spec}: comma-separated CIDRs ({@code 10.1.0.0/16}), addresses ({@code 192.168.1.5},
     * {@code ::1}), host names ({@code storage.internal}), or {@code *} (no address check at all).
     */
    public static AddressPolicy parse(String spec) {
        return parse(spec, KEY);
    }

    /** {@link #parse(String)} for another list of addresses, its errors naming {@code key}. */
    public static AddressPolicy parse(String spec, String key) {
        List<Cidr> cidrs = new ArrayList<>();
        Set<String> hosts = new HashSet<>();
        boolean all = false;
        if (spec != null) {
            for (String raw : spec.split(",")) {
                String e = raw.strip();
                if (e.isEmpty()) {
                    continue;
                }
                if (e.equals("*")) {
                    all = true;
                    continue;
                }
                String addr = e;
                int prefix = -1;
                int slash = e.indexOf('/');
                if (slash >= 0) {
                    addr = e.substring(0, slash);
                    try {
                        prefix = Integer.parseInt(e.substring(slash + 1));
                    } catch (NumberFormatException x) {
                        throw new IllegalArgumentException(key + ": '" + e + "' is not a CIDR (address/prefix)");
                    }
                }
                if (isLiteral(addr)) {
                    byte[] b;
                    try {
                        b = InetAddress.getByName(addr).getAddress();
                    } catch (UnknownHostException x) {
                        throw new IllegalArgumentException(key + ": '" + e + "' is not an address");
                    }
                    int max = b.length * 8;
                    if (prefix < 0) {
                        prefix = max;
                    }
                    if (prefix > max) {
                        throw new IllegalArgumentException(key + ": '" + e + "': prefix larger than " + max);
                    }
                    cidrs.add(new Cidr(b, prefix, e));
                } else if (prefix < 0 && addr.matches("[A-Za-z0-9.-]+")) {
                    hosts.add(addr.toLowerCase(Locale.ROOT));
                } else {
                    throw new IllegalArgumentException(
                            key + ": '" + e + "' is neither a CIDR, an address nor a host name");
                }
            }
        }
        return new AddressPolicy(List.copyOf(cidrs), Set.copyOf(hosts), all, spec == null ? "" : spec.strip());
    }

    public static void registerOwnPort(int port) {
        OWN_PORTS.add(port);
    }

    public static void unregisterOwnPort(int port) {
        OWN_PORTS.remove(port);
    }

    /**
     * An IPv4 or IPv6 address written out (no brackets), which {@link InetAddress#getByName} reads without a look-up.
     */
    public static boolean isAddress(String s) {
        return s != null && s.matches("[0-9A-Fa-f:.]{2,45}") && isLiteral(s);
    }

    /** An address literal ({@code 10.0.0.1}, {@code ::1}, {@code [::1]}) rather than a name. */
    static boolean isLiteral(String host) {
        String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        return h.matches("[0-9.]+") && h.chars().filter(c -> c == '.').count() == 3 || h.contains(":");
    }

    /**
     * Refuses a connection to {@code address} made for {@code host} (the URL's host); the
     * message names the address and the rule.
     */
    public void checkConnect(String host, InetSocketAddress address) throws RefusedAddressException {
        InetAddress a = address.getAddress();
        if (a == null) {
            throw new RefusedAddressException("refused: " + host + " did not resolve to an address");
        }
        boolean own = isOwn(a);
        if (own && OWN_PORTS.contains(address.getPort())) {
            throw new RefusedAddressException("refused: " + a.getHostAddress() + " port " + address.getPort()
                    + " is this service's own HTTP port (never fetched)");
        }
        if (allowAll
                || allowedHosts.contains(host.toLowerCase(Locale.ROOT))
                || allowed.stream().anyMatch(c -> c.contains(a))) {
            return;
        }
        String rule = rule(a);
        if (rule == null && own) {
            rule = "an address of this host";
        }
        if (rule != null) {
            throw new RefusedAddressException("refused: " + host + " is " + a.getHostAddress() + ", " + rule
                    + "; such addresses are not fetched unless listed in " + KEY);
        }
    }

    /** Whether the list names {@code a} (by address or CIDR; names are not resolved here). */
    public boolean lists(InetAddress a) {
        return allowAll || allowed.stream().anyMatch(c -> c.contains(a));
    }

    /** The rule {@code a} falls under, or null for an address fetched by default. */
    static String rule(InetAddress a) {
        byte[] b = a.getAddress();
        if (a.isAnyLocalAddress() || b.length == 4 && b[0] == 0) {
            return "an unspecified address (0.0.0.0/8, ::)";
        }
        if (a.isLoopbackAddress()) {
            return "a loopback address (127.0.0.0/8, ::1)";
        }
        if (a.isLinkLocalAddress()) {
            return "a link-local address (169.254.0.0/16, fe80::/10)";
        }
        if (a.isMulticastAddress()) {
            return "a multicast address (224.0.0.0/4, ff00::/8)";
        }
        if (b.length == 4
                && (b[0] & 0xff) == 255
                && (b[1] & 0xff) == 255
                && (b[2] & 0xff) == 255
                && (b[3] & 0xff) == 255) {
            return "the broadcast address";
        }
        if (a.isSiteLocalAddress() || b.length == 4 && (b[0] & 0xff) == 100 && (b[1] & 0xc0) == 64
                || a instanceof Inet6Address && (b[0] & 0xfe) == 0xfc) {
            return "a private address (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, fc00::/7)";
        }
        if (b.length == 4 && (b[0] & 0xff) == 198 && (b[1] & 0xfe) == 18) {
            return "a benchmarking address (198.18.0.0/15)";
        }
        if (b.length == 4 && (b[0] & 0xf0) == 0xf0) {
            return "a reserved address (240.0.0.0/4)";
        }
        if (a instanceof Inet6Address && b[0] == 0 && b[1] == 0x64 && b[2] == (byte) 0xff && b[3] == (byte) 0x9b
                && b[4] == 0 && b[5] == 1) {
            return "a local-use NAT64 address (64:ff9b:1::/48)";
        }
        // the IPv6 forms that lead to an IPv4 address are judged by that address: mapped and compatible
        // (::ffff:a.b.c.d, ::a.b.c.d), NAT64 (64:ff9b::a.b.c.d, as DNS64
        // writes a public server's address) and 6to4 (2002:aabb:ccdd::)
        if (a instanceof Inet6Address && (isMappedOrCompatible(b) || isNat64(b))) {
            return embedded(b, 12, "");
        }
        if (a instanceof Inet6Address && b[0] == 0x20 && b[1] == 0x02) {
            return embedded(b, 2, " (6to4, 2002::/16)");
        }
        return null;
    }

    private static String embedded(byte[] b, int from, String form) {
        try {
            String rule = rule(InetAddress.getByAddress(Arrays.copyOfRange(b, from, from + 4)));
            return rule == null ? null : rule + form;
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /** 64:ff9b::/96, the well-known NAT64 prefix: the last four bytes are the IPv4 address reached. */
    private static boolean isNat64(byte[] b) {
        if (b[0] != 0 || b[1] != 0x64 || b[2] != (byte) 0xff || b[3] != (byte) 0x9b) {
            return false;
        }
        for (int i = 4; i < 12; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return true;
    }

    /** ::ffff:a.b.c.d and ::a.b.c.d carry an IPv4 address that the rules apply to. */
    private static boolean isMappedOrCompatible(byte[] b) {
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return (b[10] == (byte) 0xff && b[11] == (byte) 0xff) || (b[10] == 0 && b[11] == 0);
    }

    private static boolean isOwn(InetAddress a) {
        if (a.isLoopbackAddress() || a.isAnyLocalAddress()) {
            return true;
        }
        try {
            return NetworkInterface.getByInetAddress(a) != null;
        } catch (SocketException e) {
            return false;
        }
    }

    /**
     * Refuses a URL whose host is an address literal the policy refuses (no lookup is made:
     * names are checked when connecting).
     */
    public void checkLiteral(String url, String host, int port) throws FetchException {
        if (host == null || !isLiteral(host)) {
            return;
        }
        String h = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        try {
            checkConnect(h, new InetSocketAddress(InetAddress.getByName(h), port));
        } catch (RefusedAddressException e) {
            throw new FetchException(url + ": " + e.getMessage());
        } catch (UnknownHostException e) {
            throw new FetchException(url + ": not a valid address " + host);
        }
    }

    @Override
    public String toString() {
        return KEY + "=" + spec;
    }
}
