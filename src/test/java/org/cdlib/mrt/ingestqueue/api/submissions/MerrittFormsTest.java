package org.cdlib.mrt.ingestqueue.api.submissions;

import static org.cdlib.mrt.ingestqueue.testing.Zips.zip;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.api.http.ApiServiceTest;
import org.cdlib.mrt.ingestqueue.api.http.MultipartForm;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Merritt's own request forms over real HTTP: no {@code type} (inferred), Merritt's type names,
 * the primary id in the path, a malformed ARK or digest refused naming the field.
 */
class MerrittFormsTest extends ApiServiceTest {

    @BeforeAll
    static void start() throws Exception {
        startService(Map.of("ingest.api.users", "sam:pw-s:submitter"));
        store.holds().holdQueue("test"); // the submissions are looked at, not run
    }

    static HttpResponse<String> post(String path, Map<String, String> fields, String fileName,
            byte[] file) throws Exception {
        MultipartForm form = MultipartForm.of(fields, fileName, file);
        return CLIENT.send(HttpRequest.newBuilder(URI.create(base + path))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("sam:pw-s".getBytes(
                StandardCharsets.UTF_8)))
                .header("Content-Type", form.contentType())
                .POST(form.publisher()).build(), HttpResponse.BodyHandlers.ofString());
    }

    static Map<String, String> form(String... kv) {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("profile", "demo_content");
        f.put("responseForm", "json");
        for (int i = 0; i < kv.length; i += 2) {
            f.put(kv[i], kv[i + 1]);
        }
        return f;
    }

    static BatchSubmission accepted(HttpResponse<String> r) throws Exception {
        assertEquals(200, r.statusCode(), r.body());
        JsonNode state = JSON.readTree(r.body()).get("bat:batchState");
        String bid = state.get("bat:batchID").asText();
        assertEquals(bid, r.headers().firstValue("BID").orElseThrow());
        assertEquals("QUEUED", state.get("bat:batchStatus").asText());
        return store.batches().load(bid).submission();
    }

    static String refused(HttpResponse<String> r) throws Exception {
        assertEquals(400, r.statusCode(), r.body());
        return JSON.readTree(r.body()).get("error").asText();
    }

    static byte[] manifest(String profileLine) {
        return ("#%checkm_0.7\n" + profileLine
                + "\n#%fields | nfo:fileUrl | nfo:fileName\nhttp://example.org/a | a\n#%EOF\n")
                .getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void withoutATypeTheKindOfTheUploadDecides() throws Exception {
        assertEquals("container", accepted(post("/poster/submit", form(), "object.zip", zip("a.txt", "alpha"))).type());
        assertEquals("container", accepted(post("/poster/submit", form(), "no-extension", zip("a.txt",
                "alpha"))).type(),
                "a zip recognised by its bytes");
        assertEquals("object-manifest", accepted(post("/poster/submit", form(), "mrt-ingest.tmp",
                manifest("#%profile http://uc3.cdlib.org/registry/ingest/manifest/mrt-ingest-manifest"))).type());
        assertEquals("container-batch-manifest", accepted(post("/poster/submit", form(), "batch.checkm",
                manifest("#%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-container-batch-manifest")))
                .type());
        assertEquals("single-file-batch-manifest", accepted(post("/poster/submit", form(), "batch.txt",
                manifest("#%profile|http://uc3.cdlib.org/registry/ingest/manifest/mrt-single-file-batch-manifest")))
                .type());
        assertEquals("file", accepted(post("/poster/submit", form(), "notes.txt",
                "just text".getBytes(StandardCharsets.UTF_8))).type());
        assertEquals("container", accepted(post("/poster/submit", form("url", "http://example.org/obj.tar.gz"), null,
                null)).type(),
                "a URL by its extension");
        assertEquals("auto", accepted(post("/poster/submit", form("url", "http://example.org/photo.jpg"), null,
                null)).type(),
                "a URL whose name does not decide: its first bytes will, when the batch is taken");
    }

    @Test
    void merrittsTypeNamesAreAliases() throws Exception {
        Map<String, String> expected = Map.of("batchManifest", "batch-manifest", "batchManifestContainer",
                "container-batch-manifest",
                "batchManifestFile", "single-file-batch-manifest", "manifest", "object-manifest", "BATCHMANIFESTFILE",
                "single-file-batch-manifest", "container", "container");
        for (var e : expected.entrySet()) {
            assertEquals(e.getValue(), accepted(post("/poster/submit", form("type", e.getKey(), "url",
                    "http://example.org/m.checkm"), null, null)).type(), e.getKey());
        }
        assertTrue(refused(post("/poster/submit", form("type", "tarball", "url", "http://example.org/m"), null, null))
                .startsWith("unknown type 'tarball'"));
    }

    @Test
    void thePrimaryIdInThePathIsTakenAndUpdateModeSaidSo() throws Exception {
        BatchSubmission s = accepted(post("/poster/submit/ark/99999/fk4path", form("url", "http://example.org/a.txt"),
                null, null));
        assertEquals("ark:/99999/fk4path", s.primaryIdentifier());
        assertEquals("add", s.submissionMode());

        HttpResponse<String> r = post("/poster/update/ark/13030/m5%24qv8", form("url", "http://example.org/a.txt",
                "primaryIdentifier", "ark:/13030/m5$qv8"), null, null);
        s = accepted(r);
        assertEquals("ark:/13030/m5$qv8", s.primaryIdentifier(), "URL-decoded");
        assertEquals("update", s.submissionMode());
        assertTrue(JSON.readTree(r.body()).get("bat:batchState").get("bat:updateFlag").asBoolean(), r.body());

        assertEquals(
                "field 'primaryIdentifier' (ark:/99999/fk4other) differs from the id in the path (ark:/99999/fk4path)",
                refused(post("/poster/submit/ark/99999/fk4path", form("url", "http://example.org/a.txt",
                        "primaryIdentifier", "ark:/99999/fk4other"), null, null)));
        assertTrue(refused(post("/poster/submit/ark/9999/x", form("url", "http://example.org/a.txt"), null, null))
                .startsWith("field 'primaryIdentifier': 'ark:/9999/x' is not an ARK"));
    }

    @Test
    void aMalformedArkOrDigestIsRefusedNamingTheField() throws Exception {
        assertEquals(
                "field 'primaryIdentifier': 'ark:/foo' is not an ARK (expected ark:/<5-digit NAAN>/<name>, e.g. "
                + "ark:/99999/fk4abc)",
                refused(post("/poster/submit", form("primaryIdentifier", "ark:/foo"), "a.txt",
                "a".getBytes(StandardCharsets.UTF_8))));
        assertEquals("field 'digestValue': md5 value 'abc' has 3 hex digits; a md5 has 32",
                refused(post("/poster/submit", form("digestType", "md5", "digestValue", "abc"), "a.txt",
                        "a".getBytes(StandardCharsets.UTF_8))));
        assertEquals("field 'digestValue' given without 'digestType'", refused(post("/poster/submit",
                form("digestValue", "5d41402abc4b2a76b9719d911017c592"), "a.txt",
                "a".getBytes(StandardCharsets.UTF_8))));
        assertEquals("ab".repeat(32), accepted(post("/poster/submit", form("digestType", "SHA256", "digestValue",
                "ab".repeat(32)),
                "a.txt", "a".getBytes(StandardCharsets.UTF_8))).digestValue(), "a sha-256 of the right length passes");
    }
}
