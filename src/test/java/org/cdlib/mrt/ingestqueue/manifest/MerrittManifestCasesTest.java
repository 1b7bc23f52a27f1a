package org.cdlib.mrt.ingestqueue.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.cdlib.mrt.ingestqueue.fetch.FetchException;
import org.cdlib.mrt.ingestqueue.fetch.UrlPolicy;
import org.cdlib.mrt.ingestqueue.manifest.CheckmManifest.Kind;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every manifest case of mrt-doc read as Merritt reads it: the 37 cases of
 * {@code manifest/test-cases/*.checkm} and the five samples of {@code sampleFiles/} that mrt-doc's
 * validator ({@code manifest/index.html}) lists with what Merritt does with each, as read at
 * CDLUC3/mrt-doc commit {@code 2027f608e879f7b76208fe016e8d1538b54699a5}. The fixtures in
 * {@code src/test/resources/manifest-cases/} are the queue's own manifests carrying each case's
 * facts (its headers, its defect, its values; URLs moved to example.org), named as mrt-doc names
 * the case. mrt-doc's {@code 4blocks_with_bad_date} and {@code 4blocks_with_bad_moddate} are the
 * same text (a bad {@code nfo:fileLastModified}), as are {@code 4blocks_with_date} and
 * {@code 4blocks_with_moddate}.
 * <p>
 * An accepted case is checked row by row, every value the queue reads, written in Merritt's
 * column order. A refused one names its line. Two are decided past the parser as in Merritt:
 * {@code 4blocks_incorrect_url_protocol} by the queue's URL policy (every row's URL is checked
 * before anything is fetched), {@code 4blocks_incorrect_url_hostname} only when the download fails.
 */
class MerrittManifestCasesTest {
    static final String S = "https://example.org/samples/";
    static final String JPG_MD5 = "0b21c6d48e815dd537d42dc1cfac0111";
    static final String TXT_MD5 = "4dbac258aa1aab9fea0f57712385283d";
    static final String TXT_SHA256 = "8eb32b67483526906ff99036d9028aa5b6ab5e59e83ca439e63cc041284b6cc2";
    static final String JPG = row(S + "4blocks.jpg", "md5", JPG_MD5, "", "", "4blocks.jpg", "");
    static final String TXT = row(S + "4blocks.txt", "md5", TXT_MD5, "", "", "4blocks.txt", "");
    static final List<String> FOUR_BLOCKS = List.of(JPG, TXT);
    static final List<String> MERRITT_OBJECT_COLUMNS = List.of("nfo:fileurl", "nfo:hashalgorithm", "nfo:hashvalue",
            "nfo:filesize", "nfo:filelastmodified", "nfo:filename", "nie:mimetype");
    static final String DRAGON_MD5 = "aa59e145dfb2237ecd8cb5ce4f4953ea";
    static final String BUG_MD5 = "61224ef4f2a8dad552ff57980ed0bf49";

    /** What the queue does with a case: accept it with these rows, or refuse it at a line, saying this. */
    record Expected(Kind kind, List<String> rows, int line, String says, boolean byUrlPolicy) {
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                // mrt-doc: the published samples, "pass"
                accepts("sample_4blocks", Kind.OBJECT, FOUR_BLOCKS),
                accepts(
                        "sample_bigHunt",
                        Kind.OBJECT,
                        List.of(
                                row(S + "bigHunt2.jpg", "", "", "76935", "", "bigHunt2.jpg", ""),
                                row(S + "bigHunt3.jpg", "", "", "55408", "", "bigHunt3.jpg", ""),
                                row(S + "bigHunt.txt", "", "", "33", "", "bigHunt.txt", ""))),
                accepts("sample_batchOfContainers", Kind.CONTAINER_BATCH, containers("", "")),
                accepts("sample_batchOfFiles", Kind.SINGLE_FILE_BATCH, files("goldenDragon.jpg", "goldenDragon.jpg")),
                accepts("sample_batchOfManifests", Kind.BATCH, MANIFESTS),
                // "Headers and Structure Issues - Manifest will Pass"
                accepts("4blocks_nodecl", Kind.OBJECT, FOUR_BLOCKS),
                accepts("4blocks_noterm_nl", Kind.OBJECT, FOUR_BLOCKS),
                accepts("4blocks_prefixes", Kind.OBJECT, FOUR_BLOCKS),
                accepts("4blocks_uri", Kind.OBJECT, FOUR_BLOCKS),
                accepts("4blocks_noprefix", Kind.OBJECT, FOUR_BLOCKS),
                accepts("4blocks_nofields", Kind.OBJECT, FOUR_BLOCKS),
                accepts("4blocks_nl_before_data", Kind.OBJECT, FOUR_BLOCKS),
                accepts("4blocks_nl_within_data", Kind.OBJECT, FOUR_BLOCKS),
                accepts("4blocks_nl_after_data", Kind.OBJECT, FOUR_BLOCKS),
                accepts("4blocks_with_windows_crlf", Kind.OBJECT, FOUR_BLOCKS),
                accepts(
                        "4blocks_alg_uppercase",
                        Kind.OBJECT,
                        List.of(
                                row(S + "4blocks.jpg", "MD5", JPG_MD5, "", "", "4blocks.jpg", ""),
                                row(S + "4blocks.txt", "SHA-256", TXT_SHA256, "", "", "4blocks.txt", ""))),
                // "Negative Cases - Headers and Structure"
                refuses("4blocks_2term_nl", 9, "an empty line follows '#%eof'"),
                refuses(
                        "4blocks_field_reorder",
                        5,
                        "'#%fields' begins with nfo:fileSize; nfo:fileUrl must be the first column"),
                refuses("4blocks_noprofile", 5, "no '#%profile' line before the first data row"),
                refuses("4blocks_noeof", 8, "missing '#%eof'"),
                refuses("4blocks_encoding", 7, "not UTF-8 text"),
                // mrt-doc: "Extra columns are ignored by Merritt parser" (here: empty ones)
                accepts("4blocks_extra_pipe", Kind.OBJECT, FOUR_BLOCKS),
                // "Field Specific Issues - Manifest Will Pass"
                accepts(
                        "4blocks_missing_fname",
                        Kind.OBJECT,
                        List.of(row(S + "4blocks.jpg", "md5", JPG_MD5, "", "", "", ""), TXT)),
                accepts(
                        "4blocks_dup_filename_diff_folders",
                        Kind.OBJECT,
                        List.of(
                                JPG,
                                row(S + "4blocks.txt", "md5", TXT_MD5, "", "", "folder1/4blocks.txt", ""),
                                row(S + "4blocks.txt", "md5", TXT_MD5, "", "", "folder2/4blocks.txt", ""))),
                accepts(
                        "4blocks_dup_filename_upcase",
                        Kind.OBJECT,
                        List.of(JPG, TXT, row(S + "4blocks.txt", "md5", TXT_MD5, "", "", "4blocks.TXT", ""))),
                // "Negative Cases - Field Tests"
                refuses("4blocks_incorrect_algorithm", 7, "unknown digest algorithm 'md5xxx'"),
                refuses("4blocks_incorrect_filesize", 7, "nfo:fileSize '111xxx' is not a whole number of bytes"),
                refusedByUrlPolicy("4blocks_incorrect_url_protocol", 7, "URL scheme 'hzzttps' is not fetched"),
                refuses("4blocks_missing_url", 6, "nfo:fileUrl is empty"),
                refuses(
                        "4blocks_incorrect_sha256",
                        7,
                        "sha-256 value '" + TXT_MD5 + "' has 32 hex digits; a sha-256 has 64"),
                refuses("4blocks_incorrect_md5_format", 6, "has 64 hex digits; a md5 has 32"),
                refuses(
                        "sampleBatchOfContainers_incorrect_filename",
                        7,
                        "'outdoorStore.zip.txt' is not a container Merritt would expand"),
                refuses(
                        "sampleBatchOfManifests_incorrect_filename",
                        7,
                        "'4blocks.checkm.txt' is not an object manifest Merritt would read"),
                // mrt-doc: "Merritt parser would not enforce this": the id is passed on as written
                accepts(
                        "sampleBatchOfContainers_with_bad_ark",
                        Kind.CONTAINER_BATCH,
                        containers("ark:/foo", "ark:/99999/fk4903mg7h")),
                // mrt-doc: not expanded by Merritt, "loaded as a curatorial
                // file": a single-file batch's rows are files here too
                accepts(
                        "sampleBatchOfFiles_mixedTypes",
                        Kind.SINGLE_FILE_BATCH,
                        files("goldenDragon.zip", "goldenDragon.zip")),
                accepts(
                        "sampleBatchOfFiles_mixedTypes_checkm",
                        Kind.SINGLE_FILE_BATCH,
                        files("goldenDragon.checmk", "goldenDragon.checkm")),
                // mrt-doc: "Ingest would likely fail": when the host is looked up, at download, as in Merritt
                accepts(
                        "4blocks_incorrect_url_hostname",
                        Kind.OBJECT,
                        List.of(
                                row("https://raw/samples/4blocks.jpg", "md5", JPG_MD5, "", "", "4blocks.jpg", ""),
                                TXT)),
                refuses("4blocks_dup_filename", 8, "file name '4blocks.txt' appears twice"),
                // "Other Cases - field test"
                accepts("4blocks_with_date", Kind.OBJECT, DATED),
                accepts("4blocks_with_moddate", Kind.OBJECT, DATED),
                refuses("4blocks_with_bad_date", 7, "nfo:fileLastModified 'foo' is not a date"),
                refuses("4blocks_with_bad_moddate", 7, "nfo:fileLastModified 'foo' is not a date"));
    }

    static List<String> containers(String firstArk, String secondArk) {
        return List.of(
                batchRow(
                        S + "huskyChicken.zip",
                        "",
                        "",
                        "huskyChicken.zip",
                        firstArk,
                        "",
                        "Tracy Seneca",
                        "Husky Chicken",
                        "2009-09-01"),
                batchRow(
                        S + "outdoorStore.zip",
                        "",
                        "",
                        "outdoorStore.zip",
                        secondArk,
                        "",
                        "",
                        "The Outdoor Store, Portland OR",
                        ""),
                batchRow(
                        S + "souvenirs.zip",
                        "",
                        "",
                        "souvenirs.zip",
                        "",
                        "",
                        "Tracy Seneca",
                        "SouvenirsLast Summer",
                        ""));
    }

    static final List<String> DATED = List.of(
            row(S + "4blocks.jpg", "md5", JPG_MD5, "", "2020-01-01T00:00.000Z", "4blocks.jpg", ""),
            row(S + "4blocks.txt", "md5", TXT_MD5, "", "2019-12-31T00:00.000Z", "4blocks.txt", ""));

    static List<String> files(String firstUrl, String firstName) {
        return List.of(
                batchRow(
                        S + firstUrl,
                        "md5",
                        DRAGON_MD5,
                        firstName,
                        "",
                        "",
                        "Tracy Seneca",
                        "Golden Dragon Restaurant Sign",
                        "2009-09-01"),
                batchRow(
                        S + "tumbleBug.jpg",
                        "md5",
                        BUG_MD5,
                        "tumbleBug.jpg",
                        "",
                        "",
                        "Tracy Seneca",
                        "Tumble Bug, Luna Park.  Sydney",
                        ""),
                batchRow(S + "generalDrapery.jpg", "", "", "generalDrapery.jpg", "", "", "", "General Drapery", ""));
    }

    static final List<String> MANIFESTS = List.of(
            batchRow(S + "bigHunt.checkm", "", "", "bigHunt.checkm", "", "", "Tracy Seneca", "", "2009-09-01"),
            batchRow(
                    S + "4blocks.checkm",
                    "",
                    "",
                    "4blocks.checkm",
                    "",
                    "",
                    "Tracy Seneca",
                    "Motel Capri - manifest style",
                    "2009-09-01T00:00:00"),
            batchRow(
                    S + "call911.checkm",
                    "",
                    "",
                    "call911.checkm",
                    "",
                    "",
                    "Tracy Seneca",
                    "If This Bell Rings Call 911 - manifest style",
                    "2009-09-01T00:00:00"));

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void eachCaseIsReadAsMerrittReadsIt(String name, Expected expected) throws Exception {
        byte[] text = fixture(name);
        if (expected.rows() == null && !expected.byUrlPolicy()) {
            ManifestException e = assertThrows(ManifestException.class, () -> CheckmManifest.parse(text), name);
            assertEquals(expected.line(), e.line(), e.getMessage());
            assertTrue(e.getMessage().startsWith("manifest line " + expected.line() + ": "), e.getMessage());
            assertTrue(e.getMessage().contains(expected.says()), e.getMessage());
            return;
        }
        CheckmManifest m = CheckmManifest.parse(text);
        if (expected.byUrlPolicy()) {
            UrlPolicy policy = new UrlPolicy(Path.of("ingest-home"), false);
            for (CheckmManifest.Row r : m.rows()) {
                try {
                    policy.check(r.fileUrl());
                } catch (FetchException e) {
                    assertEquals(expected.line(), r.line(), e.getMessage());
                    assertTrue(e.getMessage().contains(expected.says()), e.getMessage());
                    return;
                }
            }
            fail(name + ": every URL passed the URL policy");
        }
        assertEquals(expected.kind(), m.kind());
        List<String> rows = new ArrayList<>();
        for (CheckmManifest.Row r : m.rows()) {
            rows.add(m.kind().isBatch() ? batchRow(r) : row(r));
        }
        assertEquals(expected.rows(), rows);
        if (name.equals("4blocks_nofields") || name.equals("4blocks_prefixes")) {
            // nofields: Merritt's own columns; prefixes: mrtfoo:mimeType read as the mime type, the prefix ignored
            assertEquals(MERRITT_OBJECT_COLUMNS, m.fields());
        }
    }

    static Arguments accepts(String name, Kind kind, List<String> rows) {
        return Arguments.of(name, new Expected(kind, rows, 0, null, false));
    }

    static Arguments refuses(String name, int line, String says) {
        return Arguments.of(name, new Expected(null, null, line, says, false));
    }

    static Arguments refusedByUrlPolicy(String name, int line, String says) {
        return Arguments.of(name, new Expected(Kind.OBJECT, null, line, says, true));
    }

    /** The fixture's bytes: the encoding case must reach the reader as it is. */
    static byte[] fixture(String name) throws IOException {
        try (InputStream in =
                MerrittManifestCasesTest.class.getResourceAsStream("/manifest-cases/" + name + ".checkm")) {
            if (in == null) {
                throw new IOException("no fixture manifest-cases/" + name + ".checkm");
            }
            return in.readAllBytes();
        }
    }

    /** An object manifest row as read, in Merritt's object columns; absent values empty. */
    static String row(String url, String alg, String digest, String size, String modified, String name, String mime) {
        return String.join(" | ", url, alg, digest, size, modified, name, mime);
    }

    static String row(CheckmManifest.Row r) {
        return row(
                r.fileUrl(),
                n(r.hashAlgorithm()),
                n(r.hashValue()),
                r.fileSize() == null ? "" : r.fileSize().toString(),
                n(r.fileLastModified()),
                n(r.fileName()),
                n(r.mimeType()));
    }

    /**
     * A batch manifest row as read, in Merritt's batch columns less size and modification date (none in these cases).
     */
    static String batchRow(String url, String alg, String digest, String name, String ark, String local, String creator,
            String title, String date) {
        return String.join(" | ", url, alg, digest, name, ark, local, creator, title, date);
    }

    static String batchRow(CheckmManifest.Row r) {
        return batchRow(r.fileUrl(), n(r.hashAlgorithm()), n(r.hashValue()), n(r.fileName()), n(r.primaryIdentifier()),
                String.join(";", r.localIdentifiers()), n(r.creator()), n(r.title()), n(r.date()));
    }

    private static String n(String s) {
        return s == null ? "" : s;
    }
}
