package org.cdlib.mrt.ingestqueue.api;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Checking a password, for Basic authentication and the dashboard's login alike, without
 * slowing anyone else: credentials checked before are known at once; others are hashed on a
 * small pool of their own ({@link #threads}, half the cores), never on an event loop nor on the
 * pool the routes run on, with at most {@link #MAX_WAITING} waiting (more are answered 429 at
 * once). The {@link LoginThrottle} decides who may try; every failure has its audit line.
 */
final class Logins {
    static final int MAX_WAITING = 64;

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

    private final Vertx vertx;
    private final ApiUsers users;
    private final LoginThrottle throttle;
    private final WorkerExecutor hashing;
    private final AtomicInteger waiting = new AtomicInteger();

    Logins(Vertx vertx, ApiUsers users, LoginThrottle throttle) {
        this.vertx = vertx;
        this.users = users;
        this.throttle = throttle;
        this.hashing = vertx.createSharedWorkerExecutor("password-hashing", threads(), 1, TimeUnit.MINUTES);
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
        var locked = throttle.refusal(name, address);
        if (locked.isPresent()) {
            return Future.succeededFuture(Outcome.throttled(locked.get(), "too many failed logins"));
        }
        var known = users.verified(name, password);
        if (known.isPresent()) {
            throttle.succeeded(name, address);
            return Future.succeededFuture(Outcome.ok(known.get()));
        }
        if (waiting.incrementAndGet() > MAX_WAITING) {
            waiting.decrementAndGet();
            return Future.succeededFuture(Outcome.throttled(Duration.ofSeconds(1), "too many logins are being checked"));
        }
        Promise<Outcome> answer = Promise.promise();
        hashing.<java.util.Optional<ApiUsers.User>>executeBlocking(() -> users.check(name, password), false).onComplete(r -> {
            waiting.decrementAndGet();
            if (r.succeeded() && r.result().isPresent()) {
                throttle.succeeded(name, address);
                answer.complete(Outcome.ok(r.result().get()));
                return;
            }
            LoginThrottle.Failure f = throttle.failed(name, address);
            Guard.AUDIT.info("user={} action=\"login\" via={} target=- result=refused status=401 from={}{}", who, via, address,
                    f.lock() == null ? "" : " throttled=\"" + f.lock() + "\"");
            Outcome refused = new Outcome(null, 401, "the user name or password is wrong", 0);
            if (f.delay().isZero()) {
                answer.complete(refused);
            } else {
                vertx.setTimer(f.delay().toMillis(), t -> answer.complete(refused));
            }
        });
        return answer.future();
    }

    void close() {
        hashing.close();
    }
}
