package org.cdlib.mrt.ingestqueue.fetch;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipArchiveOutputStream;
import org.apache.commons.compress.compressors.bzip2.BZip2CompressorOutputStream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContainerTest {
    @TempDir
    Path dir;

    Path target() throws IOException {
        return Files.createDirectories(dir.resolve("producer"));
    }

    static void file(TarArchiveOutputStream t, String name, String content) throws IOException {
        byte[] b = content.getBytes(StandardCharsets.UTF_8);
        TarArchiveEntry e = new TarArchiveEntry(name);
        e.setSize(b.length);
        t.putArchiveEntry(e);
        t.write(b);
        t.closeArchiveEntry();
    }

    @Test
    void aPlainTarAndATarBz2AreUnpackedWithTheirTopFolder() throws Exception {
        Path tar = dir.resolve("x.tar");
        try (TarArchiveOutputStream t = new TarArchiveOutputStream(Files.newOutputStream(tar))) {
            file(t, "obj/a.txt", "alpha");
        }
        assertEquals(1, Container.unpack(tar, "x.tar", target()));
        assertEquals("alpha", Files.readString(target().resolve("obj/a.txt")));

        Path bz = dir.resolve("y");
        try (TarArchiveOutputStream t =
                new TarArchiveOutputStream(new BZip2CompressorOutputStream(Files.newOutputStream(bz)))) {
            file(t, "b.txt", "bravo");
        }
        assertEquals(1, Container.unpack(bz, "y", target()));
        assertEquals("bravo", Files.readString(target().resolve("b.txt")));
    }

    @Test
    void hardLinksAndDuplicateNamesAreRefused() throws Exception {
        Path tar = dir.resolve("hard.tar");
        try (TarArchiveOutputStream t = new TarArchiveOutputStream(Files.newOutputStream(tar))) {
            file(t, "a.txt", "alpha");
            TarArchiveEntry link = new TarArchiveEntry("b.txt", TarConstants.LF_LINK);
            link.setLinkName("/etc/shadow");
            t.putArchiveEntry(link);
            t.closeArchiveEntry();
        }
        FetchException e = assertThrows(FetchException.class, () -> Container.unpack(tar, "hard.tar", target()));
        assertEquals("container hard.tar: entry 'b.txt' is a hard link", e.getMessage());

        Path dup = dir.resolve("dup.tar");
        try (TarArchiveOutputStream t = new TarArchiveOutputStream(Files.newOutputStream(dup))) {
            file(t, "c.txt", "one");
            file(t, "./c.txt", "two");
        }
        e = assertThrows(FetchException.class, () -> Container.unpack(dup, "dup.tar", target()));
        assertEquals("container dup.tar: entry './c.txt' appears twice", e.getMessage());
    }

    @Test
    void zipSymlinksAndAbsoluteEntriesAreRefused() throws Exception {
        Path zip = dir.resolve("link.zip");
        try (ZipArchiveOutputStream z = new ZipArchiveOutputStream(Files.newOutputStream(zip))) {
            ZipArchiveEntry e = new ZipArchiveEntry("link");
            e.setUnixMode(0120777); // symbolic link
            z.putArchiveEntry(e);
            z.write("/etc/passwd".getBytes(StandardCharsets.UTF_8));
            z.closeArchiveEntry();
        }
        FetchException e = assertThrows(FetchException.class, () -> Container.unpack(zip, "link.zip", target()));
        assertEquals("container link.zip: entry 'link' is a symbolic link", e.getMessage());

        Path abs = dir.resolve("abs.zip");
        try (ZipArchiveOutputStream z = new ZipArchiveOutputStream(Files.newOutputStream(abs))) {
            z.putArchiveEntry(new ZipArchiveEntry("/tmp/evil.txt"));
            z.write(1);
            z.closeArchiveEntry();
        }
        e = assertThrows(FetchException.class, () -> Container.unpack(abs, "abs.zip", target()));
        assertEquals("container abs.zip: entry '/tmp/evil.txt' is an absolute path", e.getMessage());
    }

    @Test
    void otherArchiveFormatsAreNamed() throws Exception {
        Path ar = dir.resolve("x.a");
        try (OutputStream o = Files.newOutputStream(ar)) {
            o.write("!<arch>\n".getBytes(StandardCharsets.US_ASCII));
        }
        FetchException e = assertThrows(FetchException.class, () -> Container.unpack(ar, "x.a", target()));
        assertEquals("container x.a: an archive of type 'ar'; only zip, tar and tar.gz are accepted", e.getMessage());
    }

    @Test
    void limitsOnEntriesAndBytesAreCountedWhileUnpackingAndNamed(@TempDir Path tmp) throws Exception {
        Path zip = tmp.resolve("many.zip");
        try (ZipOutputStream z = new ZipOutputStream(Files.newOutputStream(zip))) {
            for (int i = 0; i < 5; i++) {
                z.putNextEntry(new ZipEntry("f" + i + ".txt"));
                z.write(new byte[1000]);
                z.closeEntry();
            }
        }
        Path out = Files.createDirectories(tmp.resolve("out1"));
        FetchException e = Assertions.assertThrows(FetchException.class,
                () -> Container.unpack(zip, "many.zip", out, new Container.Limits(1_000_000, 3, 100)));
        Assertions.assertEquals(
                "container many.zip: more than 3 entries; the limit is 3 (ingest.container.max-entries)",
                e.getMessage());
        Path out2 = Files.createDirectories(tmp.resolve("out2"));
        e = Assertions.assertThrows(FetchException.class,
                () -> Container.unpack(zip, "many.zip", out2, new Container.Limits(2_500, 100, 100)));
        Assertions.assertEquals(
                "container many.zip: unpacks to more than 2500 bytes; the limit is 2500 bytes "
                        + "(ingest.container.max-bytes)",
                e.getMessage());
        Assertions.assertEquals(5, Container.unpack(zip, "many.zip",
                Files.createDirectories(tmp.resolve("out3")), new Container.Limits(5_000, 10, 100)));
        byte[] all = Files.readAllBytes(zip);
        Assertions.assertEquals(
                5_000L,
                Container.declaredSize(Arrays.copyOf(all, 8), all, all.length)
                        .getAsLong(),
                "the central directory's sizes");
    }

    @Test
    void aContainerOfNoFilesIsRefusedSayingSo() throws Exception {
        Path empty = dir.resolve("empty.zip");
        new ZipArchiveOutputStream(Files.newOutputStream(empty)).close();
        FetchException e = assertThrows(FetchException.class, () -> Container.unpack(empty, "empty.zip", target()));
        assertTrue(e.getMessage().startsWith("container empty.zip: the container holds no files"), e.getMessage());
        Path folders = dir.resolve("folders.tar");
        try (TarArchiveOutputStream t = new TarArchiveOutputStream(Files.newOutputStream(folders))) {
            t.putArchiveEntry(new TarArchiveEntry("obj/"));
            t.closeArchiveEntry();
        }
        e = assertThrows(FetchException.class, () -> Container.unpack(folders, "folders.tar", target()));
        assertTrue(e.getMessage().startsWith("container folders.tar: the container holds no files"), e.getMessage());
    }
}
