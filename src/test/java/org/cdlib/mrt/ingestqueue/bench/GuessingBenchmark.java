package org.cdlib.mrt.ingestqueue.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.test.TestingServer;
import org.cdlib.mrt.ingestqueue.api.HttpApi;
import org.cdlib.mrt.ingestqueue.api.auth.Passwords;
import org.cdlib.mrt.ingestqueue.runtime.IngestService;

/**
 * {@code GET /api/health} while 20 clients guess a hashed password over Basic authentication as
 * fast as they are answered (issue 43: guessing costs the guesser). Three runs, each on its own
 * service: the default login limits with the guessers on one address; the default limits with
 * every guess from a new address (sent through a trusted proxy's {@code X-Forwarded-For}: the
 * name's guard then hashes them one at a time, spaced); and the limits out of reach
 * ({@code ingest.api.login-failures-*} at a million: every guess a PBKDF2, what the hashing lane
 * alone leaves for everyone else). Each prints the median and 95th percentile of 200 health
 * requests before (idle) and of those made during 15 s of guessing, their ratio, the guesses'
 * answers (401: hashed; 429: refused before any hash), and the real user's requests meanwhile
 * (right password, from its usual address). Asserts nothing.
 * {@code java -cp … org.cdlib.mrt.ingestqueue.bench.GuessingBenchmark}
 */
public final class GuessingBenchmark {
    /** Where the real user logs in from (the guessers: 10.0.0.1, or a new 10.x address each guess). */
    static final String USUAL = "192.0.2.10";

    private GuessingBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        System.out.printf(
                "cores %d, hashing threads %d (+1 for users known at their address)%n",
                Runtime.getRuntime().availableProcessors(),
                Math.max(1, Runtime.getRuntime().availableProcessors() / 2));
        run("default limits, 20 guessers on one address", false, false);
        run("default limits, 20 guessers, every guess from a new address", false, true);
        run("limits out of reach, 20 guessers on one address (every guess hashed)", true, false);
    }

    static void run(String title, boolean outOfReach, boolean spread) throws Exception {
        Path dir = BenchDirs.temporary("guessing-bench");
        try (TestingServer zk = new TestingServer(true)) {
            Map<String, String> config = new HashMap<>();
            config.put("zookeeper.connect", zk.getConnectString());
            config.put("ingest.home", dir.resolve("queue").toString());
            config.put("ingest.profiles", dir.resolve("profiles").toString());
            config.put("ingest.storage.local.root", dir.resolve("storage").toString());
            config.put(
                    "ingest.inventory.local.url",
                    "jdbc:h2:file:" + dir.resolve("inventory").toAbsolutePath() + "/inv");
            config.put("ingest.mail.outbox", dir.resolve("outbox").toString());
            config.put("ingest.http.port", "0");
            config.put("ingest.api.users", "ops:" + Passwords.hash("right") + ":admin");
            if (outOfReach) {
                config.put("ingest.api.login-failures-per-user", "1000000");
                config.put("ingest.api.login-failures-per-address", "1000000");
            }
            // X-Forwarded-For is believed from loopback: the guessers and the real user each at their own address
            config.put("ingest.http.trusted-proxies", "127.0.0.1");
            config.put("camel.main.routes-include-pattern", "file:routes/*.yaml");
            try (IngestService service = new IngestService(config).start()) {
                int port = service.camel().getRegistry().lookupByNameAndType("httpApi", HttpApi.class).port();
                String base = "http://127.0.0.1:" + port;
                HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                String right =
                        "Basic " + Base64.getEncoder().encodeToString("ops:right".getBytes(StandardCharsets.UTF_8));
                client.send(HttpRequest.newBuilder(URI.create(base + "/api/queue")).header("Authorization", right)
                        // the real user has logged in
                        .header("X-Forwarded-For", USUAL).build(), HttpResponse.BodyHandlers.discarding());
                health(client, base, 500); // warm-up
                long[] quiet = health(client, base, 200);
                AtomicBoolean guessing = new AtomicBoolean(true);
                AtomicLong guesses = new AtomicLong();
                AtomicLong hashed = new AtomicLong();
                AtomicLong refused = new AtomicLong();
                List<Thread> guessers = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    int n = i;
                    Thread t = new Thread(() -> {
                        HttpClient own = HttpClient.newBuilder()
                                .version(HttpClient.Version.HTTP_1_1)
                                .build();
                        for (long k = 0; guessing.get(); k++) {
                            String auth = Base64.getEncoder()
                                    .encodeToString(("ops:guess-" + n + "-" + k).getBytes(StandardCharsets.UTF_8));
                            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + "/api/queue"))
                                    .header("Authorization", "Basic " + auth);
                            b.header(
                                    "X-Forwarded-For",
                                    spread ? "10." + n + "." + (k >> 8 & 255) + "." + (k & 255) : "10.0.0.1");
                            try {
                                int status = own.send(b.build(), HttpResponse.BodyHandlers.discarding())
                                        .statusCode();
                                if (status == 401) {
                                    hashed.incrementAndGet();
                                } else if (status == 429) {
                                    refused.incrementAndGet();
                                }
                                guesses.incrementAndGet();
                            } catch (Exception e) {
                                // a refused or reset guess: go on guessing
                            }
                        }
                    });
                    t.start();
                    guessers.add(t);
                }
                while (guesses.get() < 20) {
                    Thread.onSpinWait(); // guesses are being answered: the guessing is under way
                }
                long start = System.nanoTime();
                long hashedBefore = hashed.get();
                long refusedBefore = refused.get();
                List<Long> user = new ArrayList<>();
                long[] busy = healthFor(client, base, 15, () -> {
                    long s = System.nanoTime();
                    int status = client.send(
                                    HttpRequest.newBuilder(URI.create(base + "/api/queue"))
                                            .header("Authorization", right)
                                            .header("X-Forwarded-For", USUAL)
                                            .build(),
                                    HttpResponse.BodyHandlers.discarding())
                            .statusCode();
                    user.add(status == 200 ? System.nanoTime() - s : Long.MAX_VALUE);
                });
                double seconds = (System.nanoTime() - start) / 1e9;
                guessing.set(false);
                for (Thread t : guessers) {
                    t.join();
                }
                long[] users = user.stream().mapToLong(Long::longValue).sorted().toArray();
                long userRefused = user.stream().filter(x -> x == Long.MAX_VALUE).count();
                System.out.printf("%n%s%n", title);
                System.out.printf(
                        "  /api/health idle:          median %.1f ms, p95 %.1f ms%n",
                        quiet[100] / 1e6, quiet[190] / 1e6);
                System.out.printf(
                        "  /api/health, 20 guessing:  median %.1f ms, p95 %.1f ms over %d requests (median %.2fx"
                                + " idle)%n",
                        busy[busy.length / 2] / 1e6,
                        busy[busy.length * 95 / 100] / 1e6,
                        busy.length,
                        (double) busy[busy.length / 2] / quiet[100]);
                System.out.printf(
                        "  guesses answered in %.1f s: %d hashed (401), %d refused before any hash (429)%n",
                        seconds, hashed.get() - hashedBefore, refused.get() - refusedBefore);
                System.out.printf("  the real user meanwhile:   median %.1f ms over %d requests, %d refused%n",
                        users[Math.min(users.length - 1, users.length / 2)] / 1e6, users.length, userRefused);
            }
        }
    }

    /** A request made between health requests. */
    interface Between {
        void run() throws Exception;
    }

    /**
     * The sorted latencies (ns) of health requests one after another
     * for {@code seconds}, {@code between} after every tenth.
     */
    static long[] healthFor(HttpClient client, String base, int seconds, Between between) throws Exception {
        List<Long> t = new ArrayList<>();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < end) {
            long s = System.nanoTime();
            client.send(
                    HttpRequest.newBuilder(URI.create(base + "/api/health")).build(),
                    HttpResponse.BodyHandlers.discarding());
            t.add(System.nanoTime() - s);
            if (t.size() % 10 == 0) {
                between.run();
            }
        }
        return t.stream().mapToLong(Long::longValue).sorted().toArray();
    }

    /** The sorted latencies (ns) of {@code n} health requests one after another. */
    static long[] health(HttpClient client, String base, int n) throws Exception {
        long[] t = new long[n];
        for (int i = 0; i < n; i++) {
            long s = System.nanoTime();
            client.send(
                    HttpRequest.newBuilder(URI.create(base + "/api/health")).build(),
                    HttpResponse.BodyHandlers.discarding());
            t[i] = System.nanoTime() - s;
        }
        Arrays.sort(t);
        return t;
    }
}
