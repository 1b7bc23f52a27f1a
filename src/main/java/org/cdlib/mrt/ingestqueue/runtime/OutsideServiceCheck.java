package org.cdlib.mrt.ingestqueue.runtime;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.cdlib.mrt.ingestqueue.config.Configuration.Setting;
import org.cdlib.mrt.ingestqueue.config.Configuration;
import org.cdlib.mrt.ingestqueue.config.StartupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Before anything starts: every key that names an outside service ({@code zookeeper.connect}, the
 * Merritt inventory, the local inventory's database server, SMTP) and is set must be usable — well
 * formed, its host resolving, something listening there within {@link #PROBE} — and a set choice of
 * back-end ({@code ingest.storage}, {@code ingest.inventory}, {@code ingest.minter}) must name one. A
 * blank value where one of these is written is refused, never read as "not set": that would start an
 * embedded ZooKeeper, the local inventory or the mail outbox on a host configured for the real ones.
 */
final class OutsideServiceCheck {
    private static final Logger LOG = LoggerFactory.getLogger(OutsideServiceCheck.class);

    /** How long a service may take to accept a connection at the start. */
    static final Duration PROBE = Duration.ofSeconds(3);

    private final Configuration config;

    private OutsideServiceCheck(Configuration config) {
        this.config = config;
    }

    /** Throws a {@link StartupException} naming the key, where it was set and what is wrong. */
    static void check(Configuration config) {
        new OutsideServiceCheck(config).run();
    }

    private void run() {
        written("zookeeper.connect").ifPresent(this::zookeeper);
        String storage = choice("ingest.storage", "local", "http");
        String minter = choice("ingest.minter", "local", "ezid");
        String inventory = choice("ingest.inventory", "local", "http");
        Optional<Setting> inventoryUrl = written("ingest.inventory.url");
        if (inventory.equals("http")) {
            Setting url = inventoryUrl.orElseThrow(
                    () -> new StartupException("ingest.inventory=http needs ingest.inventory.url"));
            httpUrl(url);
        // the operator named Merritt's inventory; the local one would silently stand in
        } else if (inventoryUrl.isPresent()) {
            throw refused(inventoryUrl.get(), "is set but ingest.inventory is " + inventory
                    + ": set ingest.inventory=http to use it, or remove it");
        }
        written("ingest.inventory.local.url").ifPresent(this::jdbcUrl);
        // history's database is checked for its form only: one that is down at the start delays the hand-over
        // (health says so), it does not stop the queue
        written("ingest.history.url").ifPresent(s -> {
            if (!s.value().startsWith("jdbc:h2:") && !s.value().startsWith("jdbc:postgresql://")) {
                throw refused(s, "must be a jdbc:h2:… or jdbc:postgresql://… URL, not '" + s.shown() + "'");
            }
        });
        written("ingest.mail.smtp.host").ifPresent(this::smtp);
        LOG.debug("outside services usable: storage {}, minter {}, inventory {}", storage, minter, inventory);
    }

    /** The first source's value of an outside service key; blank there is refused. */
    private Optional<Setting> written(String key) {
        Optional<Setting> s = config.written(key);
        if (s.isPresent() && s.get().value().isEmpty()) {
            throw refused(s.get(), "is set but empty: remove it to use the default, or give a value");
        }
        return s;
    }

    private String choice(String key, String first, String second) {
        String v = written(key).map(Setting::value).orElse(first);
        if (!v.equals(first) && !v.equals(second)) {
            throw refused(written(key).get(), "must be " + first + " or " + second + ", not '" + v + "'");
        }
        return v;
    }

    /** {@code host:port,host:port[/chroot]}: all well formed and resolving, at least one listening. */
    private void zookeeper(Setting s) {
        String hosts = s.value();
        int slash = hosts.indexOf('/');
        if (slash >= 0) {
            String chroot = hosts.substring(slash);
            if (chroot.length() < 2 || chroot.endsWith("/") || chroot.contains("//")) {
                throw refused(s, "has a malformed chroot '" + chroot + "' (write host:port/merritt)");
            }
            hosts = hosts.substring(0, slash);
        }
        List<InetSocketAddress> addresses = new ArrayList<>();
        for (String hp : hosts.split(",")) {
            addresses.add(address(s, hp.strip(), 2181));
        }
        List<String> failures = new ArrayList<>();
        for (InetSocketAddress a : addresses) {
            probe(a).ifPresent(failures::add);
        }
        if (failures.size() == addresses.size()) {
            throw refused(s, "names no server that answers: " + String.join("; ", failures));
        }
        failures.forEach(f -> LOG.warn("zookeeper.connect: {} (starting with the others)", f));
    }

    private void httpUrl(Setting s) {
        URI uri = uri(s);
        if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())) {
            throw refused(s, "must be an http or https URL, not '" + s.shown() + "'");
        }
        reachable(
                s,
                uri.getHost(),
                uri.getPort() > 0 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80);
    }

    /** H2 in a file or in memory is this host's own; a database server is an outside service. */
    private void jdbcUrl(Setting s) {
        String v = s.value();
        String server;
        int defaultPort;
        if (v.startsWith("jdbc:postgresql://")) {
            server = v.substring("jdbc:postgresql://".length());
            defaultPort = 5432;
        } else if (v.startsWith("jdbc:h2:tcp://") || v.startsWith("jdbc:h2:ssl://")) {
            server = v.substring("jdbc:h2:tcp://".length());
            defaultPort = 9092;
        } else if (v.startsWith("jdbc:h2:")) {
            return;
        } else {
            throw refused(s, "must be a jdbc:h2:… or jdbc:postgresql://… URL, not '" + s.shown() + "'");
        }
        int end = server.indexOf('/');
        String hosts = end < 0 ? server : server.substring(0, end);
        if (hosts.contains("@")) {
            hosts = hosts.substring(hosts.lastIndexOf('@') + 1);
        }
        List<String> failures = new ArrayList<>();
        List<InetSocketAddress> addresses = new ArrayList<>();
        for (String hp : hosts.split(",")) {
            addresses.add(address(s, hp.strip(), defaultPort));
        }
        for (InetSocketAddress a : addresses) {
            probe(a).ifPresent(failures::add);
        }
        if (failures.size() == addresses.size()) {
            throw refused(s, "names no database server that answers: " + String.join("; ", failures));
        }
    }

    private void smtp(Setting host) {
        Setting port = written("ingest.mail.smtp.port").orElse(new Setting("ingest.mail.smtp.port", "25", "default"));
        int p = port(port, port.value());
        if (host.value().contains(":") || host.value().contains("/")) {
            throw refused(
                    host,
                    "must be a host name or address (the port is ingest.mail.smtp.port), not '" + host.value() + "'");
        }
        reachable(host, host.value(), p);
    }

    private void reachable(Setting s, String host, int port) {
        InetSocketAddress a = new InetSocketAddress(resolve(s, host), port);
        probe(a).ifPresent(f -> {
            throw refused(s, "names a service that does not answer: " + f);
        });
    }

    private URI uri(Setting s) {
        try {
            URI uri = new URI(s.value());
            if (uri.getHost() == null) {
                throw refused(s, "is not a URL with a host: '" + s.shown() + "'");
            }
            return uri;
        } catch (URISyntaxException e) {
            throw refused(s, "is not a well-formed URL: " + e.getReason() + " at index " + e.getIndex());
        }
    }

    /** {@code host[:port]} or {@code [v6]:port}. */
    private InetSocketAddress address(Setting s, String hostPort, int defaultPort) {
        String host = hostPort;
        String port = null;
        if (hostPort.startsWith("[")) {
            int close = hostPort.indexOf(']');
            if (close < 0) {
                throw refused(s, "has a malformed address '" + hostPort + "'");
            }
            host = hostPort.substring(1, close);
            String rest = hostPort.substring(close + 1);
            if (!rest.isEmpty()) {
                if (!rest.startsWith(":")) {
                    throw refused(s, "has a malformed address '" + hostPort + "'");
                }
                port = rest.substring(1);
            }
        } else if (hostPort.indexOf(':') >= 0) {
            host = hostPort.substring(0, hostPort.lastIndexOf(':'));
            port = hostPort.substring(hostPort.lastIndexOf(':') + 1);
        }
        if (host.isEmpty() || host.chars().anyMatch(c -> Character.isWhitespace(c) || c == '@' || c == '?')) {
            throw refused(s, "has a malformed address '" + hostPort + "' (write host:port)");
        }
        return new InetSocketAddress(resolve(s, host), port == null ? defaultPort : port(s, port));
    }

    private static int port(Setting s, String port) {
        try {
            int p = Integer.parseInt(port);
            if (p >= 1 && p <= 65535) {
                return p;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw refused(s, "has '" + port + "' where a port (1-65535) belongs");
    }

    private static InetAddress resolve(Setting s, String host) {
        try {
            return InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw refused(s, "names the host '" + host + "', which does not resolve");
        }
    }

    /** Empty when something accepts a connection at the address within {@link #PROBE}, else why not. */
    private static Optional<String> probe(InetSocketAddress a) {
        try (Socket socket = new Socket()) {
            socket.connect(a, (int) PROBE.toMillis());
            return Optional.empty();
        } catch (SocketTimeoutException e) {
            return Optional.of("nothing answers at " + a.getHostString() + ":" + a.getPort() + " within "
                    + PROBE.toSeconds() + " s");
        } catch (IOException e) {
            return Optional.of(
                    "nothing listening at " + a.getHostString() + ":" + a.getPort() + " (" + e.getMessage() + ")");
        }
    }

    private static StartupException refused(Setting s, String problem) {
        return new StartupException(s.key() + " (" + s.origin() + ") " + problem);
    }
}
