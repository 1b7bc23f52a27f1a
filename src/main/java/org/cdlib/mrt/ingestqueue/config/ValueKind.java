package org.cdlib.mrt.ingestqueue.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.cdlib.mrt.ingestqueue.fetch.AddressPolicy;

/**
 * What a configuration value must be: the form an error names as accepted, and the reading of a value into
 * what the service uses ({@link Duration}, {@link Long}, {@link Boolean}, the value itself). The check at the
 * start ({@link ConfigurationCheck}) and the typed reads of {@code QueueContext} read values the same way,
 * so a value refused at the start and one read late are refused in the same words.
 *
 * @param name     what the README's table calls this kind
 * @param accepted what a value of this kind may be, as an error says it
 * @param reading  the value read; throws {@link IllegalArgumentException} saying what is wrong with it
 */
public record ValueKind(String name, String accepted, Function<String, Object> reading) {
    /** The forms every duration key accepts (docs/DESIGN.md "Part 1: configuration values"). */
    static final String DURATION_FORMS = "ISO-8601 (PT30S, PT5M, P1D) or whole milliseconds (30000)";

    /**
     * The value read; an {@link IllegalArgumentException} naming the key, the value (a secret's as
     * {@code (set)}) and what is accepted when it is not of this kind.
     */
    public Object read(String key, String value) {
        return read(key, value, null);
    }

    /** As {@link #read(String, String)}, the message naming where the value was set too. */
    Object read(String key, String value, String origin) {
        try {
            return reading.apply(value.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + " = '" + Configuration.shown(key, value) + "'"
                    + (origin == null ? "" : " (" + origin + ")") + ": " + e.getMessage() + "; accepted: " + accepted);
        }
    }

    /** A span of time: ISO-8601 or milliseconds, not negative. */
    public static ValueKind duration() {
        return new ValueKind("duration", DURATION_FORMS, ValueKind::parseDuration);
    }

    /** Milliseconds as a whole number: the keys Camel reads itself from the route files' placeholders. */
    static ValueKind millis() {
        return new ValueKind("milliseconds", "whole milliseconds, 0 or more (30000 is 30 s)",
                v -> wholeNumber(v, 0, Long.MAX_VALUE));
    }

    /** A size in bytes, at least {@code min}. */
    static ValueKind bytes(long min) {
        return new ValueKind("bytes", "a whole number of bytes, " + min + " or more (10737418240 is 10 GiB)",
                v -> wholeNumber(v, min, Long.MAX_VALUE));
    }

    /** A whole number from {@code min} to {@code max}. */
    public static ValueKind number(long min, long max) {
        return new ValueKind("number, " + range(min, max), "a whole number, " + range(min, max),
                v -> wholeNumber(v, min, max));
    }

    /** A TCP port; {@code anyFree}: 0 asks for any free port. */
    static ValueKind port(boolean anyFree) {
        if (anyFree) {
            return new ValueKind("port, 0: any free", "a port, 1 to 65535, or 0 for any free port",
                    v -> wholeNumber(v, 0, 65535));
        }
        return new ValueKind("port", "a port, 1 to 65535", v -> wholeNumber(v, 1, 65535));
    }

    public static ValueKind bool() {
        return new ValueKind("true or false", "true or false", v -> {
            if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
                return Boolean.valueOf(v);
            }
            throw new IllegalArgumentException("not true or false");
        });
    }

    /** One of {@code words}. */
    static ValueKind words(String... words) {
        List<String> allowed = List.of(words);
        return new ValueKind(String.join(" or ", allowed), String.join(" or ", allowed), v -> {
            if (allowed.contains(v)) {
                return v;
            }
            throw new IllegalArgumentException("not one of the words accepted");
        });
    }

    /** An http or https URL with a host. */
    static ValueKind url() {
        return new ValueKind("URL", "an http:// or https:// URL with a host (https://host.example.org/path)", v -> {
            try {
                URI uri = new URI(v);
                if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())) {
                    throw new IllegalArgumentException("not an http or https URL");
                }
                if (uri.getHost() == null) {
                    throw new IllegalArgumentException("no host in it");
                }
                return v;
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("not a well-formed URL: " + e.getReason() + " at index "
                        + e.getIndex());
            }
        });
    }

    /** A JDBC URL of a database the service speaks. */
    static ValueKind jdbcUrl() {
        return new ValueKind("JDBC URL", "jdbc:h2:… (jdbc:h2:file:./data/db) or jdbc:postgresql://host[:port]/db",
                v -> {
                    if (v.startsWith("jdbc:h2:") || v.startsWith("jdbc:postgresql://")) {
                        return v;
                    }
                    throw new IllegalArgumentException("not an H2 or PostgreSQL JDBC URL");
                });
    }

    /** ZooKeeper's connect string: {@code host:port[,host:port…][/chroot]}. */
    static ValueKind connectString() {
        return new ValueKind("connect string", "host:port[,host:port…][/chroot], each port 1 to 65535, an "
                + "IPv6 address in brackets ([::1]:2181); zk1:2181,zk2:2181,zk3:2181/merritt",
                ConnectString::check);
    }

    /** A host name or address, without a port or scheme. */
    static ValueKind host() {
        return new ValueKind("host", "a host name or address, without a port (smtp.example.org, 10.0.0.5, ::1)",
                v -> {
                    if (v.contains("/") || v.contains("@") || v.chars().anyMatch(Character::isWhitespace)
                            || (v.contains(":") && !isIpv6(v))) {
                        throw new IllegalArgumentException("not a bare host name or address");
                    }
                    return v;
                });
    }

    /** A file or directory path. */
    static ValueKind path() {
        return new ValueKind("path", "a file system path", v -> {
            try {
                Path.of(v);
                return v;
            } catch (InvalidPathException e) {
                throw new IllegalArgumentException("not a path: " + e.getReason());
            }
        });
    }

    /** Addresses, CIDRs and host names, comma-separated ({@link AddressPolicy}). */
    static ValueKind addresses() {
        return new ValueKind("addresses", "addresses, CIDRs (10.20.0.0/16) or host names, comma-separated; * for any",
                v -> {
                    AddressPolicy.parse(v, "the entry");
                    return v;
                });
    }

    /** Anything (names, passwords, keys, lists the service reads itself). */
    static ValueKind text() {
        return new ValueKind("text", "any text", v -> v);
    }

    private static String range(long min, long max) {
        if (max == Long.MAX_VALUE || max == Integer.MAX_VALUE) {
            return min + " or more";
        }
        return min + " to " + max;
    }

    private static Long wholeNumber(String v, long min, long max) {
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a whole number");
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException("out of range");
        }
        return n;
    }

    private static Duration parseDuration(String v) {
        Duration d;
        if (v.startsWith("P") || v.startsWith("p")) {
            try {
                d = Duration.parse(v.toUpperCase(Locale.ROOT));
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("not an ISO-8601 duration");
            }
        } else {
            try {
                d = Duration.ofMillis(Long.parseLong(v));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not a duration");
            }
        }
        if (d.isNegative()) {
            throw new IllegalArgumentException("negative");
        }
        return d;
    }

    private static boolean isIpv6(String v) {
        return v.matches("[0-9A-Fa-f:.]+") && v.indexOf(':') != v.lastIndexOf(':');
    }

    /** The parts of a ZooKeeper connect string, each checked as ZooKeeper's own parser does not. */
    private static final class ConnectString {
        static String check(String v) {
            String hosts = v;
            int slash = v.indexOf('/');
            if (slash >= 0) {
                String chroot = v.substring(slash);
                if (chroot.length() < 2 || chroot.endsWith("/") || chroot.contains("//")) {
                    throw new IllegalArgumentException("the chroot '" + chroot + "' is malformed");
                }
                hosts = v.substring(0, slash);
            }
            for (String part : hosts.split(",", -1)) {
                hostPort(part.strip());
            }
            return v;
        }

        private static void hostPort(String hp) {
            String host = hp;
            String port = null;
            if (hp.startsWith("[")) {
                int close = hp.indexOf(']');
                if (close < 0 || !isIpv6(hp.substring(1, close))) {
                    throw new IllegalArgumentException("'" + hp + "' is not [IPv6 address]:port");
                }
                host = hp.substring(1, close);
                String rest = hp.substring(close + 1);
                if (!rest.isEmpty()) {
                    if (!rest.startsWith(":")) {
                        throw new IllegalArgumentException("'" + hp + "' is not [IPv6 address]:port");
                    }
                    port = rest.substring(1);
                }
            } else if (hp.indexOf(':') >= 0) {
                host = hp.substring(0, hp.lastIndexOf(':'));
                port = hp.substring(hp.lastIndexOf(':') + 1);
                if (host.contains(":")) {
                    throw new IllegalArgumentException("'" + hp + "' has more than one ':' (write an IPv6 address"
                            + " in brackets)");
                }
            }
            if (host.isEmpty() || host.chars().anyMatch(c -> Character.isWhitespace(c) || c == '@' || c == '?')) {
                throw new IllegalArgumentException("'" + hp + "' names no host");
            }
            if (port != null) {
                try {
                    wholeNumber(port, 1, 65535);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("'" + hp + "' has '" + port + "' where a port 1 to 65535"
                            + " belongs");
                }
            }
        }
    }
}
