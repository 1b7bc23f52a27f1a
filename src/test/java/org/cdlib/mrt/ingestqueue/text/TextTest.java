package org.cdlib.mrt.ingestqueue.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

/** What a field may hold, and how what it holds anyway is written on a log line, in XML, in a text file. */
class TextTest {
    /** Every kind of character a field may not hold, among ordinary text and a surrogate pair (𝄞) that is fine. */
    static final String ODD =
            "a\u0000b\u0001c\tc\nd\re\u000Bf\u007Fg\u0085h\u009Fi\u2028j\u2029k\uD800l\uDC00m\uFFFEn\uFFFFo 𝄞 <&> \"'";

    @Test
    void aFieldIsRefusedForEachControlLoneSurrogateAndSeparatorNamingWhatAndWhere() {
        assertNull(Text.problem("Ann Lee, 𝄞 <&> ünï 中文 \uFFFD", false));
        assertNull(Text.problem(null, false));
        assertEquals("a NUL character (U+0000) at character 2", Text.problem("a\u0000", false));
        assertEquals("a line break (U+000A) at character 4", Text.problem("sam\nuser=admin", false));
        assertEquals("a line break (a carriage return, U+000D) at character 1", Text.problem("\r", false));
        assertEquals("a tab (U+0009) at character 1", Text.problem("\t", false));
        assertEquals("a control character (U+007F) at character 1", Text.problem("\u007F", false));
        assertEquals("a control character (U+0085) at character 1", Text.problem("\u0085", false));
        assertEquals("a line or paragraph separator (U+2028) at character 1", Text.problem("\u2028", false));
        assertEquals(
                "half of a surrogate pair alone (U+D800, not a character) at character 2",
                Text.problem("x\uD800", false));
        assertEquals(
                "half of a surrogate pair alone (U+DC00, not a character) at character 1",
                Text.problem("\uDC00\uD800", false));
        assertEquals(
                "half of a surrogate pair alone (U+D800, not a character) at character 1",
                Text.problem("\uD800x", false));
        assertEquals("a non-character (U+FFFF) at character 1", Text.problem("\uFFFF", false));
        // free text that spans lines: tabs and line breaks, nothing else
        assertNull(Text.problem("line one\r\n\tline two\n", true));
        assertEquals("a NUL character (U+0000) at character 3", Text.problem("a\n\u0000", true));
        assertEquals("a line or paragraph separator (U+2029) at character 1", Text.problem("\u2029", true));
    }

    @Test
    void oneLineEscapesEverythingThatCouldEndOrHideALine() {
        String line = Text.oneLine(ODD);
        assertNull(Text.problem(line, false), line);
        assertEquals(
                "a\\u0000b\\u0001c\\tc\\n"
                    + "d\\r"
                    + "e\\u000Bf\\u007Fg\\u0085h\\u009Fi\\u2028j\\u2029k\\uD800l\\uDC00m\\uFFFEn\\uFFFFo 𝄞 <&> \"'",
                line);
        String plain = "job jid0000000001: pending -> failed: ünï 中文 𝄞";
        assertSame(plain, Text.oneLine(plain), "text with nothing to escape is not copied");
        assertEquals("\"x\\\" user=admin \\\\ \\n\"", Text.quoted("x\" user=admin \\ \n"));
    }

    @Test
    void xmlIsAlwaysWellFormedXml10AndKeepsWhatXmlCanHold() throws Exception {
        String doc = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<t>" + Text.xml(ODD) + "</t>";
        Document d = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(doc.getBytes(StandardCharsets.UTF_8)));
        assertEquals(
                "a\uFFFDb\uFFFDc\tc\n"
                        + "d\r"
                        + "e\uFFFDf\u007Fg\u0085h\u009Fi\u2028j\u2029k\uFFFDl\uFFFDm\uFFFDn\uFFFDo 𝄞 <&> \"'",
                d.getDocumentElement().getTextContent(),
                "what XML 1.0 cannot hold is U+FFFD; a carriage return survives");
    }

    @Test
    void blankedKeepsAValueOnItsLineOfAPlainTextFile() {
        String v = Text.blanked(ODD);
        assertNull(Text.problem(v, false), v);
        assertFalse(v.contains("\n") || v.contains("\r"));
        assertEquals("a b c c d e f g h i j k\uFFFDl\uFFFDm n o 𝄞 <&> \"'", v);
    }

    @Test
    void aUrlsUserAndPasswordAreFoundAndHiddenWhereverTheyAreWritten() {
        assertTrue(Urls.hasUserInfo("https://alice:s3cr3t@example.org/a.txt"));
        assertTrue(Urls.hasUserInfo("http://alice@example.org/"));
        assertTrue(Urls.hasUserInfo("ftp://a:p@w@example.org"));
        assertFalse(Urls.hasUserInfo("https://example.org/a@b.txt"));
        assertFalse(Urls.hasUserInfo("https://example.org/?mail=a@b.org"));
        assertFalse(Urls.hasUserInfo("mailto:a@b.org"));
        assertEquals("https://***@example.org/a.txt", Urls.redacted("https://alice:s3cr3t@example.org/a.txt"));
        assertEquals(
                "https://***@example.org/x", Urls.redacted("https://a:p@w@example.org/x"), "a password holding '@'");
        assertEquals("https://example.org/a@b.txt", Urls.redacted("https://example.org/a@b.txt"));
        assertEquals("fetching https://***@h/a and http://***@g:81/b?u=x@y failed; mail a@b.org",
                Urls.redactedIn("fetching https://u:pw@h/a and http://v:q@g:81/b?u=x@y failed; mail a@b.org"));
        assertEquals("'HTTP://***@h'", Urls.redactedIn("'HTTP://u:pw@h'"));
    }
}
