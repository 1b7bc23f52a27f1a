package org.cdlib.mrt.ingestqueue.runtime;

import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.tomakehurst.wiremock.WireMockServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.cdlib.mrt.ingestqueue.api.HttpApi;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.routes.ReadmeBlocks;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * README's "What a depositor submits", as written: its {@code curl} lines (one submission of each kind: a file, a
 * container by URL, an object manifest, a manifest of files, of containers, of manifests) run against the service
 * with every step real (local OCFL storage, H2 inventory), started with the {@code -D} options of the README's
 * {@code java -D… -jar} line, which lets the service fetch from this machine. The manifests are the README's blocks
 * (noted {@code <!-- manifest: name -->}), uploaded or served as written but for the depositor's address
 * ({@code https://depositor.example.org}: WireMock on loopback); each file a row names is served, its content
 * {@link #content}, whose digests and sizes the README's rows give. Each batch completes with a job per object, and
 * storage holds every file named.
 */
class ReadmeSubmissionsTest {
    static final String DEPOSITOR = "https://depositor.example.org";
    private static final Pattern MANIFEST_NOTE = Pattern.compile("manifest: (\\S+)");
    private static final Pattern START = Pattern.compile("java ((?:-D\\S+=\\S+ )+)-jar target/ingest-queue\\.jar");

    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().withHttp();
    static final WireMockServer HTTP = ZK.http();
    final Path dir = ZK.dir();
    IngestService service;

    @AfterEach
    void stop() {
        if (service != null) {
            service.close();
        }
    }

    /** A served or uploaded file's bytes (the README's digests and sizes are of these). */
    static byte[] content(String name) {
        return ("README example file " + name + "\n").getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void eachKindOfSubmissionOfTheReadmeCompletes() throws Exception {
        ReadmeBlocks readme = ReadmeBlocks.read();
        Map<String, String> manifests = new LinkedHashMap<>();
        List<String> curls = new ArrayList<>();
        Map<String, String> options = null;
        for (ReadmeBlocks.Block b : readme.blocks()) {
            String note = b.note() == null ? "" : b.note();
            Matcher m = MANIFEST_NOTE.matcher(note);
            if (m.matches()) {
                manifests.put(m.group(1), b.text().replace(DEPOSITOR, HTTP.baseUrl()));
            } else if (note.startsWith("submissions:")) {
                curls.addAll(commands(b.text()));
            } else if (note.startsWith("start:")) {
                Matcher start = START.matcher(commands(b.text()).get(0));
                assertTrue(start.matches(), "README line " + b.line() + ": " + b.text());
                options = systemProperties(start.group(1));
            }
        }
        assertEquals(Set.of("4blocks.checkm", "batch-of-files.checkm", "batch-of-containers.checkm",
                "batch-of-manifests.checkm"), manifests.keySet(), "the README's manifests");
        assertEquals(6, curls.size(), "a submission of each kind: " + curls);
        assertTrue(options != null && options.containsKey("ingest.fetch.allow"), "the README's start line: " + options);

        Path cwd = Files.createDirectories(dir.resolve("depositor"));
        Set<String> named = new TreeSet<>(); // every file the objects must hold
        for (Map.Entry<String, String> m : manifests.entrySet()) {
            Files.writeString(cwd.resolve(m.getKey()), m.getValue());
            for (List<String> row : rows(m.getValue())) {
                serve(URI.create(row.get(0)).getPath(), manifests, named);
            }
        }
        serve("/samples/jazzbears.zip", manifests, named); // the container given by URL
        for (String curl : curls) {
            Matcher upload = Pattern.compile("file=@(\\S+)").matcher(curl);
            if (upload.find() && !manifests.containsKey(upload.group(1))) {
                Files.write(cwd.resolve(upload.group(1)), content(upload.group(1)));
                named.add(upload.group(1));
            }
        }

        QueueStore store = start(options);
        String base = "http://127.0.0.1:"
                + service.camel().getRegistry().lookupByNameAndType("httpApi", HttpApi.class).port();
        Map<String, Integer> batches = new LinkedHashMap<>(); // bid -> objects expected
        for (String curl : curls) {
            String answer = run(curl.replace("PASSWORD", "pw-a").replace("http://localhost:8080", base)
                    .replace(DEPOSITOR, HTTP.baseUrl()), cwd);
            Matcher bid = Pattern.compile("\"bat:batchID\"\\s*:\\s*\"(bid\\d+)\"").matcher(answer);
            assertTrue(bid.find(), curl + "\n" + answer);
            Matcher upload = Pattern.compile("type=(\\S+) .*file=@(\\S+)").matcher(curl);
            boolean batchManifest = upload.find() && upload.group(1).contains("batch");
            batches.put(bid.group(1), batchManifest ? rows(manifests.get(upload.group(2))).size() : 1);
        }
        for (Map.Entry<String, Integer> b : batches.entrySet()) {
            await().atMost(Duration.ofSeconds(120)).until(() -> Set.of(BatchState.COMPLETED, BatchState.FAILED)
                    .contains(store.batches().load(b.getKey()).state()));
            List<Job> jobs = store.jobs().load(store.batches().load(b.getKey()).jobIds());
            String outcome = String.join("\n", jobs.stream()
                    .map(j -> j.id() + " " + j.state() + " " + j.status().errorMessage()).toList());
            assertEquals(BatchState.COMPLETED, store.batches().load(b.getKey()).state(), b.getKey() + "\n" + outcome);
            assertEquals(b.getValue(), jobs.size(), b.getKey() + ": a job per object\n" + outcome);
            assertTrue(jobs.stream().allMatch(j -> j.state() == JobState.COMPLETED), outcome);
        }
        Set<String> stored = new TreeSet<>();
        try (Stream<Path> files = Files.walk(dir.resolve("storage"))) {
            files.filter(Files::isRegularFile).forEach(f -> stored.add(f.getFileName().toString()));
        }
        assertTrue(stored.containsAll(named), "stored " + stored + ", named " + named);
    }

    /**
     * As "Try it" says: without {@code ingest.fetch.allow}, a payload on this machine is refused, the job failing
     * naming the address and the key.
     */
    @Test
    void withoutTheStartLinesOptionsAPayloadOnThisMachineIsRefused() throws Exception {
        String curl = ReadmeBlocks.read().blocks().stream()
                .filter(b -> b.note() != null && b.note().startsWith("submissions:"))
                .flatMap(b -> commands(b.text()).stream())
                .filter(c -> c.contains("url=" + DEPOSITOR))
                .findFirst()
                .orElseThrow();
        serve(URI.create(curl.replaceFirst(".*url=(\\S+).*", "$1")).getPath(), Map.of(), new TreeSet<>());
        QueueStore store = start(Map.of());
        String base = "http://127.0.0.1:"
                + service.camel().getRegistry().lookupByNameAndType("httpApi", HttpApi.class).port();
        String answer = run(curl.replace("PASSWORD", "pw-a").replace("http://localhost:8080", base)
                .replace(DEPOSITOR, HTTP.baseUrl()), dir);
        String bid = answer.replaceFirst("(?s).*\"bat:batchID\"\\s*:\\s*\"(bid\\d+)\".*", "$1");
        await().atMost(Duration.ofSeconds(60)).until(() -> store.batches().load(bid).state() == BatchState.FAILED);
        Job job = store.jobs().load(store.batches().load(bid).jobIds()).get(0);
        assertEquals(JobState.FAILED, job.state());
        assertTrue(job.status().errorMessage().contains("not fetched unless listed in ingest.fetch.allow"),
                job.status().errorMessage());
    }

    /** A block's command lines, continuation lines joined, trailing comments dropped. */
    static List<String> commands(String block) {
        return block.replaceAll("\\\\\\n\\s*", " ").lines()
                .map(l -> l.replaceFirst("\\s+#\\s.*$", "").strip())
                .filter(l -> !l.isEmpty())
                .toList();
    }

    static Map<String, String> systemProperties(String options) {
        Map<String, String> out = new HashMap<>();
        for (String o : options.strip().split("\\s+")) {
            int eq = o.indexOf('=');
            out.put(o.substring(2, eq), o.substring(eq + 1));
        }
        return out;
    }

    /** A manifest's data rows, cells stripped. */
    static List<List<String>> rows(String manifest) {
        return manifest.lines().filter(l -> !l.isBlank() && !l.startsWith("#"))
                .map(l -> List.of(l.split("\\|", -1)).stream().map(String::strip).toList())
                .toList();
    }

    /**
     * Serves {@code path} on WireMock (GET and HEAD): a manifest of the README as written (another object manifest:
     * the README's), a container of two files, else {@link #content}; what the objects must hold into {@code named}.
     */
    static void serve(String path, Map<String, String> manifests, Set<String> named) throws IOException {
        String name = path.substring(path.lastIndexOf('/') + 1);
        String stem = name.replaceFirst("\\..*$", "");
        byte[] body;
        if (name.endsWith(".checkm")) {
            String manifest = manifests.getOrDefault(name, manifests.get("4blocks.checkm"));
            body = manifest.getBytes(StandardCharsets.UTF_8);
            for (List<String> row : rows(manifest)) {
                serve(URI.create(row.get(0)).getPath(), manifests, named);
            }
        } else if (name.endsWith(".zip")) {
            body = zip(stem + "/a.txt", stem + "/b.txt");
            named.addAll(List.of("a.txt", "b.txt"));
        } else if (name.endsWith(".tar.gz")) {
            body = tarGz(stem + "-1.txt", stem + "-2.txt");
            named.addAll(List.of(stem + "-1.txt", stem + "-2.txt"));
        } else {
            body = content(name);
            named.add(name);
        }
        HTTP.stubFor(any(urlEqualTo(path)).willReturn(aResponse().withBody(body)));
    }

    static byte[] zip(String... names) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZipOutputStream z = new ZipOutputStream(out)) {
            for (String n : names) {
                z.putNextEntry(new ZipEntry(n));
                z.write(content(n));
                z.closeEntry();
            }
        }
        return out.toByteArray();
    }

    static byte[] tarGz(String... names) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (TarArchiveOutputStream t = new TarArchiveOutputStream(new GZIPOutputStream(out))) {
            for (String n : names) {
                TarArchiveEntry e = new TarArchiveEntry(n);
                e.setSize(content(n).length);
                t.putArchiveEntry(e);
                t.write(content(n));
                t.closeArchiveEntry();
            }
        }
        return out.toByteArray();
    }

    /** A README command line run by bash in {@code cwd}: its output, the command having succeeded. */
    static String run(String command, Path cwd) throws Exception {
        String line = command.startsWith("curl ") ? "curl -sS --fail-with-body " + command.substring(5) : command;
        Process p = new ProcessBuilder("bash", "-c", line).directory(cwd.toFile()).redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), line);
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), line + "\n" + out);
        return out;
    }

    /** The service with every step real, the README's {@code -D} options and an admin user ({@code pw-a}). */
    QueueStore start(Map<String, String> options) throws Exception {
        Map<String, String> config = new HashMap<>(ServiceTestSupport.localBackEnds(ZK.connectString(), dir));
        config.putAll(options); // nothing else lets the service fetch from this machine
        config.put("ingest.api.users", "admin:pw-a:admin|submitter");
        config.put("ingest.provisioning.retry-delay", "100");
        service = new IngestService(config).start();
        return service.store();
    }
}
