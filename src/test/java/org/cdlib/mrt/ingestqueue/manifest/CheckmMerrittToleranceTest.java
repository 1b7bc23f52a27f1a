package org.cdlib.mrt.ingestqueue.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Checkm headers as Merritt's reader takes them, and digests and ARKs checked for form before any download. */
class CheckmMerrittToleranceTest {
    static final String FIELDS =
            "#%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileLastModified"
                    + " | nfo:fileName | mrt:mimeType\n";
    static final String MD5 = "5d41402abc4b2a76b9719d911017c592";

    @Test
    void theRubyClientsPipelessProfileAndUppercaseEofWithoutAFinalNewlineParse() {
        // what Mrt::Ingest::IObject#mk_manifest writes, less the final newline
        String text = "#%checkm_0.7\n"
                + "#%profile http://uc3.cdlib.org/registry/ingest/manifest/mrt-ingest-manifest\n"
                + "#%prefix | mrt: | http://uc3.cdlib.org/ontology/mom#\n"
                + "#%prefix | nfo: | http://www.semanticdesktop.org/ontologies/2007/03/22/nfo#\n"
                + FIELDS
                + "http://h:8081/abc | md5 | " + MD5 + " | 5 | | hello.txt | \n"
                + "http://h:8081/def | md5 | " + MD5 + " |  | | mrt-erc.txt | \n"
                + "#%EOF";
        CheckmManifest m = CheckmManifest.parse(text);
        assertEquals(CheckmManifest.Kind.OBJECT, m.kind());
        assertEquals("http://uc3.cdlib.org/registry/ingest/manifest/mrt-ingest-manifest", m.profile());
        assertEquals(List.of("hello.txt", "mrt-erc.txt"), m.rows().stream().map(CheckmManifest.Row::fileName).toList());
        assertEquals(7, m.fields().size());
    }

    @Test
    void anyRunOfBlanksAndBarsAfterTheDirectiveNameIsSkipped() {
        for (String header : List.of(
                "#%profile|http://x/mrt-ingest-manifest",
                "#%profile \t| |  http://x/mrt-ingest-manifest",
                "#%PROFILE    http://x/mrt-ingest-manifest",
                "#%profile | http://x/mrt-ingest-manifest")) {
            String text =
                    "#%checkm_0.7\n" + header + "\n#%fields nfo:fileUrl | nfo:fileName\nhttp://h/a | a.txt\n#%eof\n";
            CheckmManifest m = CheckmManifest.parse(text);
            assertEquals("http://x/mrt-ingest-manifest", m.profile(), header);
            assertEquals(List.of("nfo:fileurl", "nfo:filename"), m.fields(), header);
        }
        assertEquals(
                List.of("profile", "http://x", "more"),
                List.of(CheckmReader.directive("#%profile  || http://x | more")));
    }

    @Test
    void merrittIsStrictAboutAMissingEofAndAnUnknownProfile() {
        ManifestException e = assertThrows(ManifestException.class, () -> CheckmManifest.parse(
                "#%checkm_0.7\n#%profile http://x/mrt-ingest-manifest\n" + FIELDS + "http://h/a | | | | | a\n"));
        assertTrue(e.getMessage().contains("missing '#%eof'"), e.getMessage());
        e = assertThrows(ManifestException.class, () -> CheckmManifest.parse(
                "#%checkm_0.7\n#%profile http://x/mrt-something-else\n" + FIELDS + "http://h/a | | | | | a\n#%eof\n"));
        assertTrue(e.getMessage().contains("unknown manifest profile 'http://x/mrt-something-else'"), e.getMessage());
    }

    @Test
    void aDigestOfTheWrongFormFailsNamingTheLineBeforeAnythingIsFetched() {
        String head = "#%checkm_0.7\n#%profile http://x/mrt-ingest-manifest\n" + FIELDS;
        ManifestException e = assertThrows(ManifestException.class, () -> CheckmManifest.parse(
                head + "http://h/a | md5 | " + MD5 + " | | | a\nhttp://h/b | md5 | abc123 | | | b\n#%eof\n"));
        assertEquals(5, e.line());
        assertEquals(
                "manifest line 5: nfo:hashValue: md5 value 'abc123' has 6 hex digits; a md5 has 32", e.getMessage());
        e = assertThrows(ManifestException.class, () -> CheckmManifest.parse(
                head + "http://h/a | SHA256 | " + MD5 + " | | | a\n#%eof\n"));
        assertTrue(
                e.getMessage().startsWith("manifest line 4: nfo:hashValue: sha-256 value")
                        && e.getMessage().endsWith("has 64"),
                e.getMessage());
        e = assertThrows(
                ManifestException.class,
                () -> CheckmManifest.parse(head + "http://h/a | md5 | " + MD5.replace('5', 'g') + " | | | a\n#%eof\n"));
        assertTrue(e.getMessage().contains("is not hexadecimal"), e.getMessage());
        // right lengths pass, in either case; checksums may drop leading zeros
        CheckmManifest.parse(head + "http://h/a | sha-256 | " + "AB".repeat(32) + " | | | a\n"
                + "http://h/b | crc-32 | 1a2b | | | b\nhttp://h/c | sha-1 | " + "0".repeat(40) + " | | | c\n#%eof\n");
        assertNull(DigestAlgorithm.SHA512.formProblem("f".repeat(128)));
        assertEquals("adler-32 value '123456789' has 9 hex digits; a adler-32 has at most 8",
                DigestAlgorithm.ADLER32.formProblem("123456789"));
    }

    @Test
    void aMalformedPrimaryIdentifierInABatchManifestIsPassedOnAsWrittenAsMerrittDoes() throws Exception {
        // mrt-doc's sampleBatchOfContainers_with_bad_ark: "Merritt parser would not enforce this"
        String text = "#%checkm_0.7\n"
                + "#%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-single-file-batch-manifest\n"
                + "#%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize |"
                + " nfo:fileLastModified | nfo:fileName | mrt:primaryIdentifier | mrt:localIdentifier |"
                + " mrt:creator | mrt:title | mrt:date\n"
                + "http://h/a | | | | | a | ark:/99999/fk4good | l1 | | | \n"
                + "http://h/b | | | | | b | ark:/foo | l2 | | | \n"
                + "#%eof\n";
        try (CheckmReader r = new CheckmReader(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)))) {
            assertEquals("ark:/99999/fk4good", r.next().primaryIdentifier());
            assertEquals("ark:/foo", r.next().primaryIdentifier());
            assertNull(r.next());
        }
        // the submission form's primaryIdentifier and mrt-erc.txt's where: are still held to Ark
        assertTrue(Ark.valid("ark:/13030/m5qv8jks"));
        assertTrue(Ark.valid("ark:/99999/fk4abc/qualifier.v2"));
        for (String bad : List.of(
                "ark:/foo",
                "ark:/1234/x",
                "ark:/99999/",
                "ark:99999/x",
                "ark:/99999//x",
                "ark:/99999/a b",
                "doi:10.1/x")) {
            assertTrue(!Ark.valid(bad), bad);
        }
    }
}
