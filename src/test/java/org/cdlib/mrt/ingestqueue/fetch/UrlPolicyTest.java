package org.cdlib.mrt.ingestqueue.fetch;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UrlPolicyTest {
    @TempDir
    Path home;

    @Test
    void httpAndHttpsAreFetchedWithManifestBlanksEncoded() throws FetchException {
        UrlPolicy p = new UrlPolicy(home, false);
        assertEquals("https://example.org/a.txt", p.check("https://example.org/a.txt").toString());
        assertEquals("http://example.org/my%20file%7Cx.txt", p.check("http://example.org/my file|x.txt").toString());
    }

    @Test
    void otherSchemesAndBrokenUrlsAreRefusedByName() {
        UrlPolicy p = new UrlPolicy(home, true);
        for (String u : new String[] {
            "ftp://example.org/a", "jar:file:/x!/y", "a.txt", "http:///nohost", "http://ex ample.org:x/"
        }) {
            FetchException e = assertThrows(FetchException.class, () -> p.check(u), u);
            assertTrue(e.getMessage().contains(u.replace(" ", "%20")) || e.getMessage().contains(u), e.getMessage());
        }
    }

    @Test
    void fileUrlsOnlyUnderUploadsUnlessAllowed(@TempDir Path outside) throws Exception {
        Path inside = home.resolve("uploads/u1/a.txt");
        Files.createDirectories(inside.getParent());
        Files.writeString(inside, "a");
        UrlPolicy strict = new UrlPolicy(home, false);
        assertEquals(inside.toUri(), strict.check(inside.toUri().toString()));

        Path other = outside.resolve("b.txt");
        Files.writeString(other, "b");
        FetchException e = assertThrows(FetchException.class, () -> strict.check(other.toUri().toString()));
        assertTrue(e.getMessage().contains("ingest.download.allow-file-urls"), e.getMessage());
        assertThrows(FetchException.class, () -> strict.check(home.resolve("uploads").toUri().toString()));
        assertThrows(FetchException.class, () -> strict.check(home.toUri() + "uploads/u1/../../secret"));

        Path link = home.resolve("uploads/u1/link.txt");
        Files.createSymbolicLink(link, other);
        e = assertThrows(FetchException.class, () -> strict.check(link.toUri().toString()));
        assertTrue(e.getMessage().contains("symbolic link"), e.getMessage());

        assertEquals(other.toUri(), new UrlPolicy(home, true).check(other.toUri().toString()));
    }

    @Test
    void aUrlNamingAUserOrPasswordIsRefusedWithoutRepeatingThem() {
        UrlPolicy p = new UrlPolicy(home, true);
        for (String u : new String[] {
            "https://alice:s3cr3t@example.org/a.txt",
            "http://s3cr3t@example.org/a",
            "ftp://alice:s3cr3t@example.org/a",
            "http://alice:s3cr3t@example.org:x/a",
            "file://alice:s3cr3t@host/tmp/a"
        }) {
            FetchException e = assertThrows(FetchException.class, () -> p.check(u), u);
            assertFalse(e.getMessage().contains("s3cr3t"), e.getMessage());
            assertTrue(
                    e.getMessage().contains("***@example.org") || e.getMessage().contains("***@host"), e.getMessage());
        }
        FetchException e = assertThrows(FetchException.class, () -> p.check("https://alice:s3cr3t@example.org/a.txt"));
        assertEquals(
                "https://***@example.org/a.txt: the URL names a user or password before its host; credentials are not "
                        + "accepted in URLs (the queue would keep them and name them in its logs and reports)",
                e.getMessage());
    }
}
