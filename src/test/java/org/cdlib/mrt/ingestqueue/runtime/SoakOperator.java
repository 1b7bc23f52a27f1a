package org.cdlib.mrt.ingestqueue.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.errors.NotFoundException;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;

/**
 * An operator at the API of a random host, at random: holds a pending job and releases it a few
 * seconds later; holds the newest batch (refused once intake took it) and releases it; holds the
 * whole queue for a moment; asks to requeue a job and a batch's failed jobs (refused or nothing to
 * do: nothing fails in a soak); lists; and runs fsck without repair, whose every violation is a
 * false finding. An answer of 5xx is a failure; 409 is an operator's ordinary "not now".
 */
final class SoakOperator implements AutoCloseable {
    static final String USER = "soak";
    static final String PASSWORD = "pw-soak";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final QueueStore store;
    private final Set<String> taken;
    private final SoakLog log;
    private final Supplier<List<String>> hosts;
    private final Supplier<List<String>> batches;
    private final SplittableRandom random;
    /** What this operator holds ("/api/jobs/jid", "/api/batches/bid", "/api/queue") and when (ms) it releases each. */
    private final Map<String, Long> held = new ConcurrentHashMap<>();
    /** Answers by action and status code. */
    private final Map<String, Map<Integer, AtomicInteger>> answers = new ConcurrentHashMap<>();
    final AtomicInteger fscks = new AtomicInteger();
    final AtomicInteger falseFindings = new AtomicInteger();
    private final Thread thread;
    private volatile boolean running = true;

    SoakOperator(QueueStore store, Set<String> taken, SoakLog log, Supplier<List<String>> hosts,
                 Supplier<List<String>> batches, long seed) {
        this.store = store;
        this.taken = taken;
        this.log = log;
        this.hosts = hosts;
        this.batches = batches;
        this.random = new SplittableRandom(seed);
        thread = new Thread(this::loop, "soak-operator");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        while (running) {
            try {
                Thread.sleep(300 + random.nextInt(1200)); // the operator's pace
                releaseDue(false);
                switch (random.nextInt(9)) {
                    case 0, 1 -> holdJob();
                    case 2 -> holdBatch();
                    case 3 -> hold("/api/queue", 1000 + random.nextInt(2000));
                    case 4 -> {
                        String jid = any();
                        if (jid != null) {
                            send("requeue job", "POST", "/api/jobs/" + jid + "/requeue");
                        }
                    }
                    case 5 -> {
                        String bid = newest();
                        if (bid != null) {
                            send("requeue-failed", "POST", "/api/batches/" + bid + "/requeue-failed");
                        }
                    }
                    case 6 -> {
                        send("list", "GET", "/api/queue");
                        String bid = newest();
                        if (bid != null) {
                            send("list", "GET", "/api/jobs?batch=" + bid);
                        }
                    }
                    default -> fsck();
                }
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                if (running) {
                    log.fail("operator", e.toString());
                }
            }
        }
    }

    private void holdJob() throws Exception {
        List<String> refs = store.jobs().refs(JobState.PENDING);
        if (refs.isEmpty()) {
            return;
        }
        String jid = QueuePaths.jidOfRef(refs.get(random.nextInt(refs.size())));
        if (!taken.add(jid)) {
            return;
        }
        if (!hold("/api/jobs/" + jid, 2000 + random.nextInt(6000))) {
            taken.remove(jid);
        }
    }

    private void holdBatch() throws Exception {
        String bid = newest();
        if (bid != null) {
            hold("/api/batches/" + bid, 2000 + random.nextInt(4000));
        }
    }

    private boolean hold(String what, int millis) throws Exception {
        if (held.containsKey(what)) {
            return false;
        }
        HttpResponse<String> r = send("hold " + kind(what), "POST", what + "/hold");
        if (r != null && r.statusCode() == 200) {
            held.put(what, System.currentTimeMillis() + millis);
            return true;
        }
        return false;
    }

    private void releaseDue(boolean all) throws Exception {
        long now = System.currentTimeMillis();
        for (Map.Entry<String, Long> e : new ArrayList<>(held.entrySet())) {
            if (all || e.getValue() <= now) {
                HttpResponse<String> r = send("release " + kind(e.getKey()), "POST", e.getKey() + "/release");
                if (r != null && r.statusCode() == 200) {
                    held.remove(e.getKey());
                    if (e.getKey().startsWith("/api/jobs/")) {
                        taken.remove(e.getKey().substring("/api/jobs/".length()));
                    }
                } else if (r != null && r.statusCode() == 409 && endedBatch(e.getKey())) {
                    held.remove(e.getKey()); // its jobs all ended while it was held (the last ones in their last
                                             // step): the hold was dropped with it, nothing is left to release
                } else if (r != null && r.statusCode() < 500) {
                    log.fail(
                            "operator",
                            "release of " + e.getKey() + ", which this operator held: HTTP " + r.statusCode() + " "
                                    + r.body());
                    held.remove(e.getKey());
                }
            }
        }
    }

    /** Whether {@code what} is a batch that has left processing, or is gone. */
    private boolean endedBatch(String what) {
        if (!what.startsWith("/api/batches/")) {
            return false;
        }
        try {
            BatchState state = store.batches().load(what.substring("/api/batches/".length())).state();
            return state != BatchState.PENDING && state != BatchState.HELD && state != BatchState.PROCESSING;
        } catch (NotFoundException gone) {
            return true;
        }
    }

    private static String kind(String what) {
        return what.startsWith("/api/jobs/") ? "job" : what.startsWith("/api/batches/") ? "batch" : "queue";
    }

    /** fsck without repair on a random host: the soak damages nothing, so every violation is a false finding. */
    private void fsck() throws Exception {
        HttpResponse<String> r = send("fsck", "GET", "/api/fsck");
        if (r == null || r.statusCode() != 200) {
            return;
        }
        fscks.incrementAndGet();
        for (JsonNode v : JSON.readTree(r.body()).path("violations")) {
            falseFindings.incrementAndGet();
            log.fail(
                    "false-finding",
                    "GET /api/fsck: " + v.path("kind").asText() + " at "
                            + v.path("path").asText() + ": " + v.path("detail").asText());
        }
    }

    private String any() {
        List<String> bids = batches.get();
        if (bids.isEmpty()) {
            return null;
        }
        List<String> jids = store.batches().load(bids.get(random.nextInt(bids.size()))).jobIds();
        return jids.isEmpty() ? null : jids.get(random.nextInt(jids.size()));
    }

    private String newest() {
        List<String> bids = batches.get();
        return bids.isEmpty() ? null : bids.get(bids.size() - 1);
    }

    /** The answer, or null when the host did not answer (its address is tried again on the next action). */
    HttpResponse<String> send(String action, String method, String path) throws InterruptedException {
        List<String> bases = hosts.get();
        String base = bases.get(random.nextInt(bases.size()));
        return send(action, method, base, path);
    }

    HttpResponse<String> send(String action, String method, String base, String path) throws InterruptedException {
        try {
            HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create(base + path))
                    .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(60))
                    .header("Authorization", "Basic " + Base64.getEncoder().encodeToString((USER + ":" + PASSWORD)
                            .getBytes(StandardCharsets.UTF_8))).build(), HttpResponse.BodyHandlers.ofString());
            answers.computeIfAbsent(action, k -> new ConcurrentHashMap<>())
                    .computeIfAbsent(r.statusCode(), k -> new AtomicInteger())
                    .incrementAndGet();
            if (r.statusCode() >= 500) {
                log.fail("api", method + " " + base + path + ": HTTP " + r.statusCode() + " " + r.body());
            }
            return r;
        } catch (IOException e) {
            answers.computeIfAbsent(action, k -> new ConcurrentHashMap<>())
                    .computeIfAbsent(-1, k -> new AtomicInteger())
                    .incrementAndGet();
            return null;
        }
    }

    /** "hold job {200=12, 409=3}, …": the answers so far by action. */
    String counts() {
        Map<String, Map<Integer, Integer>> out = new TreeMap<>();
        answers.forEach((a, m) -> {
            Map<Integer, Integer> n = new TreeMap<>();
            m.forEach((code, c) -> n.put(code, c.get()));
            out.put(a, n);
        });
        return "operator: " + out;
    }

    int actions() {
        return answers.values().stream().flatMap(m -> m.values().stream()).mapToInt(AtomicInteger::get).sum();
    }

    /** Stops, releasing whatever it holds. */
    @Override
    public void close() throws Exception {
        running = false;
        thread.interrupt();
        thread.join(70_000);
        for (int round = 0; round < 10 && !held.isEmpty(); round++) {
            releaseDue(true);
        }
        if (!held.isEmpty()) {
            log.fail("operator", "could not release at the end: " + held.keySet());
        }
    }
}
