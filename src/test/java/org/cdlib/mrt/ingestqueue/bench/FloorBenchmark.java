package org.cdlib.mrt.ingestqueue.bench;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.commons.io.FileUtils;
import org.cdlib.mrt.ingestqueue.fetch.AddressPolicy;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionEvent;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.runtime.IngestService;
import org.slf4j.LoggerFactory;

/**
 * Bytes against their floor: objects of large single files, a many-file object and a realistic mix through the real
 * path (the service on its embedded default, local OCFL storage, H2 inventory), served by {@link GeneratedPayloads}
 * on loopback, each object submitted as a batch manifest of object manifests. Per case it prints the wall time from
 * submission to the batch's end, MB/s, the process's CPU, its peak RSS (VmHWM, reset before each case through
 * {@code /proc/self/clear_refs}), the bytes the process read and wrote ({@code /proc/self/io}) per byte of payload, and
 * the same bytes' floor measured right after on the same disk: {@code curl} into files (4 at once), one {@code cp -r}
 * and {@code sync -f}; the service's speed as a share of the floor's. The payload server runs in this JVM: its socket
 * writes are in wchar (one per payload byte, subtracted in the "files" column) and its CPU in the process's.
 * Options: {@code -Dbench.sizes=1,5} (GiB, single-file objects; 20 on a disk that has ~70 GB free),
 * {@code -Dbench.many=1000} (files in the mixed-size object, 0: none), {@code -Dbench.mix=10} (GiB of the realistic
 * mix, 0: none), {@code -Dbench.files=DIR} (the working directories and OCFL there), {@code -Dbench.floor=false}
 * (the service alone: no floor measured, for memory profiling). Asserts nothing.
 */
final class FloorBenchmark {
    private static final long MIB = 1L << 20;
    private static final long GIB = 1L << 30;
    private static final boolean FLOOR = !"false".equals(System.getProperty("bench.floor"));
    private static final String FIELDS = "#%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize"
            + " | nfo:fileLastModified | nfo:fileName";

    private final GeneratedPayloads payloads;
    private final QueueStore store;
    private final Path storage;
    private final Path scratch;
    private final AtomicReference<String> bid = new AtomicReference<>("none");
    private final AtomicReference<CompletableFuture<String>> done = new AtomicReference<>(new CompletableFuture<>());
    private final Map<String, Long> entered = new ConcurrentHashMap<>();
    private final Map<String, Long> inState = new ConcurrentHashMap<>();
    private long seed = 1;

    private FloorBenchmark(GeneratedPayloads payloads, QueueStore store, Path storage, Path scratch) {
        this.payloads = payloads;
        this.store = store;
        this.storage = storage;
        this.scratch = scratch;
        store.addListener(e -> {
            if (!e.batchId().equals(bid.get())) {
                return;
            }
            if (TransitionEvent.JOB.equals(e.kind())) {
                // the time the case's jobs spent in each state, summed: where a large object's seconds go
                long now = System.nanoTime();
                Long since = entered.put(e.id(), now);
                if (since != null && e.from() != null) {
                    inState.merge(e.from(), now - since, Long::sum);
                }
            } else if ("completed".equals(e.to()) || "failed".equals(e.to())) {
                done.get().complete(e.to());
            }
        });
    }

    public static void main(String[] args) throws Exception {
        Path dir = System.getProperty("bench.files") == null ? BenchDirs.temporary("floor-")
                : BenchDirs.temporary(Path.of(System.getProperty("bench.files")), "floor-");
        Map<String, String> config = new HashMap<>();
        config.put("zookeeper.embedded.dir", dir.resolve("zookeeper").toString());
        config.put("zookeeper.embedded.port", "0");
        config.put("ingest.home", dir.resolve("queue").toString());
        config.put("ingest.profiles", dir.resolve("profiles").toString());
        config.put("ingest.storage.local.root", dir.resolve("storage").toString());
        config.put("ingest.inventory.local.url",
                "jdbc:h2:file:" + dir.resolve("inventory").toAbsolutePath() + "/inventory");
        config.put("ingest.mail.outbox", dir.resolve("outbox").toString());
        config.put("ingest.http.enabled", "false");
        config.put("ingest.fetch.allow", AddressPolicy.LOOPBACK);
        config.put("camel.main.routes-include-pattern", "file:routes/*.yaml");
        QueueBenchmark.passThrough(config);
        try (GeneratedPayloads payloads = new GeneratedPayloads();
                IngestService service = new IngestService(config, Map.of())) {
            quiet();
            service.start();
            FloorBenchmark b = new FloorBenchmark(payloads, service.store(), dir.resolve("storage"),
                    Files.createDirectories(dir.resolve("floor")));
            System.out.printf("%nbytes against the floor (%s; %d CPUs; load average %s)%n", dir,
                    Runtime.getRuntime().availableProcessors(), Files.readString(Path.of("/proc/loadavg")).trim());
            System.out.printf("  %-34s %8s %8s %8s %9s %8s %7s %6s  %s%n", "case", "bytes", "service", "MB/s",
                    "CPU s", "peak RSS", "floor", "ratio", "per payload byte: rchar, wchar (files), disk read, write");
            b.measure("warm-up, 20 objects of 1 MiB", b.objects(20, 1, 1, MIB, MIB, false), false);
            b.measure("one byte", b.objects(1, 1, 1, 1, 1, false), false);
            for (String s : System.getProperty("bench.sizes", "1,5").split(",")) {
                if (s.isBlank()) {
                    continue;
                }
                long size = Long.parseLong(s.trim()) * GIB;
                b.measure("one file of " + s.trim() + " GiB", List.of(List.of(size)), true);
            }
            int many = Integer.getInteger("bench.many", 1000);
            if (many > 0) {
                // 1 KiB to 16 MiB, log-uniform: most files small, most bytes in the few large ones
                b.measure(many + " files, 1 KiB-16 MiB", b.objects(1, many, many, 1024, 16 * MIB, false), true);
            }
            int mix = Integer.getInteger("bench.mix", 10);
            if (mix > 0) {
                List<List<Long>> objects = b.objects(40, 1, 1000, 1024, 64 * MIB, true);
                b.fillWithLarge(objects, mix * GIB);
                b.measure("mix: " + objects.size() + " objects, " + objects.stream().mapToInt(List::size).sum()
                        + " files", objects, true);
            }
        }
    }

    /**
     * {@code count} objects of {@code minFiles}-{@code maxFiles} files (log-uniform), file sizes log-uniform in
     * [{@code min}, {@code max}]; {@code mostlySmall}: 98% of the files 1-256 KiB, the rest in [1 MiB, max].
     */
    private List<List<Long>> objects(int count, int minFiles, int maxFiles, long min, long max, boolean mostlySmall) {
        Random r = new Random(count * 31L + maxFiles);
        List<List<Long>> objects = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int files = (int) Math.round(logUniform(r, minFiles, maxFiles));
            List<Long> sizes = new ArrayList<>();
            for (int f = 0; f < files; f++) {
                boolean small = mostlySmall && r.nextDouble() < 0.98;
                sizes.add(Math.round(small ? logUniform(r, 1024, 256 * 1024)
                        : logUniform(r, mostlySmall ? MIB : min, max)));
            }
            objects.add(sizes);
        }
        return objects;
    }

    /** Files of 1-3 GiB added to the mix's objects until it holds {@code total} bytes. */
    private void fillWithLarge(List<List<Long>> objects, long total) {
        Random r = new Random(7);
        long have = objects.stream().flatMap(List::stream).mapToLong(Long::longValue).sum();
        while (have < total) {
            long size = Math.min(total - have, GIB + (long) (r.nextDouble() * 2 * GIB));
            objects.get(r.nextInt(objects.size())).add(size);
            have += size;
        }
    }

    private static double logUniform(Random r, double min, double max) {
        return Math.exp(Math.log(min) + r.nextDouble() * (Math.log(max) - Math.log(min)));
    }

    private void measure(String label, List<List<Long>> objects, boolean withFloor) throws Exception {
        List<List<String>> urls = new ArrayList<>();
        long bytes = 0;
        String run = "c" + seed;
        StringBuilder batch = new StringBuilder("#%checkm_0.7\n"
                + "#%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-batch-manifest\n"
                + "#%fields | nfo:fileUrl | nfo:fileName | mrt:localIdentifier | mrt:title\n");
        for (int o = 0; o < objects.size(); o++) {
            List<String> objectUrls = new ArrayList<>();
            StringBuilder m = new StringBuilder("#%checkm_0.7\n"
                    + "#%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-ingest-manifest\n"
                    + FIELDS + "\n");
            for (int f = 0; f < objects.get(o).size(); f++) {
                long size = objects.get(o).get(f);
                String url = payloads.url(seed++, size);
                objectUrls.add(url);
                bytes += size;
                m.append(url).append(" | | | ").append(size).append(" | | f").append(f).append(".bin\n");
            }
            urls.add(objectUrls);
            String name = "/" + run + "-o" + o + ".checkm";
            payloads.documents().put(name, m.append("#%eof\n").toString().getBytes(StandardCharsets.UTF_8));
            batch.append(payloads.base()).append(name).append(" | ").append(run).append("-o").append(o)
                    .append(".checkm | bench-").append(System.nanoTime()).append(" | Object ").append(o).append('\n');
        }
        payloads.documents().put("/" + run + ".checkm",
                batch.append("#%eof\n").toString().getBytes(StandardCharsets.UTF_8));

        entered.clear();
        inState.clear();
        ThreadGroups threads0 = ThreadGroups.now();
        System.gc();
        Files.writeString(Path.of("/proc/self/clear_refs"), "5"); // VmHWM from here
        long[] io0 = io();
        long cpu0 = QueueBenchmark.processCpuNanos();
        MemoryPeaks memory = new MemoryPeaks();
        long t0 = System.nanoTime();
        synchronized (bid) {
            bid.set(store.batches().create(submission(payloads.base() + "/" + run + ".checkm")));
        }
        String end = done.get().get(2, TimeUnit.HOURS);
        done.set(new CompletableFuture<>());
        double s = (System.nanoTime() - t0) / 1e9;
        double cpu = (QueueBenchmark.processCpuNanos() - cpu0) / 1e9;
        long[] io = io();
        long hwm = status("VmHWM");
        memory.close();
        for (int i = 0; i < io.length; i++) {
            io[i] -= io0[i];
        }
        emptyStorage();
        double floor = withFloor && FLOOR ? floor(urls) : Double.NaN;
        double b = Math.max(1, bytes);
        System.out.printf("  %-34s %8s %7.1fs %8.0f %9.1f %6d MB %6.1fs %6.2f  %.2f, %.2f (%.2f), %.2f, %.2f%s%n",
                label, bytes < 1_000_000 ? bytes + " B" : Math.round(bytes / 1e6) + " MB", s, bytes / 1e6 / s, cpu,
                hwm / 1024, floor,
                floor / s, io[0] / b, io[1] / b, (io[1] - bytes) / b, io[2] / b, io[3] / b,
                "completed".equals(end) ? "" : "  BATCH " + end.toUpperCase());
        StringBuilder states = new StringBuilder("    seconds in each state (the case's jobs summed):");
        for (String state : List.of("estimating", "provisioning", "downloading", "processing", "storing",
                "recording", "notify")) {
            states.append(String.format(" %s %.1f", state, inState.getOrDefault(state, 0L) / 1e9));
        }
        System.out.println(states);
        System.out.println("    memory: " + memory.peaks());
        if (Boolean.getBoolean("bench.threads")) {
            ThreadGroups.now().printSince(threads0, 1);
        }
    }

    /** The same bytes with curl into files (4 transfers at once), copied once with cp -r, synced: seconds. */
    private double floor(List<List<String>> urls) throws Exception {
        Path got = scratch.resolve("got");
        Path copy = scratch.resolve("copy");
        Files.createDirectories(got);
        StringBuilder config = new StringBuilder();
        int i = 0;
        for (List<String> object : urls) {
            for (String url : object) {
                config.append("url = \"").append(url).append("\"\noutput = \"").append(got.resolve("f" + i++))
                        .append("\"\n");
            }
        }
        Path list = scratch.resolve("curl.config");
        Files.writeString(list, config);
        long t0 = System.nanoTime();
        run("curl", "-sS", "--no-progress-meter", "--fail", "--parallel", "--parallel-max", "4", "-K", list.toString());
        run("cp", "-r", got.toString(), copy.toString());
        run("sync", "-f", copy.toString());
        double s = (System.nanoTime() - t0) / 1e9;
        FileUtils.deleteDirectory(got.toFile());
        FileUtils.deleteDirectory(copy.toFile());
        return s;
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).inheritIO().start();
        if (p.waitFor() != 0) {
            throw new IOException(Arrays.toString(command) + " exited " + p.exitValue());
        }
    }

    /** The objects stored in this case, removed (ingest's working directories are gone at the batch's end). */
    private void emptyStorage() throws IOException {
        Path objects = storage.resolve("objects");
        try (Stream<Path> l = Files.list(objects)) {
            for (Path p : l.filter(Files::isDirectory).toList()) {
                FileUtils.deleteDirectory(p.toFile());
            }
        }
    }

    /** rchar, wchar, read_bytes, write_bytes of this process. */
    private static long[] io() throws IOException {
        Map<String, Long> m = new LinkedHashMap<>();
        for (String line : Files.readAllLines(Path.of("/proc/self/io"))) {
            String[] kv = line.split(":\\s*");
            m.put(kv[0], Long.parseLong(kv[1].trim()));
        }
        return new long[] {m.get("rchar"), m.get("wchar"), m.get("read_bytes"), m.get("write_bytes")};
    }

    /** A {@code /proc/self/status} figure in kB. */
    private static long status(String key) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith(key + ":")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }

    private static BatchSubmission submission(String url) {
        return new BatchSubmission("demo_content", "bench", url, "Floor objects", "bench", null, null,
                "batch-manifest", "add", url.substring(url.lastIndexOf('/') + 1), null, null, null, null, null,
                "json", null, Instant.now().toString(), null);
    }

    private static void quiet() {
        for (String name : List.of("org.cdlib", "org.apache", "io.ocfl", "ingestqueue", "com.zaxxer")) {
            if (LoggerFactory.getLogger(name) instanceof Logger l) {
                l.setLevel(Level.WARN);
            }
        }
    }
}
