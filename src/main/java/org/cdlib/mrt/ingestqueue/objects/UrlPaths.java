package org.cdlib.mrt.ingestqueue.objects;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The one decoding of a URL's path (a working file's {@code /files/...} path, where it is signed,
 * checked and served alike): RFC 3986 percent-decoding of UTF-8. A {@code +} is a plus: only a
 * form's query turns {@code +} into a space ({@link java.net.URLDecoder} is that form decoding,
 * which served {@code a b} for {@code a+b}).
 */
public final class UrlPaths {
    private UrlPaths() {
    }

    /**
     * {@code raw} percent-decoded; a malformed escape or bytes that
     * are not UTF-8 are an {@link IllegalArgumentException} naming it.
     */
    public static String decode(String raw) {
        if (raw.indexOf('%') < 0) {
            return raw;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            int next = raw.indexOf('%', i);
            if (next != i) {
                // the text up to the next escape, whole (a character outside the BMP is two chars)
                int end = next < 0 ? raw.length() : next;
                bytes.writeBytes(raw.substring(i, end).getBytes(StandardCharsets.UTF_8));
                i = end - 1;
                continue;
            }
            int hi = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
            int lo = hi < 0 ? -1 : Character.digit(raw.charAt(i + 2), 16);
            if (lo < 0) {
                throw new IllegalArgumentException(
                        "the path has a malformed escape at '" + raw.substring(i, Math.min(raw.length(), i + 3))
                                + "' (% must be followed by two hexadecimal digits)");
            }
            bytes.write(hi * 16 + lo);
            i += 2;
        }
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("the path's escapes are not UTF-8");
        }
    }
}
