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
import org.cdlib.mrt.ingestqueue.api.Passwords;
import org.cdlib.mrt.ingestqueue.runtime.IngestService;

/**
 * {@code GET /api/health} while 20 clients guess a hashed password over Basic authentication as
 * fast as they are answered. The throttle is set out of reach ({@code ingest.api.login-failures-*}
 * at a million), so every guess costs a PBKDF2: the worst case, measuring what the hashing pool
 * alone leaves for everyone else (each failure is still answered after its delay, up to 2 s). Prints
 * the median and 95th percentile of 200 health requests before, and of those made during 15 s of
 * guessing; asserts nothing.
 * {@code java -cp … org.cdlib.mrt.ingestqueue.bench.GuessingBenchmark}
 */
public final class GuessingBenchmark {
    private GuessingBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = BenchDirs.temporary("guessing-bench");
        try (TestingServer zk = new TestingServer(true)) {
            Map<String, String> config = new HashMap<>();
            config.put("zookeeper.connect", zk.getConnectString());
            config.put("ingest.home", dir.resolve("queue").toString());
            config.put("ingest.profiles", dir.resolve("profiles").toString());
            config.put("ingest.storage.local.root", dir.resolve("storage").toString());
            config.put("ingest.inventory.local.url", "jdbc:h2:file:" + dir.resolve("inventory").toAbsolutePath() + "/inv");
            config.put("ingest.mail.outbox", dir.resolve("outbox").toString());
            config.put("ingest.http.port", "0");
            config.put("ingest.api.users", "ops:" + Passwords.hash("right") + ":admin");
            config.put("ingest.api.login-failures-per-user", "1000000");
            config.put("ingest.api.login-failures-per-address", "1000000");
            config.put("camel.main.routes-include-pattern", "file:routes/*.yaml");
            try (IngestService service = new IngestService(config).start()) {
                int port = service.camel().getRegistry().lookupByNameAndType("httpApi", HttpApi.class).port();
                String base = "http://127.0.0.1:" + port;
                HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                health(client, base, 50); // warm-up
                long[] quiet = health(client, base, 200);
                AtomicBoolean guessing = new AtomicBoolean(true);
                AtomicLong guesses = new AtomicLong();
                List<Thread> guessers = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    int n = i;
                    Thread t = new Thread(() -> {
                        HttpClient own = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                        for (long k = 0; guessing.get(); k++) {
                            String auth = Base64.getEncoder().encodeToString(("ops:guess-" + n + "-" + k).getBytes(StandardCharsets.UTF_8));
                            try {
                                own.send(HttpRequest.newBuilder(URI.create(base + "/api/queue")).header("Authorization", "Basic " + auth)
                                        .build(), HttpResponse.BodyHandlers.discarding());
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
                    Thread.onSpinWait(); // every guesser has been answered once: the guessing is under way
                }
                long start = System.nanoTime();
                long[] busy = healthFor(client, base, 15);
                double seconds = (System.nanoTime() - start) / 1e9;
                guessing.set(false);
                for (Thread t : guessers) {
                    t.join();
                }
                System.out.printf("cores %d, hashing threads %d%n", Runtime.getRuntime().availableProcessors(),
                        Math.max(1, Runtime.getRuntime().availableProcessors() / 2));
                System.out.printf("/api/health alone:            median %.1f ms, p95 %.1f ms%n", quiet[100] / 1e6, quiet[190] / 1e6);
                System.out.printf("/api/health, 20 guessing:     median %.1f ms, p95 %.1f ms over %d requests (%d guesses answered in %.1f s)%n",
                        busy[busy.length / 2] / 1e6, busy[busy.length * 95 / 100] / 1e6, busy.length, guesses.get(), seconds);
            }
        }
    }

    /** The sorted latencies (ns) of health requests one after another for {@code seconds}. */
    static long[] healthFor(HttpClient client, String base, int seconds) throws Exception {
        List<Long> t = new ArrayList<>();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < end) {
            long s = System.nanoTime();
            client.send(HttpRequest.newBuilder(URI.create(base + "/api/health")).build(), HttpResponse.BodyHandlers.discarding());
            t.add(System.nanoTime() - s);
        }
        return t.stream().mapToLong(Long::longValue).sorted().toArray();
    }

    /** The sorted latencies (ns) of {@code n} health requests one after another. */
    static long[] health(HttpClient client, String base, int n) throws Exception {
        long[] t = new long[n];
        for (int i = 0; i < n; i++) {
            long s = System.nanoTime();
            client.send(HttpRequest.newBuilder(URI.create(base + "/api/health")).build(), HttpResponse.BodyHandlers.discarding());
            t[i] = System.nanoTime() - s;
        }
        Arrays.sort(t);
        return t;
    }
}
