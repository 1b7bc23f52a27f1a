package org.cdlib.mrt.ingestqueue.runtime;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The chaos run's objects, drawn from its seed: sizes from 1 byte to a few hundred KB (spread
 * evenly on a log scale, so the disk reservation counters move by very different amounts), one
 * or two local ids each (with a blank and a slash, so every inventory path is encoded), and the
 * single-file batch manifest that names them with their size and MD5.
 */
final class ChaosObjects {
    static final int MAX_BYTES = 300_000;

    /** One object: its file is {@code /data/f<index>.bin} on the recording server. */
    record ChaosObject(int index, String title, List<String> localIds, byte[] content, String md5) {
        String fileName() {
            return "f" + index + ".bin";
        }
    }

    private ChaosObjects() {
    }

    static List<ChaosObject> draw(long seed, int n) {
        SplittableRandom r = new SplittableRandom(seed);
        List<ChaosObject> objects = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int size = (int) Math.max(1, Math.round(Math.exp(r.nextDouble() * Math.log(MAX_BYTES))));
            byte[] content = new byte[size];
            SplittableRandom bytes = r.split();
            for (int b = 0; b < size; b++) {
                content[b] = (byte) bytes.nextInt(256);
            }
            List<String> ids = r.nextInt(5) == 0 ? List.of("loc " + i + "/a", "alt-" + i) : List.of("loc " + i + "/a");
            objects.add(new ChaosObject(i, "Object " + i, ids, content, md5(content)));
        }
        return objects;
    }

    static String manifest(List<ChaosObject> objects, String base) {
        StringBuilder m = new StringBuilder("#%checkm_0.7\n"
                + "#%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-single-file-batch-manifest\n"
                + "#%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileName |"
                + " mrt:localIdentifier | mrt:title\n");
        for (ChaosObject o : objects) { // the index names the object's file: a reserve batch's objects go on counting
            m.append(base).append("/data/").append(o.fileName()).append(" | md5 | ").append(o.md5()).append(" | ")
                    .append(o.content().length).append(" | ").append(o.fileName()).append(" | ")
                    .append(String.join(";", o.localIds())).append(" | ").append(o.title()).append('\n');
        }
        return m.append("#%eof\n").toString();
    }

    static long bytes(List<ChaosObject> objects) {
        return objects.stream().mapToLong(o -> o.content().length).sum();
    }

    private static String md5(byte[] content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(content));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
