package org.cdlib.mrt.ingestqueue.runtime;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingCluster;
import org.awaitility.core.ConditionTimeoutException;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.runtime.ChaosObjects.ChaosObject;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;

/**
 * The soak (issue 43): healthy work, left running. A real 3-node ensemble and three service JVMs
 * (the chaos harness: {@link ChaosInstances}, {@link ChaosServices} as EZID, storage, inventory
 * and callback, {@link ChaosStorageFetch}), the consistency sweep every second
 * ({@code ingest.fsck.period=1000}, on whichever host leads), batches submitted continuously
 * (1–15 objects of 1 byte to 300 KB, local ids, a fifth of them slow payloads, {@link SoakPayloads}),
 * an operator at the API of random hosts ({@link SoakOperator}, fsck without repair among its
 * actions), and Merritt's tools beside it ({@link SoakNeighbour}). Nothing is damaged on purpose
 * and, by default, nothing is killed, so:
 * <ul>
 * <li>every {@code fsck finding:} line in a host's log, and every violation fsck lists through the
 * API, is a false finding (the neighbour writes only what leaves the queue consistent);</li>
 * <li>every {@code lock broken:} line is a healthy lock broken (the operator never unlocks), and so
 * is an mrt-zk lock gone or replaced before the neighbour's unlock;</li>
 * <li>a job worked by two holders shows as a second download of its payload, a second storage add,
 * mint, inventory record or callback key ({@link ChaosLedger}), or a second move into downloading;</li>
 * <li>at the end, on a quiet queue: every job completed once without a retry, no lock left, fsck
 * clean (the disk reservation counters included) in this JVM and through every host's API, and
 * every batch's completed count its number of jobs.</li>
 * </ul>
 * Figures are printed every {@code figuresEvery}: jobs done, findings, breaks, job locks held.
 */
public final class SoakRig {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Submitted jobs not yet completed above which no batch is submitted: the queue works, it does not pile up. */
    static final int BACKLOG = 60;

    /** @param kills kill -9 a random host every 90 s (and start it again at once); off for the soak proper */
    public record Settings(Duration length, long seed, boolean kills, Duration figuresEvery) {
    }

    /** The run's verdict and what it printed. */
    public record Result(boolean clean, String report, String figures, String counts) {
    }

    private SoakRig() {
    }

    public static Result run(Path home, Settings s) throws Exception {
        System.setProperty("zookeeper.4lw.commands.whitelist", "*");
        ChaosTimeline timeline = new ChaosTimeline(s.seed());
        SoakLog log = new SoakLog(timeline);
        List<String> figures = new ArrayList<>();
        SplittableRandom random = new SplittableRandom(s.seed());
        int most = (int) Math.max(200, s.length().toSeconds() * 3);
        List<ChaosObject> objects = ChaosObjects.draw(random.nextLong(), most);
        Map<Integer, Integer> slow = new HashMap<>();
        for (ChaosObject o : objects) {
            if (random.nextInt(5) == 0) {
                slow.put(o.index(), 500 + random.nextInt(2500));
            }
        }
        timeline.note(
                "soak of " + s.length() + ", seed " + s.seed() + (s.kills() ? ", kill -9 every 90 s" : ", no faults")
                        + "; up to " + most + " objects, " + slow.size() + " of them slow");
        ChaosLedger ledger;
        String counts = "";
        Path logs = home;
        try (TestingCluster cluster = new TestingCluster(3); ChaosServices services = new ChaosServices(objects);
             SoakPayloads payloads = new SoakPayloads(objects, slow)) {
            ledger = new ChaosLedger(services);
            cluster.start();
            Map<String, String> config = ChaosTest.config(cluster, services, home);
            config.put("ingest.fsck.period", "1000");
            config.put("ingest.fsck.delay", "1000");
            config.put("ingest.api.users", SoakOperator.USER + ":" + SoakOperator.PASSWORD + ":admin|submitter");
            config.put("logback.configurationFile", logback(home).toString());
            try (ChaosInstances instances = new ChaosInstances(config, home, timeline);
                 CuratorFramework client = CuratorFrameworkFactory.newClient(cluster.getConnectString(), 30_000, 15_000,
                         new ExponentialBackoffRetry(200, 10, 2000))) {
                ChaosFaults faults = new ChaosFaults(instances, cluster, timeline); // never armed: it names the senders
                services.serve(faults, instances);
                instances.startAll();
                client.start();
                client.blockUntilConnected(30, TimeUnit.SECONDS);
                try (ChaosSessions sessions = new ChaosSessions(client, instances)) {
                    services.lease = sessions::ofManifest;
                    QueueStore store = QueueTestSupport.store(client, home.resolve("queue"));
                    await().atMost(Duration.ofSeconds(180)).until(() -> ChaosInstances.NAMES.stream()
                            .allMatch(n -> instances.logSays(n, "ingest-queue running")));
                    ChaosBatches batches = new ChaosBatches(store, services, timeline);
                    Set<String> taken = ConcurrentHashMap.newKeySet();
                    long t0 = System.nanoTime();
                    long end = t0 + s.length().toNanos();
                    long nextFigures = t0;
                    long nextKill = t0 + TimeUnit.SECONDS.toNanos(90);
                    SoakOperator operator = new SoakOperator(
                            store, taken, log, instances::bases, () -> List.copyOf(batches.bids), random.nextLong());
                    SoakNeighbour neighbour =
                            new SoakNeighbour(cluster.getConnectString(), store, taken, log, random.nextLong());
                    AtomicInteger ownChecks = new AtomicInteger();
                    AtomicBoolean checking = new AtomicBoolean(true);
                    Thread fsck = new Thread(() -> fsckAlongside(store, log, ownChecks, checking), "soak-fsck");
                    fsck.setDaemon(true);
                    fsck.start();
                    try {
                        while (System.nanoTime() < end) {
                            int done = batches.completed();
                            // mostly small, some 15
                            int size = 1 + (int) Math.round(Math.pow(random.nextDouble(), 2) * 14);
                            if (done >= 0
                                    && services.submitted - done < BACKLOG
                                    && services.submitted + size <= objects.size()) {
                                submit(batches, services, payloads, slow, size);
                            }
                            if (System.nanoTime() >= nextFigures) {
                                figures.add(
                                        figures(timeline, instances, store, services, batches, operator, neighbour));
                                nextFigures += s.figuresEvery().toNanos();
                            }
                            if (s.kills() && System.nanoTime() >= nextKill) {
                                String victim = ChaosInstances.NAMES.get(random.nextInt(3));
                                instances.kill(victim);
                                timeline.note("kill -9 " + victim);
                                instances.start(victim);
                                nextKill += TimeUnit.SECONDS.toNanos(90);
                            }
                            Thread.sleep(500 + random.nextInt(2500)); // the depositors' pace between batches
                        }
                        timeline.note("submissions stop: " + services.submitted + " objects in " + batches.bids.size()
                                + " batches");
                    } finally {
                        checking.set(false); // not interrupted: a check cut off mid-read is no finding
                        fsck.join(120_000);
                        timeline.note("fsck without repair in this JVM alongside: " + ownChecks.get() + " full checks");
                        operator.close();
                        neighbour.close();
                        timeline.note(operator.counts());
                        timeline.note(neighbour.counts() + "; operator's fsck through the API: " + operator.fscks.get()
                                + " runs, " + operator.falseFindings.get() + " violations listed");
                    }
                    try {
                        await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(1)).until(batches::ended);
                    } catch (ConditionTimeoutException e) {
                        log.fail(
                                "batch", "still running 5 minutes after the last submission: " + batches.jobsByState());
                    }
                    figures.add(figures(timeline, instances, store, services, batches, null, null));
                    check(log, ledger, client, store, services, payloads, batches, instances, operator, s);
                    log.into(ledger);
                    counts = ledger.counts();
                    timeline.note("counts: " + counts);
                    timeline.note(String.format("CPU: the instances %.0f s", instances.cpuSeconds()));
                }
            }
        }
        if (!ledger.clean()) {
            Path kept = Files.createDirectories(Path.of("target", "soak-logs", "seed-" + s.seed()));
            for (String name : ChaosInstances.NAMES) {
                if (Files.exists(logs.resolve(name + ".log"))) {
                    Files.copy(
                            logs.resolve(name + ".log"),
                            kept.resolve(name + ".log"),
                            StandardCopyOption.REPLACE_EXISTING);
                }
            }
            timeline.note("the instances' logs are kept in " + kept.toAbsolutePath());
        }
        return new Result(
                ledger.clean(),
                ledger.report(),
                String.join("\n", figures) + "\ntimeline:\n" + timeline.text(),
                counts);
    }

    /**
     * The hosts' logging as the service's own, with the sweep's clean passes and fsck's "not judged"
     * (a job that moved while it was checked) at DEBUG: the figures count them.
     */
    private static Path logback(Path home) throws IOException {
        Path file = home.resolve("logback-soak.xml");
        Files.writeString(file, """
            <configuration>
              <appender name="STDOUT" class="ch.qos.logback.core.ConsoleAppender">
                <encoder>
                  <pattern>%d{yyyy-MM-dd'T'HH:mm:ss.SSSX,UTC} %-5level [%thread] %logger{20} - %msg%n</pattern>
                </encoder>
              </appender>
              <logger name="org.apache.zookeeper" level="WARN"/>
              <logger name="org.apache.curator" level="WARN"/>
              <logger name="io.vertx" level="WARN"/>
              <logger name="io.netty" level="WARN"/>
              <logger name="org.cdlib.mrt.ingestqueue.maintenance.ConsistencySweep" level="DEBUG"/>
              <logger name="org.cdlib.mrt.ingestqueue.queue.fsck" level="DEBUG"/>
              <root level="INFO"><appender-ref ref="STDOUT"/></root>
            </configuration>
            """);
        return file;
    }

    /** fsck without repair from a fourth process, one full check after another: every violation is a false finding. */
    private static void fsckAlongside(QueueStore store, SoakLog log, AtomicInteger checks,
                                      AtomicBoolean checking) {
        while (checking.get()) {
            try {
                ConsistencyCheck.Report r = new ConsistencyCheck(store).check();
                checks.incrementAndGet();
                r.violations()
                        .forEach(v -> log.fail(
                                "false-finding",
                                "fsck in the soak's JVM: " + v.kind() + " at " + v.path() + ": " + v.detail()));
                Thread.sleep(1000); // a check a second, as the sweep
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                log.fail("fsck", "fsck in the soak's JVM failed: " + e);
            }
        }
    }

    /** The next {@code n} objects as one batch, a slow object's URL on the slow payload server. */
    private static void submit(
            ChaosBatches batches, ChaosServices services, SoakPayloads payloads, Map<Integer, Integer> slow, int n) {
        int from = services.submitted;
        String name = "batch-" + batches.bids.size() + ".checkm";
        StringBuilder m = new StringBuilder("#%checkm_0.7\n"
                + "#%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-single-file-batch-manifest\n"
                + "#%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileName |"
                + " mrt:localIdentifier | mrt:title\n");
        for (ChaosObject o : services.objects.subList(from, from + n)) {
            m.append(slow.containsKey(o.index()) ? payloads.base() : services.base())
                    .append("/data/")
                    .append(o.fileName())
                    .append(" | md5 | ")
                    .append(o.md5())
                    .append(" | ")
                    .append(o.content().length)
                    .append(" | ")
                    .append(o.fileName())
                    .append(" | ")
                    .append(String.join(";", o.localIds()))
                    .append(" | ")
                    .append(o.title())
                    .append('\n');
        }
        services.manifests.put(name, m.append("#%eof\n").toString());
        services.submitted = from + n;
        String bid = batches.createBatch(name);
        batches.bids.add(bid);
    }

    /** One line of figures: jobs done, findings and breaks so far (the hosts' logs), job locks held now. */
    private static String figures(
            ChaosTimeline timeline,
            ChaosInstances instances,
            QueueStore store,
            ChaosServices services,
            ChaosBatches batches,
            SoakOperator operator,
            SoakNeighbour neighbour) {
        String line = String.format(
                "%5.0f s: %d jobs submitted, %d done; %d fsck findings, %d locks broken; %d job locks held now;"
                        + " sweep passes %s, %d jobs not judged as they moved; %s%s; load %.1f",
                timeline.seconds(),
                services.submitted,
                batches.completed(),
                logLines(instances, "fsck finding:").size(),
                logLines(instances, "lock broken:").size(),
                jobLocks(store),
                sweeps(instances),
                logLines(instances, "moved while it was checked").size(),
                operator == null ? "" : operator.actions() + " operator actions, ",
                neighbour == null
                        ? "end"
                        : (neighbour.holds.get()
                                        + neighbour.takes.get()
                                        + neighbour.releasesLocked.get()
                                        + neighbour.releasesUnlocked.get())
                                + " neighbour actions",
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        timeline.note("figures " + line);
        return line;
    }

    /** The sweep's passes so far by host ("a=12 b=0 c=0"): it runs on the leader. */
    private static String sweeps(ChaosInstances instances) {
        StringBuilder b = new StringBuilder();
        for (String name : ChaosInstances.NAMES) {
            long n = logLines(instances, "consistency sweep: batches").stream()
                    .filter(l -> l.startsWith(name + ": "))
                    .count();
            b.append(b.length() == 0 ? "" : " ").append(name).append('=').append(n);
        }
        return b.toString();
    }

    /** The job locks present now on the open jobs (ours and mrt-zk's). */
    private static int jobLocks(QueueStore store) {
        try {
            int n = 0;
            for (JobState s : JobState.values()) {
                if (s.isWorking() || s == JobState.HELD) {
                    for (String ref : store.jobs().refs(s)) {
                        if (store.calls().exists(QueuePaths.jobLock(QueuePaths.jidOfRef(ref)))) {
                            n++;
                        }
                    }
                }
            }
            return n;
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** The lines of the hosts' logs that contain {@code text}, each named by its host. */
    static List<String> logLines(ChaosInstances instances, String text) {
        List<String> found = new ArrayList<>();
        for (String name : ChaosInstances.NAMES) {
            try (Stream<String> lines = Files.lines(instances.log(name))) {
                lines.filter(l -> l.contains(text)).forEach(l -> found.add(name + ": " + l.strip()));
            } catch (IOException | UncheckedIOException e) {
                // not written yet
            }
        }
        return found;
    }

    private static void check(
            SoakLog log,
            ChaosLedger ledger,
            CuratorFramework client,
            QueueStore store,
            ChaosServices services,
            SoakPayloads payloads,
            ChaosBatches batches,
            ChaosInstances instances,
            SoakOperator operator,
            Settings s)
            throws Exception {
        logLines(instances, "fsck finding:").forEach(l -> log.fail("false-finding", l));
        logLines(instances, "lock broken:").forEach(l -> log.fail("lock-broken", l));
        List<Job> jobs = batches.jobs();
        ChaosTest.noLocksLeft(client, jobs, ledger);
        Map<String, JsonNode> effects = new HashMap<>();
        for (Job j : jobs) {
            effects.put(j.id(), ChaosTest.effects(client, j.id()));
            // a step's success into downloading: a job a batch hold stopped there and its release resumed
            // (held → downloading) came once from provisioning all the same
            long intoDownloading = j.status().history().stream()
                    .filter(e -> "downloading".equals(e.to()) && !"held".equals(e.from())).count();
            if (intoDownloading > 1) {
                log.fail("two-holders", "job " + j.id() + " moved into downloading " + intoDownloading + " times: "
                        + j.status().history());
            }
        }
        ledger.check(jobs, effects);
        for (int i = 0; i < services.submitted; i++) {
            AtomicInteger fast = services.downloads.get(i);
            AtomicInteger slow = payloads.downloads.get(i);
            int n = (fast == null ? 0 : fast.get()) + (slow == null ? 0 : slow.get());
            if (n != 1 && !s.kills()) {
                log.fail("two-holders", "object " + i + " (job " + jobOf(jobs, i) + ") downloaded " + n + " times");
            }
        }
        for (String bid : batches.bids) {
            var b = store.batches().load(bid);
            if (b.count(BatchRef.COMPLETED) != b.jobIds().size()) {
                log.fail(
                        "counters",
                        "batch " + bid + " counts " + b.count(BatchRef.COMPLETED) + " completed of "
                                + b.jobIds().size());
            }
        }
        ledger.checkFsck(new ConsistencyCheck(store).check());
        for (String base : instances.bases()) {
            HttpResponse<String> r = operator.send("fsck at the end", "GET", base, "/api/fsck");
            if (r == null || r.statusCode() != 200) {
                log.fail(
                        "fsck",
                        "GET " + base + "/api/fsck at the end: "
                                + (r == null ? "no answer" : r.statusCode() + " " + r.body()));
            } else if (JSON.readTree(r.body()).path("violations").size() > 0) {
                log.fail(
                        "fsck",
                        "GET " + base + "/api/fsck on the quiet queue: "
                                + JSON.readTree(r.body()).path("violations"));
            }
        }
    }

    private static String jobOf(List<Job> jobs, int object) {
        return jobs.stream().filter(j -> ChaosLedger.objectOf(j) == object).map(Job::id).findFirst().orElse("?");
    }
}
