package org.cdlib.mrt.ingestqueue.runtime;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.awaitility.Awaitility.await;
import static org.cdlib.mrt.ingestqueue.testing.Zips.zip;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.WireMockServer;
import io.ocfl.api.model.ObjectVersionId;
import io.ocfl.api.model.VersionDetails;
import jakarta.mail.Multipart;
import jakarta.mail.internet.MimeMessage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.cdlib.mrt.ingestqueue.api.HttpApi;
import org.cdlib.mrt.ingestqueue.mail.Mailer;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.services.H2Inventory;
import org.cdlib.mrt.ingestqueue.services.OcflStorage;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The whole service with its real steps (local minter, OCFL storage, H2 inventory, outbox mail)
 * fed exactly what CDL's Ruby client ({@code mrt-ingest} gem: Mrt::Ingest::IObject,
 * Request#mk_args, Client) posts: multipart fields in its order, its object manifest with the
 * pipe-less {@code #%profile} line, {@code #%EOF} and its {@code mrt-erc.txt} component; then
 * a zip holding {@code mrt-erc.txt} without a {@code type} (as CDL's integration tests submit),
 * and an update of that object deleting a file.
 */
class MerrittRubyClientTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().withHttp().freshServerEachTest();
    static final WireMockServer http = ZK.http();
    static final HttpClient CLIENT = HttpClient.newHttpClient();
    static final ObjectMapper JSON = new ObjectMapper();

    final Path dir = ZK.dir();
    IngestService service;
    QueueStore store;
    String base;

    @BeforeEach
    void start() throws Exception {
        Map<String, String> config = new HashMap<>(ServiceTestSupport.config(ZK.connectString(), dir));
        config.put("ingest.api.users", "ruby:pw-r:poster"); // Merritt posts for its users, naming each as submitter
        config.remove("camel.main.routes-include-pattern"); // every route and step real
        config.remove("camel.main.routes-exclude-pattern");
        config.put("ingest.storage.local.root", dir.resolve("storage").toString());
        config.put(
                "ingest.inventory.local.url",
                "jdbc:h2:file:" + dir.resolve("inventory").toAbsolutePath() + "/inventory");
        config.put("ingest.mail.outbox", dir.resolve("outbox").toString());
        service = new IngestService(config).start(); // every step real
        store = service.store();
        base = "http://127.0.0.1:" + service.camel().getRegistry().lookupByNameAndType("httpApi", HttpApi.class).port();
    }

    @AfterEach
    void stop() throws Exception {
        service.close();
    }

    static String md5(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(b));
    }

    /** A part as rest-client writes it: a file part has a filename and a Content-Type. */
    record Part(String name, String value, String fileName, byte[] file) {
    }

    HttpResponse<String> postAsRestClient(String path, List<Part> parts) throws Exception {
        String boundary = "----RubyFormBoundary" + System.nanoTime();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Part p : parts) {
            out.write(("--" + boundary + "\r\n").getBytes(StandardCharsets.UTF_8));
            if (p.file() != null) {
                out.write(("Content-Disposition: form-data; name=\"" + p.name() + "\"; filename=\"" + p.fileName()
                        + "\"\r\nContent-Type: application/octet-stream\r\n\r\n").getBytes(StandardCharsets.UTF_8));
                out.write(p.file());
            } else {
                out.write(("Content-Disposition: form-data; name=\"" + p.name() + "\"\r\n\r\n" + p.value())
                        .getBytes(StandardCharsets.UTF_8));
            }
            out.write("\r\n".getBytes(StandardCharsets.UTF_8));
        }
        out.write(("--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
        return CLIENT.send(
                HttpRequest.newBuilder(URI.create(base + path))
                        .header(
                                "Authorization",
                                "Basic "
                                        + Base64.getEncoder()
                                                .encodeToString("ruby:pw-r".getBytes(StandardCharsets.UTF_8)))
                        .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                        .POST(HttpRequest.BodyPublishers.ofByteArray(out.toByteArray()))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** What Mrt::Ingest::Response reads: bat:batchState / bat:batchID. */
    static String batchId(HttpResponse<String> r) throws Exception {
        assertEquals(200, r.statusCode(), r.body());
        JsonNode state = JSON.readTree(r.body()).get("bat:batchState");
        assertEquals("ruby-client/0.1", state.get("bat:userAgent").asText());
        assertTrue(state.get("bat:submissionDate").asText().matches("\\d{4}-\\d\\d-\\d\\dT.*"), r.body());
        return state.get("bat:batchID").asText();
    }

    void awaitCompleted(String bid) {
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            BatchState s = store.batches().load(bid).state();
            return s == BatchState.COMPLETED || s == BatchState.FAILED;
        });
        assertEquals(BatchState.COMPLETED, store.batches().load(bid).state(), () -> store.jobs()
                .load(store.batches().load(bid).jobIds())
                .toString());
    }

    String stored(String ark, String name) throws Exception {
        OcflStorage storage = service.camel().getRegistry().lookupByNameAndType("localStorage", OcflStorage.class);
        try (InputStream in = storage.repository().getObject(ObjectVersionId.head(ark)).getFile(name).getStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    String reportMail(String bid) throws Exception {
        Path outbox = dir.resolve("outbox");
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.isDirectory(outbox) && mails(outbox, bid).size() > 0);
        return Files.readString(mails(outbox, bid).get(0));
    }

    static List<Path> mails(Path outbox, String bid) throws Exception {
        try (Stream<Path> s = Files.list(outbox)) {
            return s.filter(p -> p.getFileName().toString().contains("Submission-Processed")
                            && p.getFileName().toString().contains(bid))
                    .toList();
        }
    }

    @Test
    void theRubyClientsObjectManifestWithItsErcCompletesWithTheErcsValues() throws Exception {
        byte[] hello = "Hello from the Ruby client\n".getBytes(StandardCharsets.UTF_8);
        // Component.from_hash: "erc:\n" then "k: v\n" per pair, served by the client's OneTimeServer
        byte[] erc =
                "erc:\nwho: Doe, Jane\nwhat: A Ruby-submitted object\nwhen: 2026-11-23\nwhere: ark:/99999/fk4ruby1\n"
                        .getBytes(StandardCharsets.UTF_8);
        // GET and HEAD, as WEBrick answers
        http.stubFor(any(urlEqualTo("/a7f3k2")).willReturn(aResponse().withBody(hello)));
        http.stubFor(any(urlEqualTo("/q9x1m0")).willReturn(aResponse().withBody(erc)));
        // IObject#mk_manifest, byte for byte, with Component#to_manifest_entry rows
        String manifest = "#%checkm_0.7\n"
                + "#%profile http://uc3.cdlib.org/registry/ingest/manifest/mrt-ingest-manifest\n"
                + "#%prefix | mrt: | http://uc3.cdlib.org/ontology/mom#\n"
                + "#%prefix | nfo: | http://www.semanticdesktop.org/ontologies/2007/03/22/nfo#\n"
                + "#%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileLastModified |"
                + " nfo:fileName | mrt:mimeType\n"
                + http.baseUrl() + "/a7f3k2 | md5 | " + md5(hello) + " | " + hello.length + " | | hello.txt | \n"
                + http.baseUrl() + "/q9x1m0 | md5 | " + md5(erc) + " |  | | mrt-erc.txt | \n"
                + "#%EOF\n";
        // Request#mk_args (nil and '' dropped), in its order
        List<Part> parts = List.of(
                new Part("file", null, "mrt-ingest20261123-4242-1x2y3z", manifest.getBytes(StandardCharsets.UTF_8)),
                new Part("filename", "mrt-ingest20261123-4242-1x2y3z", null, null),
                new Part("localIdentifier", "ruby-local-1", null, null),
                new Part("profile", "demo_content", null, null),
                new Part("responseForm", "json", null, null),
                new Part("submitter", "ruby-client/0.1", null, null),
                new Part("type", "object-manifest", null, null));
        String bid = batchId(postAsRestClient("/poster/submit", parts));
        awaitCompleted(bid);

        String ark = "ark:/99999/fk4ruby1";
        String jid = store.batches().load(bid).jobIds().get(0);
        assertEquals(ark, store.jobs().load(jid).identifiers().primary(), "the ERC's ARK, not a minted one");
        assertEquals(List.of("ruby-local-1"), store.jobs().load(jid).identifiers().localId());
        assertEquals(
                "erc:\nwho: Doe, Jane\nwhat: A Ruby-submitted object\nwhen: 2026-11-23\nwhere: ark:/99999/fk4ruby1\n"
                        + "where: ruby-local-1\n",
                stored(ark, "system/mrt-erc.txt"));
        assertEquals("Hello from the Ruby client\n", stored(ark, "producer/hello.txt"));
        H2Inventory inventory = service.camel().getRegistry().lookupByNameAndType("localIndex", H2Inventory.class);
        assertEquals(ark, inventory.primaryFor("demo_content", "ruby-local-1").orElseThrow());
        assertTrue(
                reportMail(bid).contains(jid + ": " + ark + " version 1 (add mode)"),
                "the report says how it was stored");
        // no DC given: mrt-dc.xml from the ERC, as Merritt's ingest makes it
        assertEquals("""
            <?xml version="1.0" encoding="UTF-8"?>
            <DublinCore xmlns:dc="http://purl.org/dc/elements/1.1/">
              <dc:creator>Doe, Jane</dc:creator>
              <dc:date>2026-11-23</dc:date>
              <dc:identifier>ark:/99999/fk4ruby1</dc:identifier>
              <dc:identifier>ruby-local-1</dc:identifier>
              <dc:title>A Ruby-submitted object</dc:title>
            </DublinCore>
            """, stored(ark, "system/mrt-dc.xml"));
        // the depositor uploaded the manifest: the report names it as they did, not by the server's copy
        String mail = reportMail(bid);
        String completed = attachment(mail, "completed.json");
        assertTrue(completed.contains("\"payload\" : \"mrt-ingest20261123-4242-1x2y3z\""), completed);
        assertFalse(completed.contains("file:") || completed.contains("uploads"), completed);
        assertFalse(mail.contains("file:/") || mail.contains("/uploads/"), mail);
    }

    /** An attachment of a mail from the outbox, decoded. */
    static String attachment(String eml, String name) throws Exception {
        var m = new MimeMessage(Mailer.session(),
                new ByteArrayInputStream(eml.getBytes(StandardCharsets.UTF_8)));
        var parts = (Multipart) m.getContent();
        for (int i = 0; i < parts.getCount(); i++) {
            if (name.equals(parts.getBodyPart(i).getFileName())) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                parts.getBodyPart(i).getDataHandler().writeTo(out);
                return out.toString(StandardCharsets.UTF_8);
            }
        }
        throw new AssertionError("no attachment " + name);
    }

    @Test
    void aZipWithItsErcGetsItsArkAndMergedLocalIdsAndAnUpdateDeletingAFileMakesVersionTwo() throws Exception {
        byte[] object = zip("mrt-erc.txt", "erc:\nwho: Integration, Test\nwhat: Zipped object\nwhen: 2026\n"
                + "where: ark:/99999/fk4zip1\nwhere: zip-local-2\n", "a.txt", "alpha", "b.txt", "bravo");
        List<Part> parts = List.of(
                new Part("file", null, "object.zip", object),
                new Part("localIdentifier", "zip-local-1", null, null),
                new Part("title", "Form title the ERC overrides", null, null),
                new Part("profile", "demo_content", null, null),
                new Part("responseForm", "json", null, null),
                new Part("submitter", "ruby-client/0.1", null, null)); // no type: a zip is a container
        String bid = batchId(postAsRestClient("/poster/submit", parts));
        assertEquals("container", store.batches().load(bid).submission().type());
        awaitCompleted(bid);
        String ark = "ark:/99999/fk4zip1";
        assertEquals(
                List.of("zip-local-1", "zip-local-2"),
                store.jobs()
                        .load(store.batches().load(bid).jobIds().get(0))
                        .identifiers()
                        .localId());
        String erc = stored(ark, "system/mrt-erc.txt");
        assertEquals("erc:\nwho: Integration, Test\nwhat: Zipped object\nwhen: 2026\nwhere: ark:/99999/fk4zip1\n"
                + "where: zip-local-1; zip-local-2\n", erc);
        H2Inventory inventory = service.camel().getRegistry().lookupByNameAndType("localIndex", H2Inventory.class);
        assertEquals(ark, inventory.primaryFor("demo_content", "zip-local-2").orElseThrow());

        // update, the ARK in the path: c.txt added, a.txt deleted, b.txt carried forward
        List<Part> update = List.of(
                new Part("file", null, "update.zip", zip("c.txt", "charlie", "mrt-delete.txt", "a.txt\n")),
                new Part("profile", "demo_content", null, null),
                new Part("responseForm", "json", null, null),
                new Part("submitter", "ruby-client/0.1", null, null));
        String bid2 = batchId(postAsRestClient("/poster/update/ark/99999/fk4zip1", update));
        awaitCompleted(bid2);
        OcflStorage storage = service.camel().getRegistry().lookupByNameAndType("localStorage", OcflStorage.class);
        VersionDetails v2 = storage.repository().describeVersion(ObjectVersionId.head(ark));
        assertEquals(2, v2.getVersionNum().getVersionNum());
        assertTrue(v2.containsFile("producer/b.txt")
                && v2.containsFile("producer/c.txt")
                && v2.containsFile("producer/mrt-erc.txt"));
        assertFalse(v2.containsFile("producer/a.txt"));
        assertFalse(v2.containsFile("producer/mrt-delete.txt"));
        assertTrue(v2.containsFile("system/mrt-delete.txt"));
        String jid2 = store.batches().load(bid2).jobIds().get(0);
        String mail = reportMail(bid2);
        assertTrue(mail.contains(jid2 + ": " + ark + " version 2 (update mode, 1 file(s) deleted)"), mail);
        assertTrue(mail.contains("\"storage_mode\" : \"update\"") && mail.contains("\"version\" : 2"), mail);
    }
}
