package org.cdlib.mrt.ingestqueue.runtime;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.KeeperException;
import org.awaitility.core.ConditionTimeoutException;
import org.cdlib.mrt.ingestqueue.fetch.AddressPolicy;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.runtime.ChaosFaults.Fault;
import org.cdlib.mrt.ingestqueue.runtime.ChaosFaults.Fired;
import org.cdlib.mrt.ingestqueue.runtime.ChaosObjects.ChaosObject;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly once under faults: a real 3-node ensemble, three service JVMs sharing one working
 * directory, EZID, storage, inventory (with its local-id calls) and the callback played by a
 * recording server ({@link ChaosServices}) that counts every call by its key. The objects have
 * local ids and sizes from 1 byte to a few hundred KB, drawn from the run's seed. Faults fire
 * by progress at the risky moments ({@link ChaosFaults}): kill -9 between a mint and its bind,
 * between a bind and the ARK's record, around a storage add, during a move into or out of
 * downloading (the disk counters); the ZooKeeper leader down past the session timeout; a host
 * paused past its session; a host paused with a storage add on the wire, the add landing as the
 * host that took the job over sends its own (storage fetches an add's files through the hosts,
 * {@link ChaosStorageFetch}: the late add must be refused there, by the files' lease);
 * kill -9 of all three at once. Then {@link ChaosLedger} checks every
 * object: completed without a retry, one storage add, one inventory add, one callback key sent
 * once (again only after its sender was killed or paused before recording the answer), one
 * EZID update of its ARK, local ids bound to it, an extra mint only where the job's effects
 * record a lost answer; no lock left; fsck clean, the disk reservation counters included.
 *
 * <p>{@code -Dchaos.seed=S} repeats a run; {@code -Dchaos.runs=N} runs N seeds (the first is S,
 * or random); {@code -Dchaos.objects=N} (default 300). Every run prints its seed, timeline and counts.
 */
class ChaosTest {
    static final Duration SESSION = Duration.ofSeconds(5);
    /**
     * How long a host waits for an outside call's answer (the recording server's). 30 s, not 10:
     * on a machine loaded by other builds the recording server was seen answering after more than
     * 10 s, and an answer lost to the rig's impatience is a retry the services would not need.
     */
    static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);
    static final int OBJECTS = Integer.getInteger("chaos.objects", 300);
    /** Small batches submitted when a fault's moment has passed in every batch so far (a fast machine's run). */
    static final int RESERVE_BATCHES = 10;
    static final int RESERVE_OBJECTS = 20;
    private static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    Path dir;

    @TestFactory
    Stream<DynamicTest> everyObjectExactlyOnceWithFaultsAtTheRiskyMoments() {
        String given = System.getProperty("chaos.seed", "");
        long first = given.isBlank() ? new SecureRandom().nextLong() : Long.parseLong(given.strip());
        SplittableRandom next = new SplittableRandom(first);
        List<Long> seeds = new ArrayList<>(List.of(first));
        for (int r = 1; r < Integer.getInteger("chaos.runs", 1); r++) {
            seeds.add(next.nextLong());
        }
        return seeds.stream().map(seed -> DynamicTest.dynamicTest("seed " + seed, () -> run(seed)));
    }

    void run(long seed) throws Exception {
        System.out.println("chaos: seed " + seed + " (repeat with -Dchaos.seed=" + seed + ")");
        System.setProperty("zookeeper.4lw.commands.whitelist", "*");
        Path home = Files.createDirectories(dir.resolve("seed-" + seed));
        SplittableRandom random = new SplittableRandom(seed);
        ChaosTimeline timeline = new ChaosTimeline(seed);
        long cpu0 = testCpu();
        List<ChaosObject> objects = ChaosObjects.draw(random.nextLong(), OBJECTS + RESERVE_BATCHES * RESERVE_OBJECTS);
        List<Fault> plan = ChaosFaults.plan(random.split());
        timeline.note(
                OBJECTS + " objects, " + ChaosObjects.bytes(objects.subList(0, OBJECTS)) + " bytes; plan: " + plan);
        ChaosLedger ledger = null;
        ChaosSessions sessions = null;
        boolean checked = false;
        try (TestingCluster cluster = new TestingCluster(3); ChaosServices services = new ChaosServices(objects)) {
            ledger = new ChaosLedger(services);
            cluster.start();
            try (ChaosInstances instances = new ChaosInstances(config(cluster, services, home), home, timeline);
                 CuratorFramework client = CuratorFrameworkFactory.newClient(cluster.getConnectString(), 30_000, 15_000,
                         new ExponentialBackoffRetry(200, 10, 2000))) {
                ChaosFaults faults = new ChaosFaults(instances, cluster, timeline);
                services.serve(faults, instances);
                instances.startAll();
                client.start();
                client.blockUntilConnected(30, TimeUnit.SECONDS);
                sessions = new ChaosSessions(client, instances);
                services.lease = sessions::ofManifest;
                QueueStore store = QueueTestSupport.store(client, home.resolve("queue"));
                await().atMost(Duration.ofSeconds(180)).until(() -> ChaosInstances.NAMES.stream()
                        .allMatch(n -> instances.logSays(n, "ingest-queue running")));
                ChaosBatches batches = new ChaosBatches(store, services, timeline);
                batches.submit(OBJECTS);
                faults.label = i -> "object " + i + " (job " + batches.jids.get(i) + ")";

                int armedAt = 0;
                int fired = 0;
                for (Fault f : plan) {
                    // armed soon after the last: the later faults need jobs still minting and binding
                    int target = armedAt + random.nextInt(0, 3);
                    await().atMost(Duration.ofSeconds(180))
                            .until(() -> batches.completed() >= Math.min(target, services.submitted));
                    armedAt = batches.completed();
                    faults.arm(f);
                    Fired hit = awaitFired(faults, batches);
                    while (hit == null && batches.reserveLeft()) {
                        // the batches ran past that moment while earlier faults recovered: a small batch brings it back
                        timeline.note("not fired yet: " + f + " (armed at " + armedAt + " completed)");
                        batches.submit(RESERVE_OBJECTS);
                        hit = awaitFired(faults, batches);
                    }
                    if (hit == null) {
                        faults.disarm();
                        ledger.fail("faults", "never fired: " + f + ", the reserve batches spent");
                    } else if (hit.error() != null) {
                        ledger.fail("faults", f + " at " + hit.what() + ": " + hit.error());
                    } else {
                        fired++;
                        recover(hit, instances, cluster, batches, timeline, ledger);
                    }
                }
                timeline.note(fired + " of " + plan.size() + " faults fired; " + batches.completed() + " completed");
                try {
                    await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(500)).until(batches::ended);
                } catch (ConditionTimeoutException e) {
                    ledger.fail("batch", "still running after 5 minutes: " + batches.states());
                }
                timeline.note("batches " + batches.states() + ": " + batches.completed() + " completed");

                List<Job> jobs = batches.jobs();
                noLocksLeft(client, jobs, ledger);
                Map<String, JsonNode> effects = new HashMap<>();
                for (Job j : jobs) {
                    effects.put(j.id(), effects(client, j.id()));
                }
                ledger.check(jobs, effects);
                ledger.checkFsck(new ConsistencyCheck(store).check());
                timeline.note("counts: " + ledger.counts());
                ledger.allowedRepeats.forEach(r -> timeline.note("callback repeated (allowed): " + r));
                faults.stopped.forEach(s -> timeline.note(String.format("%s (pid %d) %s", s.life(), s.pid(), s.how())));
                services.storageAddsRefused.forEach(r -> timeline.note("storage refused an add: " + r));
                services.heldAdds.forEach(h -> timeline.note("held storage add: " + h));
                timeline.note(String.format(
                        "CPU: the instances %.0f s, this JVM (ensemble, recording server, checks) %.0f s",
                        instances.cpuSeconds(), (testCpu() - cpu0) / 1e9));
                checked = true;
            } finally {
                if (sessions != null) {
                    sessions.close();
                }
                System.out.println("chaos " + seed + " timeline:\n" + timeline.text());
            }
        } finally {
            if (!checked || !ledger.clean()) {
                keepLogs(seed, home);
            }
        }
        assertTrue(ledger.clean(), "chaos seed " + seed + " (repeat with -Dchaos.seed=" + seed + "):" + ledger.report()
                + "\ncounts: " + ledger.counts() + "\ntimeline:\n" + timeline.text());
    }

    private static void keepLogs(long seed, Path home) throws IOException {
        Path kept = Files.createDirectories(Path.of("target", "chaos-logs", "seed-" + seed));
        for (String name : ChaosInstances.NAMES) {
            if (Files.exists(home.resolve(name + ".log"))) {
                Files.copy(
                        home.resolve(name + ".log"), kept.resolve(name + ".log"), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        System.out.println("chaos " + seed + ": the instances' logs are kept in " + kept.toAbsolutePath());
    }

    static Map<String, String> config(TestingCluster cluster, ChaosServices services, Path home) throws Exception {
        Path profiles = Files.createDirectories(home.resolve("profiles"));
        Files.writeString(profiles.resolve("chaos"), "ProfileID: chaos\nCollection.1: ark:/99999/fk4chaos\n"
                + "Owner: " + ChaosServices.OWNER + "\n"
                + "ObjectMinterURL: " + services.base() + "/ezid/shoulder/ark:/99999/fk4\n"
                + "StorageService: " + services.base() + "/store\nStorageNode: 9999\n"
                + "CallbackURL: " + services.base() + "/cb\n");
        Map<String, String> config = new HashMap<>();
        config.put("zookeeper.connect", cluster.getConnectString());
        config.put("zookeeper.session-timeout", "PT" + SESSION.toSeconds() + "S");
        config.put("ingest.home", home.resolve("queue").toString());
        config.put("ingest.profiles", profiles.toString());
        config.put("ingest.minter", "ezid");
        config.put("ingest.ezid.user", "u");
        config.put("ingest.ezid.password", "p");
        config.put("ingest.ezid.target", "https://example.org/m/");
        config.put("ingest.storage", "http");
        config.put("ingest.storage.settle", "PT5S"); // the recording server makes a version within ms of its last fetch
        // an add or update with no answer in time (the recording server starved under load) may land seconds later
        config.put("ingest.inventory.settle", CALL_TIMEOUT.plusSeconds(15).toString());
        config.put("ingest.ezid.settle", CALL_TIMEOUT.plusSeconds(15).toString());
        config.put("ingest.files.base-url", services.base() + "/files");
        config.put("ingest.inventory", "http");
        config.put("ingest.inventory.url", services.base() + "/inv");
        config.put("ingest.http.port", "0");
        config.put("ingest.fetch.allow", AddressPolicy.LOOPBACK); // the recording server
        config.put("ingest.mail.outbox", home.resolve("outbox").toString());
        config.put("camel.component.http.response-timeout", String.valueOf(CALL_TIMEOUT.toMillis()));
        config.put("camel.component.http.so-timeout", String.valueOf(CALL_TIMEOUT.toMillis()));
        config.put("ingest.services.retry-delay", "200");
        config.put("ingest.provisioning.retry-delay", "200");
        config.put("ingest.processing.retry-delay", "300");
        config.put("ingest.batch.retry-delay", "500");
        config.put("camel.main.shutdown-timeout", "5");
        config.put("camel.main.routes-include-pattern", "file:routes/*.yaml");
        return config;
    }

    /** The armed fault once it went off; null when no request reached its moment in time (or the batch ended first). */
    static Fired awaitFired(ChaosFaults faults, ChaosBatches batches) {
        try {
            await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(50))
                    .until(() -> faults.fired() != null || batches.ended());
        } catch (ConditionTimeoutException e) {
            return null;
        }
        return faults.fired();
    }

    /**
     * Restarts what a kill took; keeps a paused host or the stopped
     * leader down past the session, the queue moving meanwhile.
     */
    static void recover(Fired fired, ChaosInstances instances, TestingCluster cluster, ChaosBatches batches,
                        ChaosTimeline timeline, ChaosLedger ledger) throws Exception {
        QueueStore store = batches.store;
        Duration past = SESSION.plusSeconds(1);
        switch (fired.fault().kind()) {
            case KILL -> instances.start(fired.instance());
            case KILL_ALL -> {
                for (String name : ChaosInstances.NAMES) {
                    instances.start(name);
                }
            }
            case STOP, STOP_HELD -> {
                Set<String> held = lockedBy(store, fired.pid());
                timeline.note(fired.instance() + " paused holding " + held.size() + " job lock(s): "
                        + held.stream().limit(8).toList() + (held.size() > 8 ? " …" : ""));
                stalled(ledger, timeline, batches, fired, () -> System.nanoTime() - fired.nanos() > past.toNanos()
                        && lockedBy(store, fired.pid()).isEmpty());
                instances.signal(fired.instance(), "CONT");
                timeline.note("SIGCONT " + fired.instance() + "; the " + held.size() + " job lock(s) it held are gone");
            }
            case LEADER -> {
                int atStop = batches.completed();
                stalled(ledger, timeline, batches, fired, () -> System.nanoTime() - fired.nanos() > past.toNanos()
                        && (batches.completed() >= atStop + 5 || batches.ended()));
                cluster.restartServer(fired.leader());
                timeline.note("ZooKeeper server on port " + fired.leader().getPort() + " restarted; "
                        + batches.completed() + " completed (" + atStop + " when it stopped)");
            }
        }
    }

    /**
     * Waits up to 90 s for the queue to get past the fault; when it does not, that is a failure of
     * the run (recorded with where every job is), and the run goes on so the end shows whether the
     * queue recovered once the fault was undone.
     */
    private static void stalled(ChaosLedger ledger, ChaosTimeline timeline, ChaosBatches batches, Fired fired,
                                Callable<Boolean> past) {
        try {
            await().atMost(Duration.ofSeconds(90)).until(past);
        } catch (ConditionTimeoutException e) {
            String where = batches.states() + "; jobs by state: " + batches.jobsByState();
            timeline.note("STALLED 90 s after " + fired.fault() + ": " + where);
            ledger.fail("progress", "no progress 90 s after " + fired.fault() + ": " + where);
        }
    }

    /** The jobs whose lock the process holds now (its pid is in the lock's owner data). */
    static Set<String> lockedBy(QueueStore store, long pid) {
        Set<String> jids = new TreeSet<>();
        try {
            for (JobState s : JobState.values()) {
                if (s.isWorking()) {
                    for (Job j : store.jobs().load(store.jobs().refs(s).stream().map(QueuePaths::jidOfRef).toList())) {
                        if (j.lockOwner() != null && j.lockOwner().pid() == pid) {
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

    /**
     * A host's claim of a job that has just moved on takes its lock, reads, and lets go: a lock
     * may outlive the batch's completion by a moment, never 30 s. No object lock is left.
     */
    static void noLocksLeft(CuratorFramework client, List<Job> jobs, ChaosLedger ledger) throws Exception {
        try {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> jobs.stream().allMatch(j -> exists(client, QueuePaths.jobLock(j.id())) == 0));
        } catch (ConditionTimeoutException e) {
            jobs.stream()
                    .filter(j -> exists(client, QueuePaths.jobLock(j.id())) != 0)
                    .forEach(j -> ledger.fail(
                            "locks", "job " + j.id() + " (object " + ChaosLedger.objectOf(j) + ") still locked"));
        }
        for (String lock : client.getChildren().forPath(QueuePaths.OBJECT_LOCKS)) {
            ledger.fail("locks", "object lock " + lock + " left");
        }
    }

    private static int exists(CuratorFramework client, String path) {
        try {
            return client.checkExists().forPath(path) == null ? 0 : 1;
        } catch (Exception e) {
            return -1;
        }
    }

    /** The job's effects node; a completed job's, moved into its status's summary when it completed (JobCompaction). */
    static JsonNode effects(CuratorFramework client, String jid) throws Exception {
        try {
            return JSON.readTree(client.getData().forPath(QueuePaths.jobNode(jid, "effects")));
        } catch (KeeperException.NoNodeException e) {
            JsonNode status = JSON.readTree(client.getData().forPath(QueuePaths.jobStatus(jid)));
            if ("Completed".equals(status.path("status").asText()) && !status.path("summary").has("effects")) {
                throw new AssertionError(
                        "completed job " + jid + " has neither an effects node nor a summary of them: " + status);
            }
            return status.path("summary").has("effects") ? status.path("summary").get("effects") : null;
        }
    }

    private static long testCpu() {
        return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }
}
