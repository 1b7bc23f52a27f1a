package org.cdlib.mrt.ingestqueue.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/** Zip files made in memory, as a depositor uploads them. */
public final class Zips {
    private Zips() {
    }

    /** A zip of text entries, given as name, text, name, text, ... */
    public static byte[] zip(String... nameAndText) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ZipOutputStream z = new ZipOutputStream(b)) {
            for (int i = 0; i < nameAndText.length; i += 2) {
                z.putNextEntry(new ZipEntry(nameAndText[i]));
                z.write(nameAndText[i + 1].getBytes(StandardCharsets.UTF_8));
                z.closeEntry();
            }
        }
        return b.toByteArray();
    }
}
