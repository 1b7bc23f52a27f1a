package org.cdlib.mrt.ingestqueue.bench;

import com.sun.management.OperatingSystemMXBean;
import com.sun.net.httpserver.HttpServer;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;
import org.cdlib.mrt.ingestqueue.fetch.AddressPolicy;
import org.cdlib.mrt.ingestqueue.fetch.FetchSettings;
import org.cdlib.mrt.ingestqueue.fetch.Fetcher;
import org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm;
import org.cdlib.mrt.ingestqueue.objects.StorageManifest;
import org.cdlib.mrt.ingestqueue.objects.SystemFiles;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.services.H2Inventory;
import org.cdlib.mrt.ingestqueue.services.OcflStorage;
import org.cdlib.mrt.ingestqueue.services.StoredVersion;

/**
 * The floor under the real service path: what the local back-ends alone do on this machine, with
 * no queue, no ZooKeeper and no Camel. Each object is what the real path does outside the queue for
 * a one-file object: the HEAD and GET of its file from a local JDK HTTP server (the service's
 * {@link Fetcher}, file flushed to disk), its system files, its storage manifest, an OCFL version
 * ({@link OcflStorage}), its local id bound and the version added to the H2 inventory
 * ({@link H2Inventory}). N objects after N to warm the JVM, from {@code probe.threads} threads
 * (default 8). Prints objects/s and the process's CPU per object; asserts nothing.
 * {@code java -cp … org.cdlib.mrt.ingestqueue.bench.BackEndsProbe 1000}
 */
public final class BackEndsProbe {
    private BackEndsProbe() {
    }

    /** Wall time spent in one part, summed over the threads. */
    private record Stage(String name, LongAdder nanos) {
        long lap(long since) {
            long now = System.nanoTime();
            nanos.add(now - since);
            return now;
        }
    }

    private static final Stage[] STAGES = Stream.of("download (HEAD + GET, flushed)",
            "system files + storage manifest", "local id lookup + bind (H2)", "OCFL version", "inventory add (H2)")
            .map(n -> new Stage(n, new LongAdder())).toArray(Stage[]::new);

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int threads = Integer.getInteger("probe.threads", 8);
        Path dir = BenchDirs.temporary("ingest-backends");
        HttpServer http = ObjectFiles.serve(Map.of());
        String base = "http://127.0.0.1:" + http.getAddress().getPort();
        Profile profile;
        try (var in = BackEndsProbe.class.getResourceAsStream("/profiles/demo_content")) {
            profile = Profile.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), "demo_content");
        }
        Fetcher fetcher = new Fetcher(FetchSettings.defaults().withAllow(AddressPolicy.LOOPBACK), dir);
        OcflStorage storage = new OcflStorage(dir.resolve("storage"));
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (H2Inventory inventory =
                new H2Inventory("jdbc:h2:file:" + dir.resolve("inventory").toAbsolutePath() + "/inventory")) {
            System.out.printf("machine: %d cores, java %s; local back-ends alone, %d threads, one-file objects%n",
                    Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), threads);
            AtomicInteger next = new AtomicInteger();
            for (String round : List.of("first " + n + " (cold JVM)", "next " + n)) {
                for (Stage st : STAGES) {
                    st.nanos().reset();
                }
                long cpu0 = cpu();
                long t0 = System.nanoTime();
                List<Future<?>> all = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    int k = next.getAndIncrement();
                    all.add(pool.submit(() -> {
                        object(k, base, dir, fetcher, profile, storage, inventory);
                        return null;
                    }));
                }
                for (Future<?> f : all) {
                    f.get();
                }
                double s = (System.nanoTime() - t0) / 1e9;
                System.out.printf(
                        "  %s objects: %.2f s = %.0f objects/s, process CPU %.1f ms per object%n",
                        round, s, n / s, (cpu() - cpu0) / 1e6 / n);
                for (Stage st : STAGES) {
                    System.out.printf(
                            "    %-34s %6.1f ms per object (wall, in a thread)%n",
                            st.name(), st.nanos().sum() / 1e6 / n);
                }
            }
        } finally {
            pool.shutdownNow();
            http.stop(0);
        }
        System.exit(0); // the HTTP server's threads would keep the JVM up
    }

    private static void object(int k, String base, Path dir, Fetcher fetcher, Profile profile, OcflStorage storage,
                               H2Inventory inventory) throws Exception {
        URI uri = URI.create(base + "/f" + k + ".txt");
        Path wd = Files.createDirectories(dir.resolve("wd").resolve("o" + k));
        Path producer = Files.createDirectories(wd.resolve("producer"));
        long t = System.nanoTime();
        fetcher.size(uri);
        fetcher.download(uri, producer.resolve("f" + k + ".txt"), List.of(DigestAlgorithm.MD5));
        t = STAGES[0].lap(t);
        String localId = "probe-" + k;
        String ark = "ark:/99999/fk4probe" + k;
        JobConfiguration c = new JobConfiguration(
                null,
                "demo_content",
                "bench",
                uri.toString(),
                "file",
                null,
                "add",
                null,
                localId,
                "f" + k + ".txt",
                null,
                null,
                null,
                "A. Author",
                "Title " + k,
                "2026",
                null,
                null);
        Identifiers ids = new Identifiers(ark, List.of(localId));
        SystemFiles.write(Files.createDirectories(wd.resolve("system")), c, ids);
        StorageManifest manifest = StorageManifest.build(wd, (f, name) -> name);
        t = STAGES[1].lap(t);
        inventory.primaryFor(profile.id(), localId);
        inventory.bind(profile.id(), localId, ark);
        t = STAGES[2].lap(t);
        storage.currentVersion(profile, ark);
        StoredVersion v = storage.store(profile, ark, wd, manifest.text(), localId, false, List.of(), Map.of());
        t = STAGES[3].lap(t);
        inventory.add(profile, v, List.of(localId), manifest.files());
        STAGES[4].lap(t);
    }

    private static long cpu() {
        return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }
}
