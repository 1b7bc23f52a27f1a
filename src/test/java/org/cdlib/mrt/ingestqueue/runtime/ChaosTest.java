package org.cdlib.mrt.ingestqueue.runtime;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.cdlib.mrt.ingestqueue.queue.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.BatchState;
import org.cdlib.mrt.ingestqueue.queue.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.Job;
import org.cdlib.mrt.ingestqueue.queue.JobState;
import org.cdlib.mrt.ingestqueue.queue.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.QueueTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly once under faults: a real 3-node ensemble, three service instances in separate JVMs
 * sharing one working directory, EZID, storage, inventory and callback played by a recording
 * server that counts every call. During the run an instance is killed with SIGKILL and
 * restarted, the ZooKeeper leader is stopped for longer than the session timeout, and an
 * instance is paused (SIGSTOP) past its session and resumed. Then: every job completed, one
 * storage version and one inventory record per object, callbacks de-duplicable by key, every
 * mint accounted for, no lock left, fsck clean.
 */
class ChaosTest {
    static final int OBJECTS = 300;
    static final Duration SESSION = Duration.ofSeconds(5);
    @TempDir
    Path dir;
    final List<String> timeline = new CopyOnWriteArrayList<>();
    final long t0 = System.nanoTime();

    void note(String what) {
        String line = String.format("%6.1f s  %s", (System.nanoTime() - t0) / 1e9, what);
        timeline.add(line);
        System.out.println("chaos: " + line);
    }

    /** EZID, Merritt storage and inventory, the callback receiver and the payload server, counting calls. */
    static final class Services implements AutoCloseable {
        final HttpServer server;
        final AtomicInteger mints = new AtomicInteger();
        final Map<String, AtomicInteger> adds = new ConcurrentHashMap<>();
        final Map<String, Integer> versions = new ConcurrentHashMap<>();
        final Set<String> inventory = ConcurrentHashMap.newKeySet();
        final AtomicInteger inventoryCalls = new AtomicInteger();
        final Map<String, Set<String>> callbackKeys = new ConcurrentHashMap<>();
        final AtomicInteger callbacks = new AtomicInteger();
        final AtomicInteger ezidUpdates = new AtomicInteger();
        final Set<String> described = ConcurrentHashMap.newKeySet();

        volatile String manifest = "";

        Services() throws IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
            server.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(16));
            server.createContext("/", ex -> {
                try {
                    handle(ex);
                } catch (Exception e) {
                    answer(ex, 500, e.toString());
                }
            });
            server.start();
        }

        String base() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        synchronized void handle(HttpExchange ex) throws IOException {
            String path = ex.getRequestURI().getRawPath();
            String method = ex.getRequestMethod();
            byte[] body = ex.getRequestBody().readAllBytes();
            if (path.equals("/data/batch.checkm")) {
                answer(ex, 200, manifest);
            } else if (path.startsWith("/data/")) {
                answer(ex, 200, "content of " + path);
            } else if (method.equals("POST") && path.startsWith("/ezid/shoulder/")) {
                answer(ex, 201, "success: ark:/99999/fk4c" + mints.incrementAndGet());
            } else if (method.equals("POST") && path.startsWith("/id/")) {
                ezidUpdates.incrementAndGet();
                String ark = URLDecoder.decode(path.substring("/id/".length()), StandardCharsets.UTF_8);
                described.add(ark);
                answer(ex, 200, "success: " + ark);
            } else if (method.equals("GET") && path.startsWith("/store/state/")) {
                String ark = URLDecoder.decode(path.substring(path.lastIndexOf('/') + 1), StandardCharsets.UTF_8);
                Integer v = versions.get(ark);
                answer(ex, v == null ? 404 : 200, v == null ? "" : "{\"versionState\":{\"currentVersion\":" + v + "}}");
            } else if (method.equals("POST") && (path.startsWith("/store/add/") || path.startsWith("/store/update/"))) {
                String ark = URLDecoder.decode(path.substring(path.lastIndexOf('/') + 1), StandardCharsets.UTF_8);
                adds.computeIfAbsent(ark, k -> new AtomicInteger()).incrementAndGet();
                int v = versions.merge(ark, 1, Integer::sum);
                answer(ex, 200, "{\"versionState\":{\"identifier\":\"" + ark + "\",\"versionID\":" + v + "}}");
            } else if (method.equals("POST") && path.equals("/inv/add")) {
                inventoryCalls.incrementAndGet();
                String text = new String(body, StandardCharsets.UTF_8);
                int i = text.indexOf("/manifest/");
                inventory.add(i < 0 ? text : text.substring(i, text.indexOf('\r', i))); // checkVersion: one record a version
                answer(ex, 200, "{}");
            } else if (method.equals("POST") && path.startsWith("/cb/mc/")) {
                callbacks.incrementAndGet();
                callbackKeys.computeIfAbsent(path.substring("/cb/mc/".length()), k -> ConcurrentHashMap.newKeySet())
                        .add(String.valueOf(ex.getRequestHeaders().getFirst("Idempotency-Key")));
                answer(ex, 200, "{}");
            } else {
                answer(ex, 404, "no " + method + " " + path);
            }
        }

        static void answer(HttpExchange ex, int status, String text) throws IOException {
            byte[] b = text.getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(status, b.length == 0 ? -1 : b.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(b);
            }
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }

    Process instance(String name, Map<String, String> config) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-cp", System.getProperty("java.class.path"), "-Dzookeeper.forceSync=no", "-Djute.maxbuffer=524288"));
        config.forEach((k, v) -> command.add("-D" + k + "=" + v));
        command.add("org.cdlib.mrt.ingestqueue.Main");
        Path log = dir.resolve(name + ".log");
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        note("started " + name + " (pid " + p.pid() + ")");
        return p;
    }

    static void signal(Process p, String sig) throws Exception {
        new ProcessBuilder("kill", "-" + sig, String.valueOf(p.pid())).inheritIO().start().waitFor();
    }

    static String mode(InstanceSpec spec) {
        try (Socket s = new Socket("127.0.0.1", spec.getPort())) {
            s.getOutputStream().write("srvr".getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            String text = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            int i = text.indexOf("Mode: ");
            return i < 0 ? "unknown" : text.substring(i + 6, text.indexOf('\n', i)).trim();
        } catch (IOException e) {
            return "down";
        }
    }

    /** The jobs whose lock the process holds now (its pid is in the lock's owner data). */
    static Set<String> lockedBy(QueueStore store, Process p) {
        Set<String> jids = new java.util.TreeSet<>();
        try {
            for (JobState s : JobState.values()) {
                if (s.isWorking()) {
                    for (Job j : store.jobs().load(store.jobs().refs(s).stream().map(QueuePaths::jidOfRef).toList())) {
                        if (j.lockOwner() != null && j.lockOwner().pid() == p.pid()) {
                            jids.add(j.id());
                        }
                    }
                }
            }
        } catch (RuntimeException e) {
            return Set.of("unknown: " + e.getMessage()); // the ensemble is busy: ask again
        }
        return jids;
    }

    int completed(QueueStore store, String bid) {
        try {
            return store.batches().load(bid).count(BatchRef.COMPLETED);
        } catch (RuntimeException e) {
            return -1; // the ensemble is electing: ask again
        }
    }

    @Test
    void killsLeaderElectionsAndPausesLeaveEveryObjectDoneExactlyOnce() throws Exception {
        System.setProperty("zookeeper.4lw.commands.whitelist", "*");
        StringBuilder m = new StringBuilder("#%checkm_0.7\n#%profile | http://uc3.cdlib.org/registry/ingest/manifest/"
                + "mrt-single-file-batch-manifest\n#%fields | nfo:fileUrl | nfo:fileName | mrt:title\n");
        try (TestingCluster cluster = new TestingCluster(3); Services services = new Services()) {
            for (int i = 0; i < OBJECTS; i++) {
                m.append(services.base()).append("/data/f").append(i).append(".txt | f").append(i).append(".txt | Object ")
                        .append(i).append('\n');
            }
            services.manifest = m.append("#%eof\n").toString();
            cluster.start();
            Path profiles = Files.createDirectories(dir.resolve("profiles"));
            Files.writeString(profiles.resolve("chaos"), "ProfileID: chaos\nCollection.1: ark:/99999/fk4chaos\n"
                    + "ObjectMinterURL: " + services.base() + "/ezid/shoulder/ark:/99999/fk4\n"
                    + "StorageService: " + services.base() + "/store\nStorageNode: 9999\n"
                    + "CallbackURL: " + services.base() + "/cb\n");
            Map<String, String> config = new HashMap<>();
            config.put("zookeeper.connect", cluster.getConnectString());
            config.put("zookeeper.session-timeout", "PT" + SESSION.toSeconds() + "S");
            config.put("ingest.home", dir.resolve("queue").toString());
            config.put("ingest.profiles", profiles.toString());
            config.put("ingest.minter", "ezid");
            config.put("ingest.ezid.user", "u");
            config.put("ingest.ezid.password", "p");
            config.put("ingest.ezid.target", "https://example.org/m/");
            config.put("ingest.storage", "http");
            config.put("ingest.files.base-url", services.base() + "/files");
            config.put("ingest.inventory", "http");
            config.put("ingest.inventory.url", services.base() + "/inv");
            config.put("ingest.http.port", "0");
            config.put("ingest.fetch.allow", org.cdlib.mrt.ingestqueue.fetch.AddressPolicy.LOOPBACK); // the recording server
            config.put("ingest.mail.outbox", dir.resolve("outbox").toString());
            config.put("camel.component.http.response-timeout", "10000");
            config.put("camel.component.http.so-timeout", "10000");
            config.put("ingest.services.retry-delay", "200");
            config.put("ingest.provisioning.retry-delay", "200");
            config.put("ingest.processing.retry-delay", "300");
            config.put("ingest.batch.retry-delay", "500");
            config.put("camel.main.shutdown-timeout", "5");
            config.put("camel.main.routes-include-pattern", "file:routes/*.yaml");
            Map<String, Process> instances = new HashMap<>();
            for (String name : List.of("a", "b", "c")) {
                Map<String, String> own = new HashMap<>(config);
                own.put("ingest.inventory.local.url", "jdbc:h2:file:" + dir.resolve("inv-" + name).toAbsolutePath() + "/inv");
                instances.put(name, instance(name, own));
            }
            try (CuratorFramework client = org.apache.curator.framework.CuratorFrameworkFactory.newClient(cluster.getConnectString(),
                    30_000, 15_000, new org.apache.curator.retry.ExponentialBackoffRetry(200, 10, 2000))) {
                client.start();
                client.blockUntilConnected(30, TimeUnit.SECONDS);
                QueueStore store = QueueTestSupport.store(client, dir.resolve("queue"));
                await().atMost(Duration.ofSeconds(120)).until(() -> Files.readString(dir.resolve("c.log")).contains("ingest-queue running"));
                String bid = store.batches().create(new BatchSubmission("chaos", "tester", services.base() + "/data/batch.checkm", "t",
                        "w", null, null, "single-file-batch-manifest", "add", null, null, null, null, null, null, "json", null,
                        Instant.now().toString(), null));
                note("submitted " + bid + " with " + OBJECTS + " objects");

                await().atMost(Duration.ofSeconds(120)).until(() -> completed(store, bid) >= 30);
                note("SIGKILL a at " + completed(store, bid) + " completed");
                instances.get("a").destroyForcibly().waitFor();
                Map<String, String> a = new HashMap<>(config);
                a.put("ingest.inventory.local.url", "jdbc:h2:file:" + dir.resolve("inv-a").toAbsolutePath() + "/inv");
                instances.put("a", instance("a", a));

                await().atMost(Duration.ofSeconds(120)).until(() -> completed(store, bid) >= 80);
                InstanceSpec leader = cluster.getInstances().stream().filter(s -> "leader".equals(mode(s))).findFirst().orElseThrow();
                note("stopping the ZooKeeper leader (port " + leader.getPort() + ") at " + completed(store, bid) + " completed");
                cluster.killServer(leader);
                long stopped = System.nanoTime();
                int atStop = completed(store, bid);
                // down past a session timeout, and the queue moved on without it meanwhile
                await().atMost(Duration.ofSeconds(90)).until(() -> System.nanoTime() - stopped > SESSION.plusSeconds(1).toNanos()
                        && completed(store, bid) >= atStop + 10);
                cluster.restartServer(leader);
                note("leader's server restarted");

                await().atMost(Duration.ofSeconds(120)).until(() -> completed(store, bid) >= 130);
                note("SIGSTOP b at " + completed(store, bid) + " completed");
                Process b = instances.get("b");
                signal(b, "STOP");
                long paused = System.nanoTime();
                Set<String> held = lockedBy(store, b);
                note("b paused holding " + held);
                // paused past its session: the ensemble ended it, and the locks it held went with it
                await().atMost(Duration.ofSeconds(90)).until(() -> System.nanoTime() - paused > SESSION.plusSeconds(1).toNanos()
                        && lockedBy(store, b).isEmpty());
                signal(b, "CONT");
                note("SIGCONT b");

                await().atMost(Duration.ofMinutes(4)).until(() -> {
                    try {
                        BatchState s = store.batches().load(bid).state();
                        return s == BatchState.COMPLETED || s == BatchState.FAILED;
                    } catch (RuntimeException e) {
                        return false;
                    }
                });
                note("batch " + store.batches().load(bid).state() + ": " + completed(store, bid) + " completed");

                List<Job> jobs = store.jobs().load(store.batches().load(bid).jobIds());
                Set<String> arks = ConcurrentHashMap.newKeySet();
                for (Job j : jobs) {
                    assertEquals(JobState.COMPLETED, j.state(), j.id() + ": " + j.status());
                    assertEquals(0, j.status().retryCount(), j.id() + " was not failed and requeued by a fault");
                    arks.add(j.identifiers().primary());
                    assertEquals(1, services.callbackKeys.getOrDefault(j.id(), Set.of()).size(),
                            j.id() + ": callbacks share one key, so a receiver can drop repeats");
                }
                // a host's claim of a job that has just moved on takes its lock, reads, and lets go: a
                // lock may outlive the batch's completion by a moment, never longer
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                    for (Job j : jobs) {
                        assertTrue(client.checkExists().forPath(QueuePaths.jobLock(j.id())) == null, "no lock left on " + j.id());
                    }
                });
                assertEquals(OBJECTS, jobs.size());
                assertEquals(OBJECTS, arks.size(), "one ARK per object");
                for (String ark : arks) {
                    assertEquals(1, services.adds.get(ark).get(), "one storage version of " + ark);
                }
                assertEquals(OBJECTS, services.inventory.size(), "one inventory record per object");
                Set<String> undescribed = new java.util.TreeSet<>(arks);
                undescribed.removeAll(services.described);
                assertTrue(undescribed.isEmpty(), "every minted ARK got its EZID update; not: " + undescribed);
                int remints = 0;
                for (String name : List.of("a", "b", "c")) {
                    remints += Files.readString(dir.resolve(name + ".log")).split("began minting and recorded no ARK", -1).length - 1;
                }
                int mints = services.mints.get();
                assertTrue(mints >= OBJECTS && mints <= OBJECTS + remints, mints + " mints for " + OBJECTS + " objects: one "
                        + "each, and an extra one only where a mint was begun and its answer lost, which the log says ("
                        + remints + " such)");
                assertTrue(client.getChildren().forPath(QueuePaths.OBJECT_LOCKS).isEmpty(), "no object lock left");
                ConsistencyCheck.Report fsck = new ConsistencyCheck(store).check();
                assertTrue(fsck.clean(), fsck.toString());
                note(String.format("counts: %d mints (%d re-minted after a lost answer), %d storage adds, %d inventory calls for "
                        + "%d records, %d callbacks for %d keys, %d EZID updates", services.mints.get(), remints,
                        services.adds.values().stream().mapToInt(AtomicInteger::get).sum(), services.inventoryCalls.get(),
                        services.inventory.size(), services.callbacks.get(),
                        services.callbackKeys.values().stream().mapToInt(Set::size).sum(), services.ezidUpdates.get()));
            } finally {
                for (Process p : instances.values()) {
                    signal(p, "CONT");
                    p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                }
                System.out.println("chaos timeline:\n  " + String.join("\n  ", timeline));
            }
        }
    }
}
