package org.cdlib.mrt.ingestqueue.api;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Password guessing made slow: failed logins are counted per user name and per client address
 * (an IPv6 client by its /64) over {@link #WINDOW}. From the third failure each refusal is answered
 * a little later; past the limit the user (for at most {@link #USER_LOCK_MAX}: the real user is
 * never locked out for long) or the address (up to {@link #ADDRESS_LOCK_MAX}) is refused with 429
 * for a time that starts at 5 s and doubles with each further failure. A user's lock does not hold at an address
 * where that user logged in before, so a guesser elsewhere does not lock them out. Bounded: the
 * counts of at most {@link #KEPT} users and addresses, the least recent dropped first.
 */
final class LoginThrottle {
    static final Duration WINDOW = Duration.ofMinutes(15);
    static final Duration USER_LOCK_MAX = Duration.ofMinutes(1);
    static final Duration ADDRESS_LOCK_MAX = Duration.ofMinutes(15);
    static final Duration TRUSTED_FOR = Duration.ofDays(1);
    private static final int KEPT = 10_000;
    private static final long DELAY_STEP_MILLIS = 250;
    private static final long DELAY_MAX_MILLIS = 2_000;

    /** A failed login: how long to wait before answering it, and the lock it started, if any (for the audit). */
    record Failure(Duration delay, String lock) {
    }

    private static final class Count {
        int failures;
        Instant first;
        Instant lockedUntil = Instant.EPOCH;
    }

    private final int userLimit;
    private final int addressLimit;
    private final Clock clock;
    private final Map<String, Count> users = recent();
    private final Map<String, Count> addresses = recent();
    private final Map<String, Instant> trusted = recent();

    /** @param userLimit failures of one user name, and {@code addressLimit} of one address, before they are refused */
    LoginThrottle(int userLimit, int addressLimit, Clock clock) {
        this.userLimit = userLimit;
        this.addressLimit = addressLimit;
        this.clock = clock;
    }

    /** How long a login of {@code user} from {@code address} is refused for now (empty: it may be tried). */
    synchronized Optional<Duration> refusal(String user, String address) {
        Instant now = clock.instant();
        Count a = live(addresses, key(address), now);
        if (a != null && a.lockedUntil.isAfter(now)) {
            return Optional.of(Duration.between(now, a.lockedUntil));
        }
        Count u = live(users, user, now);
        if (u != null && u.lockedUntil.isAfter(now) && !isTrusted(user, address, now)) {
            return Optional.of(Duration.between(now, u.lockedUntil));
        }
        return Optional.empty();
    }

    synchronized Failure failed(String user, String address) {
        Instant now = clock.instant();
        Count u = count(users, user, now);
        Count a = count(addresses, key(address), now);
        String lock = null;
        if (u.failures >= userLimit) {
            u.lockedUntil = now.plus(lockFor(u.failures - userLimit, USER_LOCK_MAX));
            lock = "user locked for " + Duration.between(now, u.lockedUntil).toSeconds() + " s";
        }
        if (a.failures >= addressLimit) {
            a.lockedUntil = now.plus(lockFor(a.failures - addressLimit, ADDRESS_LOCK_MAX));
            lock = (lock == null ? "" : lock + ", ") + "address locked for " + Duration.between(now, a.lockedUntil).toSeconds() + " s";
        }
        int n = Math.max(u.failures, a.failures);
        return new Failure(Duration.ofMillis(Math.min(DELAY_MAX_MILLIS, DELAY_STEP_MILLIS * Math.max(0, n - 2))), lock);
    }

    /** The user's failures are forgotten and this address is one the user's lock does not hold at. */
    synchronized void succeeded(String user, String address) {
        users.remove(user);
        trusted.put(user + "\u0000" + key(address), clock.instant());
    }

    private boolean isTrusted(String user, String address, Instant now) {
        Instant at = trusted.get(user + "\u0000" + key(address));
        return at != null && at.plus(TRUSTED_FOR).isAfter(now);
    }

    private static Duration lockFor(int beyond, Duration max) {
        return beyond >= 20 ? max : Duration.ofSeconds(Math.min(max.toSeconds(), 5L << beyond));
    }

    /** The count of {@code key} if it still counts (failures within the window, or a lock not yet over). */
    private static Count live(Map<String, Count> counts, String key, Instant now) {
        Count c = counts.get(key);
        if (c != null && c.first.plus(WINDOW).isBefore(now) && !c.lockedUntil.isAfter(now)) {
            counts.remove(key);
            return null;
        }
        return c;
    }

    private static Count count(Map<String, Count> counts, String key, Instant now) {
        Count c = live(counts, key, now);
        if (c == null) {
            c = new Count();
            c.first = now;
            counts.put(key, c);
        }
        c.failures++;
        return c;
    }

    /** An address as counted: IPv4 as it is, IPv6 by its /64 (a client holds a whole /64). */
    static String key(String address) {
        if (address == null || !address.contains(":")) {
            return address;
        }
        try {
            byte[] b = java.net.InetAddress.getByName(address).getAddress();
            if (b.length == 16) {
                java.util.Arrays.fill(b, 8, 16, (byte) 0);
                return java.net.InetAddress.getByAddress(b).getHostAddress() + "/64";
            }
            return address;
        } catch (java.net.UnknownHostException e) {
            return address;
        }
    }

    private static <V> Map<String, V> recent() {
        return new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > KEPT;
            }
        };
    }
}
