package org.cdlib.mrt.ingestqueue.api.auth;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Password guessing costs the guesser, never the real user elsewhere. Failed logins are counted
 * over {@link #WINDOW} per client address (an IPv6 client by its /64), per user name at one
 * address, and per user name over all addresses. A login is {@link #admit admitted} before its
 * password is hashed, and a check under way counts as a failure until it ends: so a client over
 * its budget ({@code addressLimit} failures of the address, {@code userLimit} of one name at that
 * address) is refused with 429 before any hash is computed, however many requests it sends at
 * once. Past a budget the address, or the name at that address, is refused for 5 s doubling with
 * each further failure (up to {@link #LOCK_MAX}). A name is never locked as such: a correct
 * password from an address that has not failed is always tried. Instead, once a name has
 * {@code userLimit} failures over all addresses (guessed from many addresses), its logins from
 * addresses where it has not logged in lately are slowed: they are hashed one at a time,
 * {@link #GUARD_SPACING} apart, so that a spread-out guesser gets a few tries a second at most;
 * its logins from addresses where it logged in within {@link #TRUSTED_FOR} are not slowed (and
 * take their own lane, {@link Logins}). Bounded: at most {@link #KEPT} counts of each kind, the
 * least recent dropped first.
 */
public final class LoginThrottle {
    static final Duration WINDOW = Duration.ofMinutes(15);
    static final Duration LOCK_MAX = Duration.ofMinutes(15);
    static final Duration TRUSTED_FOR = Duration.ofDays(1);
    /** How far apart a guessed name's checks from unknown addresses are hashed. */
    static final Duration GUARD_SPACING = Duration.ofMillis(500);
    private static final int KEPT = 10_000;
    private static final long DELAY_STEP_MILLIS = 250;
    private static final long DELAY_MAX_MILLIS = 2_000;

    /** A failed login: how long to wait before answering it, and the lock it started, if any (for the audit). */
    record Failure(Duration delay, String lock) {
    }

    /**
     * What the throttle says of a login before its password is checked: refused (for how long, why),
     * or admitted, {@code known} when the name logged in from this address lately.
     */
    record Admission(Duration refusedFor, String why, boolean known) {
        boolean refused() {
            return refusedFor != null;
        }
    }

    private static final class Count {
        int failures;
        Instant first;
        Instant lockedUntil = Instant.EPOCH;
        /** The global guard: when the next check of this name from an unknown address may be hashed. */
        Instant nextCheck = Instant.EPOCH;
    }

    private final int userLimit;
    private final int addressLimit;
    private final Clock clock;
    private final Map<String, Count> addresses = recent();
    private final Map<String, Count> pairs = recent();
    private final Map<String, Count> users = recent();
    private final Map<String, Instant> trusted = recent();
    /**
     * Checks admitted and not yet ended, by address and by name at an address (bounded by the lanes' waiting places).
     */
    private final Map<String, Integer> pending = new HashMap<>();

    /**
     * @param userLimit failures of one user name at one address, and {@code addressLimit} of one address, before they
     * are refused
     */
    public LoginThrottle(int userLimit, int addressLimit, Clock clock) {
        this.userLimit = userLimit;
        this.addressLimit = addressLimit;
        this.clock = clock;
    }

    /**
     * Whether a login of {@code user} from {@code address} may be checked now. An admitted one
     * must be ended by {@link #succeeded}, {@link #failed} or {@link #released}.
     */
    synchronized Admission admit(String user, String address) {
        Instant now = clock.instant();
        String a = key(address);
        String p = pair(user, address);
        Count ac = live(addresses, a, now);
        if (ac != null && ac.lockedUntil.isAfter(now)) {
            return refusal(Duration.between(now, ac.lockedUntil), "too many failed logins from this address");
        }
        if (overBudget(ac, pending.getOrDefault(a, 0), addressLimit)) {
            return refusal(Duration.ofSeconds(1), "too many failed logins from this address");
        }
        Count pc = live(pairs, p, now);
        if (pc != null && pc.lockedUntil.isAfter(now)) {
            return refusal(Duration.between(now, pc.lockedUntil),
                    "too many failed logins of this user from this address");
        }
        if (overBudget(pc, pending.getOrDefault(p, 0), userLimit)) {
            return refusal(Duration.ofSeconds(1), "too many failed logins of this user from this address");
        }
        pending.merge(a, 1, Integer::sum);
        pending.merge(p, 1, Integer::sum);
        return new Admission(null, null, isTrusted(user, address, now));
    }

    /**
     * Whether another check would pass the budget: the failures and the checks under way reach it;
     * past it (a lock that is over) one check at a time, whose failure locks again for longer.
     */
    private static boolean overBudget(Count c, int underWay, int limit) {
        int failures = c == null ? 0 : c.failures;
        return failures < limit ? failures + underWay >= limit : underWay > 0;
    }

    private static Admission refusal(Duration wait, String why) {
        return new Admission(wait, why, false);
    }

    /**
     * How long an admitted login whose password must be hashed waits first: nothing, unless its
     * name is being guessed (its failures over all addresses reached the limit) and it comes from an
     * address where the name has not logged in lately; then its hash comes {@link #GUARD_SPACING}
     * after the previous such one.
     */
    synchronized Duration pause(String user, boolean known) {
        Instant now = clock.instant();
        Count uc = user == null || known ? null : live(users, user, now);
        if (uc == null || uc.failures < userLimit) {
            return Duration.ZERO;
        }
        Instant at = uc.nextCheck.isAfter(now) ? uc.nextCheck : now;
        uc.nextCheck = at.plus(GUARD_SPACING);
        return Duration.between(now, at);
    }

    /** An admitted login that was not checked after all (no place to wait): it counts for nothing. */
    synchronized void released(String user, String address) {
        release(key(address));
        release(pair(user, address));
    }

    synchronized Failure failed(String user, String address) {
        Instant now = clock.instant();
        released(user, address);
        Count a = count(addresses, key(address), now);
        Count p = count(pairs, pair(user, address), now);
        if (user != null) {
            count(users, user, now);
        }
        String lock = null;
        if (p.failures >= userLimit) {
            p.lockedUntil = now.plus(lockFor(p.failures - userLimit));
            lock = "user locked at this address for " + Duration.between(now, p.lockedUntil).toSeconds() + " s";
        }
        if (a.failures >= addressLimit) {
            a.lockedUntil = now.plus(lockFor(a.failures - addressLimit));
            lock = (lock == null ? "" : lock + ", ") + "address locked for " + Duration.between(now,
                    a.lockedUntil).toSeconds() + " s";
        }
        int n = Math.max(p.failures, a.failures);
        return new Failure(Duration.ofMillis(Math.min(DELAY_MAX_MILLIS, DELAY_STEP_MILLIS * Math.max(0, n - 2))), lock);
    }

    /**
     * The user's failures at this address are forgotten, and the address is one where the user's
     * logins are not slowed. The name's count over all addresses stays: the real user logging in
     * does not lift the guard against a guesser elsewhere.
     */
    synchronized void succeeded(String user, String address) {
        released(user, address);
        pairs.remove(pair(user, address));
        trusted.put(pair(user, address), clock.instant());
    }

    private void release(String k) {
        pending.computeIfPresent(k, (x, n) -> n <= 1 ? null : n - 1);
    }

    private boolean isTrusted(String user, String address, Instant now) {
        Instant at = trusted.get(pair(user, address));
        return at != null && at.plus(TRUSTED_FOR).isAfter(now);
    }

    private static String pair(String user, String address) {
        return user + "\u0000" + key(address);
    }

    private static Duration lockFor(int beyond) {
        return beyond >= 20 ? LOCK_MAX : Duration.ofSeconds(Math.min(LOCK_MAX.toSeconds(), 5L << beyond));
    }

    /** The count of {@code key} if it still counts (failures within the window, or a lock not yet over). */
    private static Count live(Map<String, Count> counts, String key, Instant now) {
        Count c = counts.get(key);
        if (c != null && c.first.plus(WINDOW).isBefore(now) && !c.lockedUntil.isAfter(now)
                && !c.nextCheck.isAfter(now)) {
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
            byte[] b = InetAddress.getByName(address).getAddress();
            if (b.length == 16) {
                Arrays.fill(b, 8, 16, (byte) 0);
                return InetAddress.getByAddress(b).getHostAddress() + "/64";
            }
            return address;
        } catch (UnknownHostException e) {
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
