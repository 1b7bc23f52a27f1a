package org.cdlib.mrt.ingestqueue.api.auth;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Checking a password, for Basic authentication and the dashboard's login alike, without
 * slowing anyone else. First the {@link LoginThrottle} admits the login: a client over its
 * failure budget is refused with 429 here, before any hash is computed. Credentials checked
 * lately are then known at once (no hash). Others are hashed on one of two lanes, each its own
 * small pool with its own waiting places, never on an event loop nor on the pool the routes run
 * on: a user logging in from an address where they logged in lately takes the known lane (one
 * thread, {@link #MAX_WAITING_KNOWN} waiting); everyone else the other ({@link #threads}, half the
 * cores, {@link #MAX_WAITING} waiting). So guessers, however many their addresses, fill only the
 * other lane, and the users who were in before keep theirs. A full lane answers 429. Every 429 comes
 * {@link #REFUSAL_DELAY} after its request (a timer).
 * Every failure has its audit line.
 */
public final class Logins {
    static final int MAX_WAITING = 64;
    static final int MAX_WAITING_KNOWN = 16;
    static final Duration REFUSAL_DELAY = Duration.ofSeconds(1);

    /** What a login came to: the user, or the refusal to answer (401, or 429 with its Retry-After in seconds). */
    record Outcome(ApiUsers.User user, int status, String message, long retryAfter) {
        static Outcome ok(ApiUsers.User u) {
            return new Outcome(u, 200, null, 0);
        }

        static Outcome throttled(Duration wait, String why) {
            long seconds = Math.max(1, (wait.toMillis() + 999) / 1000);
            return new Outcome(null, 429, why + "; try again in " + seconds + " s", seconds);
        }
    }

    /** A pool that hashes, with its bounded waiting places. */
    private record Lane(WorkerExecutor pool, int places, AtomicInteger waiting) {
        boolean enter() {
            if (waiting.incrementAndGet() > places) {
                waiting.decrementAndGet();
                return false;
            }
            return true;
        }

        void leave() {
            waiting.decrementAndGet();
        }
    }

    private final Vertx vertx;
    private final ApiUsers users;
    private final LoginThrottle throttle;
    private final Lane other;
    private final Lane known;

    public Logins(Vertx vertx, ApiUsers users, LoginThrottle throttle) {
        this.vertx = vertx;
        this.users = users;
        this.throttle = throttle;
        this.other = new Lane(vertx.createSharedWorkerExecutor("password-hashing", threads(), 1, TimeUnit.MINUTES),
                MAX_WAITING,
                new AtomicInteger());
        this.known = new Lane(vertx.createSharedWorkerExecutor("password-hashing-known", 1, 1, TimeUnit.MINUTES),
                MAX_WAITING_KNOWN,
                new AtomicInteger());
    }

    static int threads() {
        return Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
    }

    /**
     * Checks {@code name} and {@code password} given from {@code address} ({@code via} basic or
     * session, for the audit); completes on the caller's context, a failure only after its delay.
     */
    Future<Outcome> check(String name, String password, String address, String via) {
        String who = name == null ? "-" : name.replaceAll("[^\\p{Graph}]", "?");
        LoginThrottle.Admission admission = throttle.admit(name, address);
        if (admission.refused()) {
            return later(Outcome.throttled(admission.refusedFor(), admission.why()));
        }
        var cached = users.verified(name, password);
        if (cached.isPresent()) {
            throttle.succeeded(name, address);
            return Future.succeededFuture(Outcome.ok(cached.get()));
        }
        Lane lane = admission.known() ? known : other;
        if (!lane.enter()) {
            throttle.released(name, address);
            return later(Outcome.throttled(Duration.ofSeconds(1), "too many logins are being checked"));
        }
        Promise<Outcome> answer = Promise.promise();
        Runnable hash = () -> lane.pool().<Optional<ApiUsers.User>>executeBlocking(() -> users.check(name, password),
                false)
                .onComplete(r -> {
                    lane.leave();
                    if (r.succeeded() && r.result().isPresent()) {
                        throttle.succeeded(name, address);
                        answer.complete(Outcome.ok(r.result().get()));
                        return;
                    }
                    LoginThrottle.Failure f = throttle.failed(name, address);
                    Guard.AUDIT.info("user={} action=\"login\" via={} target=- result=refused status=401 from={}{}",
                            who, via, address,
                            f.lock() == null ? "" : " throttled=\"" + f.lock() + "\"");
                    Outcome refused = new Outcome(null, 401, "the user name or password is wrong", 0);
                    if (f.delay().isZero()) {
                        answer.complete(refused);
                    } else {
                        vertx.setTimer(f.delay().toMillis(), t -> answer.complete(refused));
                    }
                });
        // a name being guessed from many addresses: its checks from unknown ones are hashed one at a time, spaced
        Duration pause = throttle.pause(name, admission.known());
        if (pause.isZero()) {
            hash.run();
        } else {
            vertx.setTimer(pause.toMillis(), t -> hash.run());
        }
        return answer.future();
    }

    /**
     * A refusal, answered {@link #REFUSAL_DELAY} later (on a timer, holding no thread): a guesser
     * that ignores {@code Retry-After} gets a second of waiting per request rather than a loop of
     * cheap answers as fast as the server can send them.
     */
    private Future<Outcome> later(Outcome refusal) {
        Promise<Outcome> answer = Promise.promise();
        vertx.setTimer(REFUSAL_DELAY.toMillis(), t -> answer.complete(refusal));
        return answer.future();
    }

    void close() {
        other.pool().close();
        known.pool().close();
    }
}
