package org.cdlib.mrt.ingestqueue.steps;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.containing;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.notContaining;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.tomakehurst.wiremock.WireMockServer;
import io.ocfl.api.model.ObjectVersionId;
import io.ocfl.api.model.VersionDetails;
import java.io.InputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.cdlib.mrt.ingestqueue.objects.Deletions;
import org.cdlib.mrt.ingestqueue.profile.ProfileDirectory;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.services.H2Inventory;
import org.cdlib.mrt.ingestqueue.services.OcflStorage;
import org.cdlib.mrt.ingestqueue.services.StoredVersion;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Add and update mode through the processing, storing and recording steps: ocfl-java's real store (carry
 * forward, deletions, a wrong delete line), WireMock as Merritt storage ({@code /add/} and
 * {@code /update/} with {@code delete}), and the depositor's {@code producer/mrt-erc.txt}.
 */
class UpdateModeTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().withHttp();
    static final WireMockServer http = ZK.http();
    static final String ARK = "ark:/99999/fk4upd";

    final Path dir = ZK.dir();
    QueueStore store;
    ProfileDirectory profiles;
    H2Inventory local;
    OcflStorage ocfl;
    ServiceRoutes process;
    ServiceRoutes viaHttp;

    @BeforeEach
    void setUp() throws Exception {
        store = ZK.store(dir.resolve("queue"));
        Path p = Files.createDirectories(dir.resolve("profiles"));
        Files.writeString(p.resolve("demo_content"), "ProfileID: demo_content\nCollection.1: ark:/99999/fk4c\n"
                + "StorageNode: 7777\nStorageService: " + http.baseUrl() + "/store\n");
        profiles = new ProfileDirectory(p);
        process = new ServiceRoutes(
                store,
                profiles,
                ServiceRoutes.config(
                        "ingest.storage.local.root", dir.resolve("storage").toString()));
        local = process.localIndex();
        ocfl = process.camel.getRegistry().lookupByNameAndType("localStorage", OcflStorage.class);
    }

    @AfterEach
    void stop() {
        process.close();
        if (viaHttp != null) {
            viaHttp.close();
        }
    }

    /** A downloaded job of {@code ARK} in {@code mode} whose producer/ holds {@code files}. */
    HeldJob job(String mode, Map<String, String> files) throws Exception {
        JobConfiguration c = new JobConfiguration(
                null,
                "demo_content",
                "tester",
                "http://x/o.checkm",
                "object_manifest",
                "json",
                mode,
                null,
                "loc1",
                null,
                null,
                null,
                null,
                "who",
                "what",
                "when",
                null,
                Map.of());
        HeldJob lock = StepTestSupport.lockedJob(store, c, 5);
        store.stepWrites().writeIdentifiers(lock, lock.job().identifiers().withPrimary(ARK));
        HeldJob fresh = store.claims().tryLockJob(lock.jid(), "test2").orElse(lock);
        Path producer = Files.createDirectories(Path.of(lock.job().configuration().workingDir()).resolve("producer"));
        for (var f : files.entrySet()) {
            Path target = producer.resolve(f.getKey());
            Files.createDirectories(target.getParent());
            Files.writeString(target, f.getValue());
        }
        return fresh;
    }

    HeldJob relock(HeldJob lock) {
        store.moves().unlock(lock);
        return store.claims().tryLockJob(lock.jid(), "test").orElseThrow();
    }

    StoredVersion run(HeldJob lock) throws Exception {
        process.processAndStore(lock);
        HeldJob again = relock(lock);
        process.recording(again);
        store.moves().unlock(again);
        return StoredVersions.of(store.jobs().effects(lock.jid()));
    }

    Map<String, String> head() throws Exception {
        VersionDetails d = ocfl.repository().describeVersion(ObjectVersionId.head(ARK));
        Map<String, String> files = new TreeMap<>();
        var object = ocfl.repository().getObject(ObjectVersionId.head(ARK));
        for (var f : d.getFiles()) {
            if (f.getPath().startsWith("producer/")) {
                try (InputStream in = object.getFile(f.getPath()).getStream()) {
                    files.put(f.getPath(), new String(in.readAllBytes(), StandardCharsets.UTF_8));
                }
            }
        }
        return files;
    }

    @Test
    void ocflAddThenUpdateCarriesForwardThenUpdateWithDeletionsRemoves() throws Exception {
        StoredVersion v1 = run(job("add", Map.of("a.txt", "alpha", "b.txt", "bravo", "docs/c.txt", "charlie")));
        assertEquals(1, v1.version());
        assertEquals("add", v1.mode());
        assertEquals(
                Map.of("producer/a.txt", "alpha", "producer/b.txt", "bravo", "producer/docs/c.txt", "charlie"), head());

        // update resending only a.txt, changed: b.txt and docs/c.txt are carried forward
        HeldJob u1 = job("update", Map.of("a.txt", "ALPHA"));
        StoredVersion v2 = run(u1);
        assertEquals(2, v2.version());
        assertEquals("update", v2.mode());
        assertEquals(
                Map.of("producer/a.txt", "ALPHA", "producer/b.txt", "bravo", "producer/docs/c.txt", "charlie"), head());
        assertEquals(
                v2,
                StoredVersions.of(store.jobs().effects(u1.jid())),
                "recorded under the job, for recording and the report");
        assertEquals(
                v2,
                StoredVersions.of(store.jobs().load(u1.jid()), store, store.ingestHome()),
                "as the report reads it");
        assertFalse(
                Files.exists(Path.of(u1.job().configuration().workingDir()).resolve(ProcessStep.STORED)),
                "no file for it");
        assertFalse(Files.exists(store.ingestHome().resolve(".versions")), "no file for it");
        assertEquals(
                new TreeSet<>(List.of(
                        "producer/a.txt",
                        "producer/b.txt",
                        "producer/docs/c.txt",
                        "system/mrt-dc.xml",
                        "system/mrt-erc.txt")),
                local.files(ARK).stream().map(f -> f.name()).collect(Collectors.toCollection(TreeSet::new)),
                "the local inventory lists the whole version, carried-forward files included");

        // update with mrt-delete.txt: b.txt and docs/c.txt removed, d.txt added; mrt-delete.txt is no producer file
        HeldJob u2 =
                job("update", Map.of("d.txt", "delta", "mrt-delete.txt", "# gone\nb.txt\n\nproducer/docs/c.txt\n"));
        StoredVersion v3 = run(u2);
        assertEquals(3, v3.version());
        assertEquals(List.of("producer/b.txt", "producer/docs/c.txt"), v3.deleted());
        // as mrt-zk's Job.storeMode/storeDelete read it: update mode, one producer/ line per deleted file
        JsonNode mrt = QueueJson.MAPPER.readTree(
                ZK.client().getData().forPath("/jobs/" + u2.jid() + "/store"));
        assertTrue(mrt.get("mode").asText().startsWith("update/"), mrt.toString());
        assertEquals("producer/b.txt\nproducer/docs/c.txt\n", mrt.get("delete").asText());
        assertEquals(Map.of("producer/a.txt", "ALPHA", "producer/d.txt", "delta"), head());
        VersionDetails d3 = ocfl.repository().describeVersion(ObjectVersionId.head(ARK));
        assertTrue(d3.containsFile("system/mrt-delete.txt"), "kept as a system file");
        assertFalse(d3.containsFile("producer/mrt-delete.txt"));
        StoredVersion kept = StoredVersions.of(store.jobs().effects(u2.jid()));
        assertEquals("update", kept.mode());
        assertEquals(3, kept.version());
        assertEquals(3, local.versions(ARK));
    }

    @Test
    void aDeleteLineNamingAMissingFileOrLeavingProducerFailsTheJobNamingTheLine() throws Exception {
        run(job("add", Map.of("a.txt", "alpha")));
        HeldJob missing = job("update", Map.of("b.txt", "bravo", "mrt-delete.txt", "a.txt\nnot-there.txt\n"));
        Throwable e = assertThrows(ServiceRoutes.JobFailed.class, () -> process.processAndStore(missing)).getCause();
        assertTrue(e instanceof Deletions.DeleteLineException, String.valueOf(e));
        assertEquals(
                "mrt-delete.txt line 2 'not-there.txt': ark:/99999/fk4upd version v1 has no file"
                        + " producer/not-there.txt",
                e.getMessage());
        assertEquals(
                1, ocfl.repository().describeObject(ARK).getHeadVersionNum().getVersionNum(), "nothing was written");

        HeldJob escaping = job("update", Map.of("mrt-delete.txt", "a.txt\n../../etc/passwd\n"));
        e = assertThrows(ServiceRoutes.JobFailed.class, () -> process.processing(escaping)).getCause();
        assertTrue(e instanceof Deletions.DeleteLineException, String.valueOf(e));
        assertEquals("mrt-delete.txt line 2 '../../etc/passwd': leaves producer/ ('..')", e.getMessage());
        assertEquals(Map.of("producer/a.txt", "alpha"), head());
    }

    @Test
    void merrittStorageGetsAddInAddModeAndUpdateWithTheDeleteFieldInUpdateMode() throws Exception {
        viaHttp = new ServiceRoutes(store, profiles, ServiceRoutes.config("ingest.storage", "http",
                "ingest.files.base-url", "http://queue.example.org/files"));
        http.stubFor(get(urlPathMatching("/store/state/7777/.*")).willReturn(aResponse().withStatus(404)));
        http.stubFor(post(urlPathMatching("/store/(add|update)/7777/.*")).willReturn(aResponse().withStatus(200)
                .withBody("{\"versionState\":{\"versionID\":4}}")));
        String path = "/7777/" + URLEncoder.encode(ARK, StandardCharsets.UTF_8);

        HeldJob add = job("add", Map.of("a.txt", "alpha"));
        viaHttp.processAndStore(add);
        http.verify(1, postRequestedFor(urlEqualTo("/store/add" + path)).withRequestBody(notContaining("delete=")));
        http.verify(0, postRequestedFor(urlPathMatching("/store/update/.*")));

        HeldJob update = job("update", Map.of("a.txt", "ALPHA", "mrt-delete.txt", "b.txt\nproducer/docs/c.txt\n"));
        viaHttp.processAndStore(update);
        http.verify(
                1,
                postRequestedFor(urlEqualTo("/store/update" + path))
                        .withRequestBody(containing("delete="
                                + URLEncoder.encode("producer/b.txt\nproducer/docs/c.txt\n", StandardCharsets.UTF_8)))
                        .withRequestBody(containing("manifest=%23%25checkm_0.7"))
                        .withRequestBody(containing(URLEncoder.encode("system/mrt-delete.txt", StandardCharsets.UTF_8)))
                        .withRequestBody(
                                notContaining(URLEncoder.encode("producer/mrt-delete.txt", StandardCharsets.UTF_8))));
        http.verify(1, postRequestedFor(urlPathMatching("/store/add/.*")));
        StoredVersion v = StoredVersions.of(store.jobs().effects(update.jid()));
        assertEquals("update", v.mode());
        assertEquals(4, v.version());

        // storage refusing a delete line (400) fails the job naming the lines sent
        http.stubFor(post(urlPathMatching("/store/update/7777/.*")).willReturn(aResponse().withStatus(400)
                .withBody("no such file: producer/zz.txt")));
        HeldJob wrong = job("update", Map.of("mrt-delete.txt", "zz.txt\n"));
        Exception e = assertThrows(Exception.class, () -> viaHttp.processAndStore(wrong));
        assertTrue(
                e.getMessage().contains("HTTP 400: no such file: producer/zz.txt")
                        && e.getMessage().contains("line 1 'zz.txt'"),
                e.getMessage());
    }

    @Test
    void theDepositorsErcWinsOverTheFormAndItsLocalIdsAreMerged() throws Exception {
        JobConfiguration c = new JobConfiguration(null, "demo_content", "tester", "http://x/o.zip", "container", "json",
                "add", null, "loc1", null, null, null, null, "form who", "form what", "form when", null,
                Map.of("title", List.of("Form title"), "subject", List.of("maps")));
        HeldJob lock = StepTestSupport.lockedJob(store, c, 5);
        Path producer = Files.createDirectories(Path.of(lock.job().configuration().workingDir()).resolve("producer"));
        Files.writeString(producer.resolve("a.txt"), "alpha");
        Files.writeString(producer.resolve("mrt-erc.txt"), "erc:\nwho: Doe, Jane\nwhat: The depositor's\n  title\n"
                + "when: 2026-11-23\nwhere: ark:/99999/fk4fromerc\nwhere: loc2; loc1\nwhere: (:unas)\n");
        Files.writeString(
                producer.resolve("mrt-dc.xml"),
                "<?xml version=\"1.0\"?>\n<dc xmlns:dc=\"http://purl.org/dc/elements/1.1/\">"
                        + "<dc:title>DC title</dc:title><dc:creator>Doe, Jane</dc:creator></dc>");
        Files.writeString(producer.resolve("mrt-embargo.txt"), "embargoEndDate: 2030-01-01\n");
        process.processAndStore(lock);
        var ids = store.jobs().load(lock.jid()).identifiers();
        assertEquals("ark:/99999/fk4fromerc", ids.primary());
        assertEquals(List.of("loc1", "loc2"), ids.localId());
        Path system = Path.of(lock.job().configuration().workingDir()).resolve("system");
        assertEquals(
                "erc:\nwho: Doe, Jane\nwhat: The depositor's title\nwhen: 2026-11-23\nwhere: ark:/99999/fk4fromerc\n"
                        + "where: loc1; loc2\n",
                Files.readString(system.resolve("mrt-erc.txt")));
        String dc = Files.readString(system.resolve("mrt-dc.xml"));
        assertTrue(
                dc.contains("<dc:title>DC title</dc:title>")
                        && !dc.contains("Form title")
                        && dc.contains("<dc:subject>maps")
                        && dc.contains("<dc:creator>Doe, Jane</dc:creator>"),
                dc);
        VersionDetails d = ocfl.repository().describeVersion(ObjectVersionId.head("ark:/99999/fk4fromerc"));
        assertTrue(d.containsFile("producer/mrt-erc.txt") && d.containsFile("producer/mrt-embargo.txt"),
                "the depositor's files stay producer files");

        HeldJob bad = StepTestSupport.lockedJob(store, c, 5);
        Path p2 = Files.createDirectories(Path.of(bad.job().configuration().workingDir()).resolve("producer"));
        Files.writeString(p2.resolve("mrt-erc.txt"), "erc:\nwho: x\nwhere: ark:/foo\n");
        Exception e = assertThrows(ServiceRoutes.JobFailed.class, () -> process.processing(bad));
        assertTrue(e.getCause() instanceof IllegalArgumentException, String.valueOf(e.getCause()));
        assertEquals(
                "producer/mrt-erc.txt line 3: where: 'ark:/foo' is not an ARK (expected ark:/<5-digit NAAN>/<name>, "
                        + "e.g. ark:/99999/fk4abc)",
                e.getMessage());
    }
}
