package org.cdlib.mrt.ingestqueue.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm;
import org.junit.jupiter.api.Test;

/**
 * The digests computed on their own thread are those of the chunks in the order handed over, however many, though
 * the caller reuses its buffer at once.
 */
class StreamDigestsTest {

    static String hex(DigestAlgorithm alg, byte[] bytes) {
        DigestAlgorithm.Digester d = alg.newDigester();
        d.update(bytes, 0, bytes.length);
        return d.hex();
    }

    @Test
    void manyChunksOfUnequalSizesGiveTheWholeBodysDigests() throws Exception {
        byte[] body = new byte[3 * 1024 * 1024 + 17];
        new Random(5).nextBytes(body);
        List<DigestAlgorithm> asked = List.of(DigestAlgorithm.SHA256, DigestAlgorithm.SHA512, DigestAlgorithm.SHA256);
        Random sizes = new Random(6);
        Map<DigestAlgorithm, String> got;
        try (StreamDigests d = new StreamDigests(asked)) {
            int chunks = 0;
            byte[] reused = new byte[70_000]; // one buffer, as a download's: overwritten once added
            for (int at = 0; at < body.length; chunks++) {
                int n = Math.min(body.length - at, sizes.nextInt(70_000)); // 0-byte chunks, and some past CHUNK
                System.arraycopy(body, at, reused, 1, Math.min(n, reused.length - 1));
                d.add(reused, 1, Math.min(n, reused.length - 1));
                at += Math.min(n, reused.length - 1);
                Arrays.fill(reused, (byte) 0x55);
            }
            assertTrue(chunks > 4 * StreamDigests.WAITING, "more chunks than may wait: the writer waited");
            assertTrue(d.made() <= StreamDigests.WAITING, "buffers reused, never more than may wait: " + d.made());
            got = d.finish();
        }
        assertEquals(Map.of(DigestAlgorithm.SHA256, hex(DigestAlgorithm.SHA256, body),
                DigestAlgorithm.SHA512, hex(DigestAlgorithm.SHA512, body)), got);
    }

    @Test
    void aSmallBodyCostsOneBuffer() throws Exception {
        try (StreamDigests d = new StreamDigests(List.of(DigestAlgorithm.SHA256))) {
            d.add(new byte[1024], 0, 1024);
            assertEquals(hex(DigestAlgorithm.SHA256, new byte[1024]), d.finish().get(DigestAlgorithm.SHA256));
            assertEquals(1, d.made());
        }
    }

    @Test
    void noDigestAskedNeedsNoThreadAndGivesNone() throws Exception {
        try (StreamDigests d = new StreamDigests(List.of())) {
            assertFalse(d.any());
            d.add(new byte[10], 0, 10);
            assertEquals(Map.of(), d.finish());
        }
    }

    @Test
    void anEmptyBodyHasTheEmptyDigest() throws Exception {
        try (StreamDigests d = new StreamDigests(List.of(DigestAlgorithm.MD5))) {
            assertEquals(hex(DigestAlgorithm.MD5, new byte[0]), d.finish().get(DigestAlgorithm.MD5));
        }
    }
}
