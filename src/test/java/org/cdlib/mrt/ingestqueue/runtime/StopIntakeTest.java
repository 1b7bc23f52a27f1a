package org.cdlib.mrt.ingestqueue.runtime;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobHistory;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SIGTERM to a service JVM whose steps are slow ({@link SlowStepsMain}): intake stops at once in
 * every consumer (no step starts after the stop began, no claim, no hand-off into a new step),
 * the steps in hand finish and move their jobs once, the process exits within the longest step in
 * hand plus a few seconds and never later than camel.main.shutdown-timeout, and a restart
 * completes the batch with no step lost or repeated.
 */
class StopIntakeTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    private static final Pattern STEP = Pattern.compile("slow step (\\w+) (\\w+) (started|ended|interrupted) (\\d+)");
    private static final String STOP_BEGAN = "stopping: taking no new work";
    private static final Map<String, JobState> STATE_OF = Map.of(
            "estimateStep",
            JobState.ESTIMATING,
            "provisionStep",
            JobState.PROVISIONING,
            "downloadStep",
            JobState.DOWNLOADING,
            "processStep",
            JobState.PROCESSING,
            "storeStep",
            JobState.STORING,
            "recordStep",
            JobState.RECORDING,
            "notifyStep",
            JobState.NOTIFY);
    final Path dir = ZK.dir();

    /** A step's line: which step, which job, what happened, when (ms). */
    record StepLine(String step, String jid, String what, long at) {
    }

    @Test
    void sigtermStopsIntakeAtOnceAndTheBatchCompletesAfterARestart() throws Exception {
        int jobs = 40;
        long stepMs = 3000;
        QueueStore store = ZK.store(dir.resolve("queue"));
        Process first = start("first", stepMs, 60);
        store.holds().holdQueue("test"); // the batch is made here, not by the service's batch-pending route
        String bid = QueueTestSupport.batchWithJobs(store, jobs, 5);
        store.holds().releaseQueue();
        // the pipeline is deep: steps of at least three states in hand at once
        await().atMost(Duration.ofSeconds(120))
                .until(() -> steps("first").stream()
                                .filter(s -> s.what.equals("started"))
                                .map(StepLine::step)
                                .distinct()
                                .count()
                        >= 3);

        long signalled = System.currentTimeMillis();
        signal(first, "TERM");
        assertTrue(first.waitFor(120, TimeUnit.SECONDS), "the service exits");
        long exited = System.currentTimeMillis();

        long stopAt = stopBegan("first");
        List<StepLine> lines = steps("first");
        List<StepLine> inHand = inHandAt(lines, stopAt);
        List<StepLine> startedAfter = lines.stream().filter(s -> s.what.equals("started") && s.at > stopAt).toList();
        List<JobHistory.Entry> movesAfter = new ArrayList<>();
        Map<String, List<JobHistory.Entry>> histories = new TreeMap<>();
        Set<String> movedBefore = new HashSet<>();
        for (String jid : store.batches().load(bid).jobIds()) {
            List<JobHistory.Entry> history = store.jobs().load(jid).status().history();
            List<JobHistory.Entry> after = history.stream()
                    .filter(e -> Instant.parse(e.at()).toEpochMilli() > stopAt)
                    .toList();
            history.stream().filter(e -> Instant.parse(e.at()).toEpochMilli() <= stopAt)
                    .forEach(e -> movedBefore.add(jid + " " + e.from()));
            histories.put(jid, after);
            movesAfter.addAll(after);
        }
        // a step that ended just before the stop moves its job just after: its move is still its own
        Set<String> unmoved = lines.stream().filter(s -> s.what.equals("started") && s.at <= stopAt)
                .map(s -> s.jid + " " + STATE_OF.get(s.step).wire()).filter(m -> !movedBefore.contains(m))
                .collect(Collectors.toSet());
        long longestLeft = inHand.stream().mapToLong(s -> s.at + stepMs - signalled).max().orElse(0);
        System.out.printf(
                "SIGTERM: stop began %d ms after the signal; %d step(s) in hand (longest left %d ms); "
                        + "%d step(s) started and %d transition(s) after it; exited %d ms after the signal%n",
                stopAt - signalled,
                inHand.size(),
                longestLeft,
                startedAfter.size(),
                movesAfter.size(),
                exited - signalled);

        assertTrue(
                stopAt - signalled < 3000,
                "the stop begins at the signal, began " + (stopAt - signalled) + " ms after");
        assertTrue(!inHand.isEmpty(), "steps were in hand when the stop began");
        assertEquals(List.of(), startedAfter, "no step starts once the stop began (no claim, no hand-off)");
        // each step started before the stop moves its job out of its state once: nothing else moves
        histories.forEach((jid, after) -> after.forEach(e -> assertTrue(
                unmoved.contains(jid + " " + e.from()),
                "after the stop began, job " + jid + " moved " + e.from() + " -> " + e.to()
                        + " without a step in hand")));
        Map<String, Long> perStep = new TreeMap<>();
        histories.forEach((jid, after) -> after.forEach(e -> perStep.merge(jid + " " + e.from(), 1L, Long::sum)));
        assertEquals(
                Map.of(),
                perStep.entrySet().stream()
                        .filter(e -> e.getValue() != 1)
                        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)),
                "each step's job moved once after the stop");
        assertEquals(
                0, lines.stream().filter(s -> s.what.equals("interrupted")).count(), "no step in hand was cut short");
        assertTrue(exited - signalled <= longestLeft + 8000, "exits within the longest step in hand (" + longestLeft
                + " ms) and a few seconds, took " + (exited - signalled) + " ms");

        Process second = start("second", stepMs, 60);
        try {
            await().atMost(Duration.ofSeconds(300))
                    .until(() -> store.batches().load(bid).state() == BatchState.COMPLETED);
        } finally {
            signal(second, "TERM");
            second.waitFor(120, TimeUnit.SECONDS);
        }
        for (String jid : store.batches().load(bid).jobIds()) {
            assertEquals(JobState.COMPLETED, store.jobs().load(jid).state(), jid);
        }
        List<StepLine> all = new ArrayList<>(lines);
        all.addAll(steps("second"));
        Map<String, Long> runs = all.stream().filter(s -> s.what.equals("started"))
                .collect(Collectors.groupingBy(s -> s.step + " " + s.jid, TreeMap::new, Collectors.counting()));
        assertEquals(jobs * STATE_OF.size(), runs.size(), "every step of every job ran: nothing lost");
        assertEquals(Map.of(), runs.entrySet().stream().filter(e -> e.getValue() != 1)
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)), "no step ran twice");
    }

    @Test
    void aStopNeverOutlastsTheShutdownTimeout() throws Exception {
        int timeoutS = 6;
        QueueStore store = ZK.store(dir.resolve("queue"));
        store.holds().holdQueue("test");
        String bid = QueueTestSupport.batchWithJobs(store, 12, 5);
        List<String> jids = store.batches().load(bid).jobIds();
        // two jobs in each of six states, each state its own consumer: a step there outlasts the timeout
        List<JobState> states = List.of(
                JobState.ESTIMATING,
                JobState.PROVISIONING,
                JobState.PROCESSING,
                JobState.STORING,
                JobState.RECORDING,
                JobState.NOTIFY);
        Map<String, JobState> placed = new HashMap<>();
        for (int i = 0; i < jids.size(); i++) {
            JobState to = states.get(i / 2);
            QueueTestSupport.walk(store, jids.get(i), QueueTestSupport.pipelineTo(to));
            placed.put(jids.get(i), to);
        }
        Process service = start("stuck", 600_000, timeoutS);
        store.holds().releaseQueue();
        await().atMost(Duration.ofSeconds(120))
                .until(() -> steps("stuck").stream()
                                .filter(s -> s.what.equals("started"))
                                .count()
                        == jids.size());

        long signalled = System.currentTimeMillis();
        signal(service, "TERM");
        assertTrue(service.waitFor(120, TimeUnit.SECONDS), "the service exits");
        long took = System.currentTimeMillis() - signalled;
        System.out.printf("SIGTERM with %d steps outlasting the %d s timeout in %d states: exited after %d ms%n",
                jids.size(), timeoutS, states.size(), took);
        assertTrue(took <= timeoutS * 1000L + 5000, "the stop keeps to camel.main.shutdown-timeout (" + timeoutS
                + " s) and a few seconds, took " + took + " ms");
        for (String jid : jids) {
            Job job = store.jobs().load(jid);
            assertEquals(placed.get(jid), job.state(), jid + " handed back where it was");
            assertEquals(0, job.status().retryCount(), jid);
            assertNull(job.status().errorMessage(), jid);
            assertNull(ZK.client().checkExists().forPath(QueuePaths.jobLock(jid)), jid + " unlocked");
        }
    }

    /** The steps started at or before {@code at} that had not ended by then. */
    private static List<StepLine> inHandAt(List<StepLine> lines, long at) {
        Set<String> ended = lines.stream()
                .filter(s -> !s.what.equals("started") && s.at <= at)
                .map(s -> s.step + " " + s.jid)
                .collect(Collectors.toSet());
        return lines.stream()
                .filter(s -> s.what.equals("started") && s.at <= at && !ended.contains(s.step + " " + s.jid))
                .toList();
    }

    private Process start(String name, long stepMs, int shutdownTimeoutS) throws IOException {
        Map<String, String> config = new HashMap<>(ServiceTestSupport.config(ZK.connectString(), dir));
        config.put("camel.main.shutdown-timeout", String.valueOf(shutdownTimeoutS));
        config.put("ingest.inventory.local.url", "jdbc:h2:file:" + dir.resolve("inventory").toAbsolutePath() + "/inv");
        config.put("ingest.storage.local.root", dir.resolve("storage").toString());
        config.put("ingest.mail.outbox", dir.resolve("outbox").toString());
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                "-Djute.maxbuffer=524288",
                "-Dslow.step.ms=" + stepMs,
                // the service's own log format (its lines carry the date and time, UTC), not the tests'
                "-Dlogback.configurationFile="
                        + Path.of("src/main/resources/logback.xml").toAbsolutePath()));
        config.forEach((k, v) -> command.add("-D" + k + "=" + v));
        command.add(SlowStepsMain.class.getName());
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log(name).toFile()).start();
        try {
            await().atMost(Duration.ofSeconds(180))
                    .until(() -> !p.isAlive() || read(name).contains("ingest-queue running"));
        } catch (RuntimeException e) {
            p.destroyForcibly();
            throw e;
        }
        assertTrue(p.isAlive(), name + " started: " + read(name));
        return p;
    }

    private static void signal(Process p, String sig) throws IOException, InterruptedException {
        assertEquals(0, new ProcessBuilder("kill", "-" + sig, String.valueOf(p.pid())).inheritIO().start().waitFor());
    }

    private Path log(String name) {
        return dir.resolve(name + ".log");
    }

    private String read(String name) {
        try {
            return Files.readString(log(name));
        } catch (IOException e) {
            return "";
        }
    }

    private List<StepLine> steps(String name) {
        List<StepLine> out = new ArrayList<>();
        Matcher m = STEP.matcher(read(name));
        while (m.find()) {
            out.add(new StepLine(m.group(1), m.group(2), m.group(3), Long.parseLong(m.group(4))));
        }
        return out;
    }

    /** When the service's stop began, by its own line (the log's time stamp, UTC). */
    private long stopBegan(String name) {
        return read(name).lines().filter(l -> l.contains(STOP_BEGAN)).findFirst()
                .map(l -> Instant.parse(l.substring(0, l.indexOf(' '))).toEpochMilli())
                .orElseThrow(() -> new AssertionError("no line '" + STOP_BEGAN + "' in " + log(name)));
    }
}
