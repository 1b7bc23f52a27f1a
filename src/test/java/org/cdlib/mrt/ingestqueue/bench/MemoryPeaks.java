package org.cdlib.mrt.ingestqueue.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Where a case's peak RSS is: the process's anonymous memory ({@code RssAnon}: the heap, the JVM's native memory)
 * and the heap the JVM has committed, their highest values sampled every 100 ms while the case runs. VmHWM alone
 * cannot tell a heap G1 grew under garbage from anything else.
 */
final class MemoryPeaks implements AutoCloseable {
    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "memory-peaks");
        t.setDaemon(true);
        return t;
    });
    private volatile long anonKb;
    private volatile long heapCommitted;

    MemoryPeaks() {
        sampler.scheduleAtFixedRate(this::sample, 0, 100, TimeUnit.MILLISECONDS);
    }

    private void sample() {
        heapCommitted = Math.max(heapCommitted, memory.getHeapMemoryUsage().getCommitted());
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("RssAnon:")) {
                    anonKb = Math.max(anonKb, Long.parseLong(line.replaceAll("[^0-9]", "")));
                }
            }
        } catch (IOException e) {
            anonKb = -1;
        }
    }

    @Override
    public void close() throws InterruptedException {
        sampler.shutdown();
        sampler.awaitTermination(10, TimeUnit.SECONDS);
        sample();
    }

    /** "RssAnon N MB, heap committed M MB" at their highest. */
    String peaks() {
        return String.format("peak RssAnon %d MB, heap committed at most %d MB", anonKb / 1024,
                heapCommitted >> 20);
    }
}
