package org.cdlib.mrt.ingestqueue.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A manifest's cells are one line of text each: a control character in any of them, or a URL
 * naming a user or password, fails the manifest naming line and cell (never the password).
 */
class CheckmTextTest {
    static final String HEAD = "#%checkm_0.7\n"
            + "#%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-container-batch-manifest\n"
            + "#%fields | nfo:fileUrl | nfo:fileName | mrt:localIdentifier | mrt:creator | mrt:title | mrt:date\n";

    static String manifest(String... rows) {
        return HEAD + String.join("\n", rows) + "\n#%eof\n";
    }

    @Test
    void aControlCharacterInAnyCellFailsTheManifestNamingLineAndCell() {
        String ok = "http://example.org/a.zip | a.zip | loc-a | Ann | A title | 2024";
        record Case(String row, String message) {
        }
        for (Case c : List.of(
                new Case("http://example.org/b.zip | b.zip | loc-b | Ann | A\u0000title | 2024",
                        "cell mrt:title contains a NUL character (U+0000) at character 2"),
                new Case("http://example.org/b.zip | b.zip | loc\rb | Ann | T | 2024",
                        "cell mrt:localIdentifier contains a line break (a carriage return, U+000D) at character 4"),
                new Case("http://example.org/b.zip | b.zip | loc-b | Ann\u001b[31m | T | 2024",
                        "cell mrt:creator contains a control character (U+001B) at character 4"),
                new Case("http://example.org/b.zip | b.zip | loc-b | Ann | T | 20\t24",
                        "cell mrt:date contains a tab (U+0009) at character 3"),
                new Case("http://example.org/b.zip | b\u2028.zip | loc-b | Ann | T | 2024",
                        "cell nfo:fileName contains a line or paragraph separator (U+2028) at character 2"),
                new Case("http://example.org/b\u0085.zip | b.zip | loc-b | Ann | T | 2024",
                        "cell nfo:fileUrl contains a control character (U+0085) at character 21"))) {
            ManifestException e =
                    assertThrows(ManifestException.class, () -> CheckmManifest.parse(manifest(ok, c.row())), c.row());
            assertEquals("manifest line 5: " + c.message() + "; a cell is one line of text", e.getMessage());
        }
        assertEquals("A title", CheckmManifest.parse(manifest(ok)).rows().get(0).title());
    }

    @Test
    void aUrlNamingAUserOrPasswordFailsTheManifestWithoutRepeatingIt() {
        ManifestException e = assertThrows(ManifestException.class, () -> CheckmManifest.parse(manifest(
                "http://example.org/a.zip | a.zip | | | | ",
                "https://alice:s3cr3t@example.org/b.zip | b.zip | | | | ")));
        assertEquals(5, e.line());
        assertEquals(
                "manifest line 5: nfo:fileUrl https://***@example.org/b.zip names a user or password before its host; "
                        + "credentials are not accepted in URLs",
                e.getMessage());
        assertFalse(e.getMessage().contains("s3cr3t"));
    }
}
