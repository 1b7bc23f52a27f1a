package org.cdlib.mrt.ingestqueue.objects;

import java.io.IOException;
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
 * <p>
 * A URL signed for a storage add also names the lease it was made under ({@code lease=<session
 * id, hex>}, covered by the signature): the files are served only while that session still holds
 * the job's lock. A host paused between its last fence and the add's bytes leaving it (SIGSTOP, a
 * long GC) may have its add reach storage after another host took the job over and stored it;
 * storage then fetches this add's files, which any host refuses, and no second version is made.
 */
public final class FileUrlSigner {
    static final String KEY_FILE = "files-signing.key";
    private static final Pattern FILE_URL =
            Pattern.compile("^(https?://[^?#]*?/files/)(bid\\d{10})/(jid\\d{10})/([^?#]+)$");
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
        return signIfServed(workingDir, url, 0);
    }

    /**
     * As {@link #signIfServed(Path, String)}, served only while session {@code lease} holds the job's lock (0: no
     * lease).
     */
    public static String signIfServed(Path workingDir, String url, long lease) {
        Path wd = workingDir.toAbsolutePath().normalize();
        for (Map.Entry<Path, FileUrlSigner> e : BY_HOME.entrySet()) {
            if (wd.startsWith(e.getKey())) {
                return e.getValue().sign(url, lease);
            }
        }
        return url;
    }

    /** {@code url} with {@code expires} and {@code signature}, when it is a working file URL. */
    public String sign(String url) {
        return sign(url, 0);
    }

    /** As {@link #sign(String)}, with {@code lease=<hex>} first when {@code lease} is not 0. */
    public String sign(String url, long lease) {
        Matcher m = FILE_URL.matcher(url);
        if (!m.matches()) {
            return url;
        }
        long expires = Instant.now(clock).plus(ttl).getEpochSecond();
        String rest = UrlPaths.decode(m.group(4)); // as the server decodes it (InputChecks.filePath)
        String leased = lease == 0 ? null : Long.toHexString(lease);
        return url + (leased == null ? "?" : "?lease=" + leased + "&") + "expires=" + expires + "&signature="
                + mac(m.group(2), m.group(3), rest, expires, leased);
    }

    /**
     * The session a URL's {@code lease} names (hex, as {@link #sign(String, long)} writes it); 0 for none or a
     * malformed one.
     */
    public static long lease(String param) {
        if (param == null || param.isEmpty() || param.length() > 16) {
            return 0;
        }
        try {
            return Long.parseUnsignedLong(param, 16);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /**
     * Null when {@code signature} signs this file until {@code expires} (not passed), else why not.
     * {@code path} is the file's path in the working directory, decoded.
     */
    public String verify(String bid, String jid, String path, String expires, String signature) {
        return verify(bid, jid, path, expires, signature, null);
    }

    /**
     * As {@link #verify(String, String, String, String, String)}, for a URL that names a {@code lease} (null: none).
     */
    public String verify(String bid, String jid, String path, String expires, String signature, String lease) {
        if (expires == null || signature == null) {
            return "this file needs a signed URL (expires and signature, as the storage manifest gives) or the "
                    + "storage user's credentials";
        }
        long until;
        try {
            until = Long.parseLong(expires);
        } catch (NumberFormatException e) {
            return "expires must be a number of seconds since 1970, got '" + expires + "'";
        }
        if (lease != null && lease(lease) == 0) {
            return "lease must be the hexadecimal session id the storage manifest gives, got '" + lease + "'";
        }
        byte[] expected = mac(bid, jid, path, until, lease).getBytes(StandardCharsets.US_ASCII);
        if (!MessageDigest.isEqual(expected, signature.getBytes(StandardCharsets.US_ASCII))) {
            return "the signature does not match this file and expiry";
        }
        if (Instant.now(clock).getEpochSecond() > until) {
            return "the signed URL expired at " + Instant.ofEpochSecond(until) + " (ingest.files.url-ttl)";
        }
        return null;
    }

    private String mac(String bid, String jid, String path, long expires, String lease) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            String signed = "GET\n" + bid + "/" + jid + "/" + path + "\n" + expires
                    + (lease == null ? "" : "\n" + lease);
            byte[] sig = mac.doFinal(signed.getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(sig);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available: " + e.getMessage(), e);
        }
    }
}
