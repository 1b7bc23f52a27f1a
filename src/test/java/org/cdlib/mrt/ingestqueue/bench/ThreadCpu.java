package org.cdlib.mrt.ingestqueue.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * This process's CPU split by who spent it: the JIT's compiler threads, the garbage collector's
 * threads and the rest. JFR's execution samples see Java threads only, so a profile alone never
 * shows what compiling costs; a short run after a start spends a quarter of its CPU there. Read
 * from {@code /proc/self/task/}{@code *}{@code /stat} (Linux); elsewhere every figure is 0.
 */
record ThreadCpu(long jitNanos, long gcNanos, long allNanos, long kernelNanos, long switches) {
    private static final long NANOS_PER_TICK = 10_000_000L; // USER_HZ is 100 on Linux

    static ThreadCpu now() {
        long jit = 0;
        long gc = 0;
        long all = 0;
        long kernel = 0;
        long switches = 0;
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException e) {
                    continue; // the thread ended
                }
                switches += switches(task);
                String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                long nanos = (Long.parseLong(f[11]) + Long.parseLong(f[12])) * NANOS_PER_TICK;
                all += nanos;
                kernel += Long.parseLong(f[12]) * NANOS_PER_TICK;
                if (name.contains("CompilerThre")) {
                    jit += nanos;
                } else if (name.startsWith("GC Thread") || name.startsWith("G1 ")) {
                    gc += nanos;
                }
            }
        } catch (IOException | RuntimeException e) {
            return new ThreadCpu(0, 0, 0, 0, 0);
        }
        return new ThreadCpu(jit, gc, all, kernel, switches);
    }

    ThreadCpu since(ThreadCpu before) {
        return new ThreadCpu(jitNanos - before.jitNanos, gcNanos - before.gcNanos, allNanos - before.allNanos,
                kernelNanos - before.kernelNanos, switches - before.switches);
    }

    /** A thread's context switches, voluntary (it waited) and not (it was preempted); 0 when it ended. */
    static long switches(Path task) {
        try {
            long n = 0;
            for (String line : Files.readAllLines(task.resolve("status"))) {
                if (line.startsWith("voluntary_ctxt_switches") || line.startsWith("nonvoluntary_ctxt_switches")) {
                    n += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
            return n;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** The compiler's share of this span's CPU (0 when nothing was read). */
    double jitShare() {
        return allNanos == 0 ? 0 : jitNanos / (double) allNanos;
    }

    /**
     * "JIT compiler a ms, GC b ms, the rest c ms; in the kernel d ms; e context switches" per one of {@code n}.
     * The kernel's share (system time: sockets, fsync, file writes) is part of the three and invisible to JFR.
     */
    String perJob(int n) {
        return String.format(
                "JIT compiler %.1f ms, GC %.1f ms, the rest %.1f ms; in the kernel %.1f ms; %.0f context switches",
                jitNanos / 1e6 / n,
                gcNanos / 1e6 / n,
                (allNanos - jitNanos - gcNanos) / 1e6 / n,
                kernelNanos / 1e6 / n,
                switches / (double) n);
    }

    /** One warm-up batch: runs batch {@code round} and answers its seconds. */
    interface Batch {
        double run(int round) throws Exception;
    }

    /**
     * Runs warm-up batches of {@code n} until the compiler takes under {@code -Dbench.jit.settled}
     * (0.05) of one's CPU, at most {@code -Dbench.warmup.batches} (12), printing each one's split.
     */
    static void warmUp(int n, String unit, Batch batch) throws Exception {
        double settled = Double.parseDouble(System.getProperty("bench.jit.settled", "0.05"));
        int most = Integer.getInteger("bench.warmup.batches", 12);
        for (int round = 1; round <= most; round++) {
            ThreadCpu before = now();
            double s = batch.run(round);
            ThreadCpu spent = now().since(before);
            System.out.printf(
                    "  warm-up batch %d (%d %s): %.2f s = %.0f jobs/s; CPU per job: %s%n",
                    round, n, unit, s, n / s, spent.perJob(n));
            if (spent.jitShare() < settled) {
                return;
            }
        }
    }
}
