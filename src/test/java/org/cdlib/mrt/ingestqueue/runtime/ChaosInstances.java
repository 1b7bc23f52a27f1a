package org.cdlib.mrt.ingestqueue.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The chaos run's service JVMs by name ({@code a}, {@code b}, {@code c}): started with the run's
 * configuration and their own log (appended to on a restart), killed with SIGKILL, signalled,
 * and found by pid — the recording server names a requester by the pid its socket belongs to.
 */
final class ChaosInstances implements AutoCloseable {
    static final List<String> NAMES = List.of("a", "b", "c");
    private final Map<String, Process> live = new ConcurrentHashMap<>();
    /** Every process started, by pid: "b#2", the instance and which of its lives. */
    private final Map<Long, String> lives = new ConcurrentHashMap<>();
    /** Each host's HTTP port, the same across its restarts (storage fetches the files through them). */
    private final Map<String, Integer> ports = new ConcurrentHashMap<>();
    private final Map<String, String> config;
    private final Path dir;
    private final ChaosTimeline timeline;
    private long cpuNanos; // of the instances that ended, guarded by this

    ChaosInstances(Map<String, String> config, Path dir, ChaosTimeline timeline) {
        this.config = config;
        this.dir = dir;
        this.timeline = timeline;
    }

    void startAll() throws IOException {
        for (String name : NAMES) {
            start(name);
        }
    }

    void start(String name) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                "-Dzookeeper.forceSync=no",
                "-Djute.maxbuffer=524288"));
        Map<String, String> own = new HashMap<>(config);
        own.put("ingest.http.port", String.valueOf(ports.computeIfAbsent(name, n -> freePort())));
        own.put("ingest.inventory.local.url", "jdbc:h2:file:" + dir.resolve("inv-" + name).toAbsolutePath() + "/inv");
        own.forEach((k, v) -> command.add("-D" + k + "=" + v));
        command.add("org.cdlib.mrt.ingestqueue.Main");
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log(name).toFile())).start();
        live.put(name, p);
        lives.put(p.pid(), name + "#" + (lives.values().stream().filter(l -> l.startsWith(name + "#")).count() + 1));
        timeline.note("started " + lives.get(p.pid()) + " (pid " + p.pid() + ")");
    }

    /** The hosts' own base URLs ({@code http://127.0.0.1:port}), of those started so far. */
    List<String> bases() {
        return NAMES.stream().filter(ports::containsKey).map(n -> "http://127.0.0.1:" + ports.get(n)).toList();
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Path log(String name) {
        return dir.resolve(name + ".log");
    }

    boolean logSays(String name, String text) {
        try {
            return Files.readString(log(name)).contains(text);
        } catch (IOException e) {
            return false;
        }
    }

    /** SIGKILL, and waits until the process is gone. */
    void kill(String name) throws InterruptedException {
        Process p = live.get(name);
        ended(p);
        p.destroyForcibly();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException(name + " (pid " + p.pid() + ") outlived SIGKILL for 30 s");
        }
    }

    void signal(String name, String sig) throws IOException, InterruptedException {
        Process p = live.get(name);
        int rc = new ProcessBuilder("kill", "-" + sig, String.valueOf(p.pid())).inheritIO().start().waitFor();
        if (rc != 0) {
            throw new IllegalStateException("kill -" + sig + " " + p.pid() + " (" + name + ") exited " + rc);
        }
    }

    long pid(String name) {
        return live.get(name).pid();
    }

    /** Which life of which instance this pid was, dead or alive; null for a pid never started here. */
    String lifeOf(long pid) {
        return lives.get(pid);
    }

    /** The instance whose process this is now; null for any other pid. */
    String nameOf(long pid) {
        return live.entrySet().stream()
                .filter(e -> e.getValue().pid() == pid)
                .map(Map.Entry::getKey)
                .findFirst()
                .orElse(null);
    }

    List<Long> pids() {
        return live.values().stream().map(Process::pid).toList();
    }

    @Override
    public void close() throws InterruptedException {
        for (Process p : live.values()) {
            try {
                new ProcessBuilder("kill", "-CONT", String.valueOf(p.pid())).start().waitFor();
            } catch (IOException e) {
                // gone already
            }
            ended(p);
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
    }

    private synchronized void ended(Process p) {
        cpuNanos += p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
    }

    /** The CPU the instances used so far, ended and running, in seconds. */
    synchronized double cpuSeconds() {
        long running = live.values().stream().filter(Process::isAlive)
                .mapToLong(p -> p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L)).sum();
        return (cpuNanos + running) / 1e9;
    }
}
