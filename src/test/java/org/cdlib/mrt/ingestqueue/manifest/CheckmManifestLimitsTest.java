package org.cdlib.mrt.ingestqueue.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;
import org.junit.jupiter.api.Test;

/** No manifest cell larger than the queue's limits gets past parsing; the message names line and cell. */
class CheckmManifestLimitsTest {
    static final String HEAD =
            "#%checkm_0.7\n#%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-batch-manifest\n"
                    + "#%fields | nfo:fileUrl | nfo:fileName | mrt:localIdentifier | MRT:Title | dc:extra\n";

    static String manifest(String... rows) {
        return HEAD + String.join("\n", rows) + "\n#%eof\n";
    }

    @Test
    void aCellOverTheFieldLimitIsRefusedNamingLineAndCell() {
        String title = "x".repeat(1_572_864);
        ManifestException e = assertThrows(ManifestException.class, () -> CheckmManifest.parse(manifest(
                "http://example.org/a.checkm | a.checkm | loc-a | A | ",
                "http://example.org/b.checkm | b.checkm | loc-b | " + title + " | ")));
        assertEquals(5, e.line());
        assertEquals("manifest line 5: cell mrt:title is 1572864 bytes; the limit is 4096 bytes", e.getMessage());
    }

    @Test
    void theLimitsAreUtf8BytesAndAnUnknownFieldIsNamedAsWritten() {
        String ok = "é".repeat(QueueLimits.FIELD_BYTES / 2); // 4096 bytes: at the limit
        assertEquals(
                ok,
                CheckmManifest.parse(manifest("http://example.org/a.checkm | a.checkm | | " + ok + " | "))
                        .rows()
                        .get(0)
                        .title());
        ManifestException e = assertThrows(ManifestException.class, () -> CheckmManifest.parse(manifest(
                "http://example.org/a.checkm | a.checkm | | | " + ok + "é")));
        assertEquals("manifest line 4: cell dc:extra is 4098 bytes; the limit is 4096 bytes", e.getMessage());
        String local = "x".repeat(QueueLimits.FIELD_BYTES + 1);
        e = assertThrows(ManifestException.class, () -> CheckmManifest.parse(manifest(
                "http://example.org/a.checkm | a.checkm | " + local + " | | ")));
        assertEquals(
                "manifest line 4: cell mrt:localIdentifier is 4097 bytes; the limit is 4096 bytes", e.getMessage());
    }

    @Test
    void aUrlIsHeldToTheUrlLimit() {
        String url = "http://example.org/" + "a".repeat(QueueLimits.URL_BYTES);
        ManifestException e =
                assertThrows(ManifestException.class, () -> CheckmManifest.parse(manifest(url + " | a | | | ")));
        assertEquals(
                "manifest line 4: cell nfo:fileUrl is " + (url.length()) + " bytes; the limit is "
                        + QueueLimits.URL_BYTES + " bytes",
                e.getMessage());
    }

    @Test
    void aLineOverTheLineLimitIsRefusedBeforeItIsSplit() {
        String many = " | ".repeat(30_000); // small cells, but a long line
        ManifestException e = assertThrows(ManifestException.class, () -> CheckmManifest.parse(manifest(
                "http://example.org/a.checkm | a.checkm" + many)));
        assertEquals(4, e.line());
        assertEquals(
                "manifest line 4: the line is "
                        + ("http://example.org/a.checkm | a.checkm" + many)
                                .strip()
                                .length() + " bytes; the limit is 65536 bytes",
                e.getMessage());
    }
}
