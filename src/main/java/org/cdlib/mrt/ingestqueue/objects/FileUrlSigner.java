package org.cdlib.mrt.ingestqueue.objects;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs the URLs of a job's working files ({@code .../files/<bid>/<jid>/<path>}, what Merritt
 * storage fetches) with an HMAC-SHA256 and an expiry: {@code ?expires=<epoch seconds>&signature=...}.
 * The key is {@code ingest.files.signing-key} or, without it, 32 random bytes generated once
 * into {@code <ingest.home>/.secrets/files-signing.key} (0600), which hosts sharing the
 * directory share. The storage manifest signs the URLs it names ({@link #signIfServed}); the
 * API checks them ({@link #verify}).
 */
public final class FileUrlSigner {
    static final String KEY_FILE = "files-signing.key";
    private static final Pattern FILE_URL = Pattern.compile("^(https?://[^?#]*?/files/)(bid\\d{10})/(jid\\d{10})/([^?#]+)$");
    /** The signer of each ingest home, so that the storage manifest of a working directory finds its own. */
    private static final Map<Path, FileUrlSigner> BY_HOME = new ConcurrentHashMap<>();

    private final byte[] key;
    private final Duration ttl;
    private final Clock clock;

    public FileUrlSigner(byte[] key, Duration ttl, Clock clock) {
        if (key.length < 16) {
            throw new IllegalArgumentException("ingest.files.signing-key must be at least 16 bytes");
        }
        this.key = key.clone();
        this.ttl = ttl;
        this.clock = clock;
    }

    /** The key configured, else the one kept under {@code <ingest.home>/.secrets/} (made on first use). */
    public static FileUrlSigner forHome(Path ingestHome, String configuredKey, Duration ttl) throws IOException {
        byte[] key = Secrets.signingKey(ingestHome, configuredKey, KEY_FILE);
        return new FileUrlSigner(key, ttl, Clock.systemUTC());
    }

    /** Makes this the signer of the working directories under {@code ingestHome}. */
    public FileUrlSigner register(Path ingestHome) {
        BY_HOME.put(ingestHome.toAbsolutePath().normalize(), this);
        return this;
    }

    public static void unregister(Path ingestHome, FileUrlSigner signer) {
        BY_HOME.remove(ingestHome.toAbsolutePath().normalize(), signer);
    }

    /**
     * {@code url} signed when it is a working file URL ({@code .../files/<bid>/<jid>/...}) and a
     * signer is registered for the ingest home holding {@code workingDir}; else as it is.
     */
    public static String signIfServed(Path workingDir, String url) {
        Path wd = workingDir.toAbsolutePath().normalize();
        for (Map.Entry<Path, FileUrlSigner> e : BY_HOME.entrySet()) {
            if (wd.startsWith(e.getKey())) {
                return e.getValue().sign(url);
            }
        }
        return url;
    }

    /** {@code url} with {@code expires} and {@code signature}, when it is a working file URL. */
    public String sign(String url) {
        Matcher m = FILE_URL.matcher(url);
        if (!m.matches()) {
            return url;
        }
        long expires = Instant.now(clock).plus(ttl).getEpochSecond();
        String rest = URLDecoder.decode(m.group(4).replace("+", "%2B"), StandardCharsets.UTF_8);
        return url + "?expires=" + expires + "&signature=" + mac(m.group(2), m.group(3), rest, expires);
    }

    /**
     * Null when {@code signature} signs this file until {@code expires} (not passed), else why not.
     * {@code path} is the file's path in the working directory, decoded.
     */
    public String verify(String bid, String jid, String path, String expires, String signature) {
        if (expires == null || signature == null) {
            return "this file needs a signed URL (expires and signature, as the storage manifest gives) or the storage user's credentials";
        }
        long until;
        try {
            until = Long.parseLong(expires);
        } catch (NumberFormatException e) {
            return "expires must be a number of seconds since 1970, got '" + expires + "'";
        }
        byte[] expected = mac(bid, jid, path, until).getBytes(StandardCharsets.US_ASCII);
        if (!MessageDigest.isEqual(expected, signature.getBytes(StandardCharsets.US_ASCII))) {
            return "the signature does not match this file and expiry";
        }
        if (Instant.now(clock).getEpochSecond() > until) {
            return "the signed URL expired at " + Instant.ofEpochSecond(until) + " (ingest.files.url-ttl)";
        }
        return null;
    }

    private String mac(String bid, String jid, String path, long expires) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            byte[] sig = mac.doFinal(("GET\n" + bid + "/" + jid + "/" + path + "\n" + expires).getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(sig);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available: " + e.getMessage(), e);
        }
    }
}
