package org.cdlib.mrt.ingestqueue.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rules behind {@link MerrittManifestCasesTest} past the cases' own values: Merritt's columns
 * when {@code #%fields} is absent (batch profiles too, and when jobs are made from a saved offset),
 * prefixes ignored, the forms of {@code nfo:fileLastModified}, what follows {@code #%eof}, and
 * which batch rows Merritt would expand.
 */
class CheckmMerrittReadingTest {
    static final String BATCH =
            "#%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-container-batch-manifest\n";
    static final String OBJECT =
            "#%checkm_0.7\n#%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-ingest-manifest\n";

    @TempDir
    Path dir;

    @Test
    void aBatchManifestWithoutFieldsIsReadInMerrittsBatchColumnsFromAnyOffset() throws Exception {
        Path file = dir.resolve("batch.checkm");
        Files.writeString(file, BATCH + "http://h/a.zip | | | | | a.zip | ark:/99999/fk4a | la | Ann | Alpha | 2001\n"
                + "http://h/b.tgz | md5 | " + "0".repeat(32) + " | 7 | 2020-01-01 | b.tgz | | lb | | Beta\n#%eof\n");
        long second;
        try (CheckmReader r = CheckmReader.open(file, 0)) {
            CheckmManifest.Row a = r.next();
            second = r.offset();
            assertEquals(List.of("ark:/99999/fk4a", "la", "Ann", "Alpha", "2001"),
                    List.of(a.primaryIdentifier(), a.localIdentifiers().get(0), a.creator(), a.title(), a.date()));
            assertEquals(MerrittFields.BATCH, r.fields());
        }
        try (CheckmReader r = CheckmReader.open(file, second)) {
            CheckmManifest.Row b = r.next();
            assertEquals(
                    List.of("http://h/b.tgz", "md5", "7", "2020-01-01", "b.tgz", "lb", "Beta"),
                    List.of(
                            b.fileUrl(),
                            b.hashAlgorithm(),
                            b.fileSize().toString(),
                            b.fileLastModified(),
                            b.fileName(),
                            b.localIdentifiers().get(0),
                            b.title()));
            assertNull(r.next());
            assertEquals(CheckmManifest.Kind.CONTAINER_BATCH, r.finish());
        }
    }

    @Test
    void aFieldsPrefixIsIgnoredAsMerrittIgnoresPrefixesButAFieldNamedTwiceIsRefused() {
        CheckmManifest m =
                CheckmManifest.parse(OBJECT + "#%fields | nfo:fileUrl | foo:fileName | mrtfoo:mimeType | dc:extra\n"
                        + "http://h/a | a.txt | text/plain | x\n#%eof\n");
        CheckmManifest.Row row = m.rows().get(0);
        assertEquals(List.of("a.txt", "text/plain", "x"), List.of(row.fileName(), row.mimeType(), row.get("dc:extra")));
        ManifestException e = assertThrows(ManifestException.class, () -> CheckmManifest.parse(OBJECT
                + "#%fields | nfo:fileUrl | nfo:fileName | mrt:fileName\nhttp://h/a | a | b\n#%eof\n"));
        assertEquals("manifest line 3: '#%fields' names nfo:fileName twice (columns 2 and 3)", e.getMessage());
    }

    @Test
    void aModificationDateMustBeAnIso8601DateOrDateAndTime() {
        for (String ok : List.of(
                "2020-01-01",
                "2020-01-01T00:00Z",
                "2020-01-01T00:00.000Z",
                "2020-01-01T12:30:05.25+01:00",
                "2020-01-01T12:30:05-0800",
                "2020-01-01T12:30:05",
                "2024-02-29T23:59:59,5-03")) {
            assertNull(LastModified.problem(ok), ok);
        }
        for (String bad : List.of(
                "foo",
                "2020-02-30",
                "2020-13-01",
                "2020-01-01T25:00Z",
                "2020-01-01T12:60",
                "01/02/2020",
                "2020-01-01 12:00:00",
                "2020-01-01T12:00+19:00",
                "20200101")) {
            assertTrue(LastModified.problem(bad) != null, bad);
        }
        assertEquals("nfo:fileLastModified '2020-02-30' is not a date: Invalid date 'FEBRUARY 30'",
                LastModified.problem("2020-02-30"));
    }

    @Test
    void onlyAFinalNewlineMayFollowTheEndMark() {
        String fields = "#%fields | nfo:fileUrl | nfo:fileName\nhttp://h/a | a\n";
        assertEquals(1, CheckmManifest.parse(OBJECT + fields + "#%EOF").rows().size());
        assertEquals(1, CheckmManifest.parse(OBJECT + fields + "#%eof\r\n").rows().size());
        ManifestException e =
                assertThrows(ManifestException.class, () -> CheckmManifest.parse(OBJECT + fields + "#%eof\n  \n"));
        assertEquals(6, e.line());
        e = assertThrows(
                ManifestException.class, () -> CheckmManifest.parse(OBJECT + fields + "#%eof\nhttp://h/b | b\n"));
        assertEquals("manifest line 6: 'http://h/b | b' follows '#%eof'; '#%eof' must be the manifest's last line "
                + "(Merritt's parser fails otherwise)", e.getMessage());
    }

    @Test
    void batchRowsMerrittWouldNotExpandAreNamedByTheirFileNameOrElseTheirUrl() {
        CheckmManifest.Kind c = CheckmManifest.Kind.CONTAINER_BATCH;
        for (String ok : List.of("a.zip", "A.ZIP", "a.tar", "a.tar.gz", "a.tgz", "a.gz", "a.tar.bz2", "a.bz2")) {
            assertNull(PayloadTypes.notExpandable(c, ok), ok);
        }
        for (String bad : List.of("a.zip.txt", "a.jar", "a.tbz", "a.7z", "zip")) {
            assertTrue(PayloadTypes.notExpandable(c, bad) != null, bad);
        }
        assertNull(PayloadTypes.notExpandable(CheckmManifest.Kind.BATCH, "object.CHECKM"));
        assertNull(
                PayloadTypes.notExpandable(CheckmManifest.Kind.SINGLE_FILE_BATCH, "a.zip.txt"),
                "a single file is never expanded");
        ManifestException e = assertThrows(ManifestException.class, () -> CheckmManifest.parse(BATCH
                + "#%fields | nfo:fileUrl\nhttp://h/x.zip?v=2\nhttp://h/obj.rar\n#%eof\n"));
        assertTrue(
                e.getMessage().startsWith("manifest line 4: 'obj.rar' is not a container Merritt would expand"),
                e.getMessage());
    }

    @Test
    void aManifestWithoutTheDeclarationIsStillAManifestButOneWithNeitherProfileNorDeclarationIsNot() {
        byte[] nodecl = (BATCH + "http://h/a.zip | | | | | a.zip\n#%eof\n").getBytes(StandardCharsets.UTF_8);
        assertEquals("container-batch-manifest", PayloadTypes.byContent(nodecl));
        assertEquals(CheckmManifest.Kind.CONTAINER_BATCH, CheckmManifest.parse(nodecl).kind());
        ManifestException e = assertThrows(ManifestException.class, () -> CheckmManifest.parse("just some text\n"));
        assertEquals(
                "manifest line 1: no '#%profile' line before the first data row: cannot tell what kind of manifest"
                        + " this is",
                e.getMessage());
        e = assertThrows(ManifestException.class, () -> CheckmManifest.parse("\n\n"));
        assertEquals("manifest: empty: no '#%profile' line and no data row", e.getMessage());
    }
}
