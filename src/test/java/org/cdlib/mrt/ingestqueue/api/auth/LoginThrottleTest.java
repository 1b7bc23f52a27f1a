package org.cdlib.mrt.ingestqueue.api.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.cdlib.mrt.ingestqueue.testing.MovingClock;
import org.junit.jupiter.api.Test;

/**
 * The login throttle's budgets (issues 49 and 43) on a clock the test moves, and the lanes of
 * the password checks on real hashing: guessing costs the guesser, never the real user elsewhere.
 */
class LoginThrottleTest {
    static final String START = "2030-01-01T00:00:00Z";

    static void fail(LoginThrottle t, String user, String address) {
        assertFalse(t.admit(user, address).refused(), user + " from " + address + " is admitted");
        t.failed(user, address);
    }

    @Test
    void thirtyFailuresAtOneAddressLockThatAddressOnlyUntilItsLockIsOver() {
        MovingClock clock = new MovingClock(START);
        LoginThrottle t = new LoginThrottle(10, 20, clock);
        int refused = 0;
        for (int i = 0; i < 30; i++) {
            LoginThrottle.Admission a = t.admit("ops", "192.0.2.1");
            if (a.refused()) {
                refused++;
            } else {
                t.failed("ops", "192.0.2.1");
            }
        }
        assertEquals(20, refused, "ten tries, then refused");
        LoginThrottle.Admission elsewhere = t.admit("ops", "192.0.2.2");
        assertFalse(elsewhere.refused(), "the name is not locked: an address that has not failed is admitted");
        t.succeeded("ops", "192.0.2.2");
        LoginThrottle.Admission there = t.admit("ops", "192.0.2.1");
        assertTrue(there.refused());
        assertEquals(Duration.ofSeconds(5), there.refusedFor());
        clock.now = clock.now.plusSeconds(5);
        assertFalse(t.admit("ops", "192.0.2.1").refused(), "once its lock is over, the guessing address may try again");
        t.succeeded("ops", "192.0.2.1");
        assertFalse(t.admit("ops", "192.0.2.1").refused(), "and a success there forgets its failures");
    }

    @Test
    void checksUnderWayCountAgainstTheBudgetSoASwarmIsRefusedBeforeItsHashes() {
        LoginThrottle t = new LoginThrottle(10, 20, new MovingClock(START));
        for (int i = 0; i < 10; i++) {
            assertFalse(t.admit("ops", "192.0.2.1").refused());
        }
        LoginThrottle.Admission eleventh = t.admit("ops", "192.0.2.1");
        assertTrue(eleventh.refused(), "ten checks under way fill the budget of the name at this address");
        assertEquals(Duration.ofSeconds(1), eleventh.refusedFor());
        t.released("ops", "192.0.2.1");
        assertFalse(t.admit("ops", "192.0.2.1").refused(), "a check that was not made frees its place");
        for (int i = 0; i < 10; i++) {
            assertFalse(t.admit("x" + i, "192.0.2.1").refused());
        }
        assertTrue(t.admit("y", "192.0.2.1").refused(),
                "twenty under way fill the address's budget, whatever the names");
        assertFalse(t.admit("y", "192.0.2.9").refused());
    }

    @Test
    void aNameGuessedFromManyAddressesIsSlowedAtUnknownAddressesOnly() {
        MovingClock clock = new MovingClock(START);
        LoginThrottle t = new LoginThrottle(10, 20, clock);
        assertFalse(t.admit("ops", "198.51.100.1").refused());
        t.succeeded("ops", "198.51.100.1"); // where ops logs in
        for (int i = 0; i < 10; i++) {
            fail(t, "ops", "192.0.2." + (10 + i));
        }
        assertEquals(Duration.ZERO, t.pause("ops", false), "the first check from an unknown address is not held");
        assertEquals(LoginThrottle.GUARD_SPACING, t.pause("ops", false), "the next comes a spacing later");
        assertEquals(LoginThrottle.GUARD_SPACING.multipliedBy(2), t.pause("ops", false));
        LoginThrottle.Admission home = t.admit("ops", "198.51.100.1");
        assertTrue(home.known(), "an address ops logged in from lately is known");
        assertEquals(Duration.ZERO, t.pause("ops", home.known()), "and is not slowed");
        assertEquals(Duration.ZERO, t.pause("dep", false), "another name is not slowed");
        assertFalse(t.admit("ops", "203.0.113.5").refused(), "a new address is slowed, never refused");
    }

    /**
     * Guessers on 80 addresses fill the other lane's waiting places (and are refused past them);
     * a user logging in again from where they logged in before (their verified credentials
     * forgotten, so a hash is needed) takes the known lane and is answered long before the
     * guessers' hashes are done.
     */
    @Test
    void usersWhoLoggedInBeforeKeepTheirOwnLaneWhileGuessersFillTheOther() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            ApiUsers users = ApiUsers.parse("ops:" + Passwords.hash("pw-ops") + ":admin");
            Logins logins = new Logins(vertx, users, new LoginThrottle(1_000_000, 1_000_000, Clock.systemUTC()));
            assertEquals(200, logins.check("ops", "pw-ops", "198.51.100.1", "basic").toCompletionStage()
                    .toCompletableFuture()
                    .get(60, TimeUnit.SECONDS).status());
            users.forgetVerified();
            List<Future<Logins.Outcome>> guesses = new ArrayList<>();
            for (int i = 0; i < 80; i++) {
                guesses.add(logins.check("nobody", "guess", "192.0.2." + i, "basic"));
            }
            Logins.Outcome ops = logins.check("ops", "pw-ops", "198.51.100.1", "basic").toCompletionStage()
                    .toCompletableFuture()
                    .get(60, TimeUnit.SECONDS);
            assertEquals(200, ops.status(), ops.message());
            long checked = guesses.stream().filter(f -> f.isComplete() && f.result().status() == 401).count();
            assertTrue(checked < Logins.MAX_WAITING / 2, "ops was answered after " + checked + " of the "
                    + Logins.MAX_WAITING + " guesses' hashes, not behind them");
            Future.all(guesses).toCompletionStage().toCompletableFuture().get(120, TimeUnit.SECONDS);
            long full = guesses.stream().filter(f -> f.result().status() == 429).count();
            assertEquals(80 - Logins.MAX_WAITING, full, "past the other lane's waiting places a guess is refused");
            logins.close();
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
    }
}
