package org.cdlib.mrt.ingestqueue.objects;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The depositor's status page link: {@code <base>/status.html#<bid>.<token>}, the token an
 * HMAC-SHA256 of the batch id. The link opens that one batch without a login and nothing else;
 * it cannot be guessed from the batch id. The key is {@code ingest.status.signing-key} or 32
 * random bytes made once under {@code <ingest.home>/.secrets/} (hosts sharing the directory share
 * it), as the working files' signing key is. The token sits after {@code #}, so it never reaches
 * a server log or a Referer; the page sends it to {@code /api/status/<bid>} itself.
 */
public final class StatusLinks {
    static final String KEY_FILE = "status-link.key";
    private final byte[] key;
    private final String base;

    StatusLinks(byte[] key, String base) {
        if (key.length < 16) {
            throw new IllegalArgumentException("ingest.status.signing-key must be at least 16 bytes");
        }
        this.key = key.clone();
        this.base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
    }

    /** The configured key, else the one kept under {@code <ingest.home>/.secrets/} (made on first use). */
    public static StatusLinks forHome(Path ingestHome, String configuredKey, String baseUrl) throws IOException {
        return new StatusLinks(Secrets.signingKey(ingestHome, configuredKey, KEY_FILE), baseUrl);
    }

    /** The batch's token: what its link carries after the batch id. */
    public String token(String bid) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            byte[] h = mac.doFinal(("status:" + bid).getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(h);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256: " + e.getMessage(), e);
        }
    }

    /** Whether {@code token} is the batch's (compared in constant time). */
    public boolean valid(String bid, String token) {
        return token != null && MessageDigest.isEqual(token(bid).getBytes(StandardCharsets.UTF_8),
                token.getBytes(StandardCharsets.UTF_8));
    }

    /** The batch's status page, for the "queued" mail. */
    public String link(String bid) {
        return base + "/status.html#" + bid + "." + token(bid);
    }
}
