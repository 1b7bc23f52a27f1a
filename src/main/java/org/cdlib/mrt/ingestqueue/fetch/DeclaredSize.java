package org.cdlib.mrt.ingestqueue.fetch;

import java.util.OptionalLong;

/**
 * Reads, from a container's first and last bytes alone, the size it says it unpacks to: a
 * zip's central directory or a gzip's trailer. It lets the estimate count a container's
 * unpacked size from two Range requests, without downloading it; since the figure can lie, it
 * only feeds the estimate, and unpacking counts the bytes it really writes.
 */
final class DeclaredSize {
    private DeclaredSize() {
    }

    /** See {@link Container#declaredSize(byte[], byte[], long)}. */
    static OptionalLong of(byte[] head, byte[] tail, long size) {
        boolean zip = head.length >= 4 && head[0] == 'P' && head[1] == 'K';
        if (zip && tail.length >= 22) {
            // zip: the end of central directory record, then the central directory itself when it is in the tail
            for (int i = tail.length - 22; i >= 0 && i >= tail.length - 22 - 65535; i--) {
                if (le32(tail, i) == 0x06054b50L) {
                    long cdSize = le32(tail, i + 12);
                    long cdOffset = le32(tail, i + 16);
                    long cdStartInTail = tail.length - (size - cdOffset);
                    if (cdOffset == 0xffffffffL || cdStartInTail < 0 || cdStartInTail + cdSize > i) {
                        return OptionalLong.empty(); // zip64 or a directory beyond the tail
                    }
                    long total = 0;
                    int p = (int) cdStartInTail;
                    while (p + 46 <= i && le32(tail, p) == 0x02014b50L) {
                        long uncompressed = le32(tail, p + 24);
                        if (uncompressed == 0xffffffffL) {
                            return OptionalLong.empty();
                        }
                        total += uncompressed;
                        p += 46 + le16(tail, p + 28) + le16(tail, p + 30) + le16(tail, p + 32);
                    }
                    return OptionalLong.of(total);
                }
            }
        }
        boolean gzip = head.length >= 2 && (head[0] & 0xff) == 0x1f && (head[1] & 0xff) == 0x8b;
        if (gzip && tail.length >= 4 && size >= 18) {
            long isize = le32(tail, tail.length - 4);
            if (isize >= size) {
                return OptionalLong.of(isize);
            }
        }
        return OptionalLong.empty();
    }

    private static long le32(byte[] b, int i) {
        return (b[i] & 0xffL) | (b[i + 1] & 0xffL) << 8 | (b[i + 2] & 0xffL) << 16 | (b[i + 3] & 0xffL) << 24;
    }

    private static int le16(byte[] b, int i) {
        return (b[i] & 0xff) | (b[i + 1] & 0xff) << 8;
    }
}
