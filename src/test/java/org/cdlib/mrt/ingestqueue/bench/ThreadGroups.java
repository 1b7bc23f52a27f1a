package org.cdlib.mrt.ingestqueue.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * With {@code -Dbench.threads=true}: the measured span's CPU, kernel time and context switches by
 * kind of thread (names with their numbers taken out), read from {@code /proc/self/task} (Linux).
 * Says who switches, which neither JFR nor the totals show.
 */
final class ThreadGroups {
    private final Map<String, long[]> byKind; // user ticks, kernel ticks, switches

    private ThreadGroups(Map<String, long[]> byKind) {
        this.byKind = byKind;
    }

    static ThreadGroups now() {
        Map<String, long[]> out = new TreeMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    long switches = ThreadCpu.switches(task);
                    long[] sum = out.computeIfAbsent(name.replaceAll("[0-9]+", "N"), k -> new long[3]);
                    sum[0] += Long.parseLong(f[11]);
                    sum[1] += Long.parseLong(f[12]);
                    sum[2] += switches;
                } catch (IOException | RuntimeException e) {
                    // the thread ended
                }
            }
        } catch (IOException e) {
            return new ThreadGroups(Map.of());
        }
        return new ThreadGroups(out);
    }

    /** Per one of {@code n}, the kinds with the most context switches first: CPU ms, kernel ms, switches. */
    void printSince(ThreadGroups before, int n) {
        System.out.printf(
                "  by thread (15-character names, numbers as N): CPU ms, kernel ms, context switches a job%n");
        byKind.entrySet().stream()
                .map(e -> {
                    long[] b = before.byKind.getOrDefault(e.getKey(), new long[3]);
                    long[] a = e.getValue();
                    return Map.entry(e.getKey(), new double[] {
                        (a[0] + a[1] - b[0] - b[1]) * 10.0 / n, (a[1] - b[1]) * 10.0 / n, (a[2] - b[2]) / (double) n
                    });
                })
                .filter(e -> e.getValue()[2] >= 0.5 || e.getValue()[0] >= 0.05)
                .sorted((x, y) -> Double.compare(y.getValue()[2], x.getValue()[2]))
                .limit(20)
                .forEach(e -> System.out.printf(
                        "    %-16s %6.2f %6.2f %7.1f%n",
                        e.getKey(), e.getValue()[0], e.getValue()[1], e.getValue()[2]));
    }
}
