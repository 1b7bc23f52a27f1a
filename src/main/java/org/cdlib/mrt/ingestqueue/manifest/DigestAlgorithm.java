package org.cdlib.mrt.ingestqueue.manifest;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.zip.Adler32;
import java.util.zip.CRC32;
import java.util.zip.Checksum;

/**
 * The digest algorithms checkm manifests may name (CONTRACTS §1). Names match
 * case-insensitively with or without the dash ({@code SHA256}, {@code sha-256}).
 */
public enum DigestAlgorithm {
    ADLER32("adler-32", null), CRC32("crc-32", null), MD2("md2", "MD2"), MD5("md5", "MD5"),
    SHA1("sha-1", "SHA-1"), SHA256("sha-256", "SHA-256"), SHA384("sha-384", "SHA-384"), SHA512("sha-512", "SHA-512");

    private final String checkmName;
    private final String jcaName;

    DigestAlgorithm(String checkmName, String jcaName) {
        this.checkmName = checkmName;
        this.jcaName = jcaName;
    }

    /** The name written in manifests, e.g. {@code sha-256}. */
    public String checkmName() {
        return checkmName;
    }

    public static DigestAlgorithm fromName(String name) {
        String n = name.strip().toLowerCase(Locale.ROOT).replace("-", "").replace("_", "");
        for (DigestAlgorithm a : values()) {
            if (a.checkmName.replace("-", "").equals(n)) {
                return a;
            }
        }
        throw new IllegalArgumentException("unknown digest algorithm '" + name
                + "' (accepted: adler-32, crc-32, md2, md5, sha-1, sha-256, sha-384, sha-512)");
    }

    /**
     * Refuses a value that cannot be a digest of this algorithm, before anything is downloaded:
     * hex of exactly the digest's length (md2, md5: 32; sha-1: 40; sha-256: 64; sha-384: 96;
     * sha-512: 128), or for the 32-bit checksums (adler-32, crc-32) 1 to 8 hex digits (leading
     * zeros may be left out). Returns the problem, or null when the value has the right form.
     */
    public String formProblem(String value) {
        String v = value == null ? "" : value.strip();
        if (v.isEmpty()) {
            return "no " + checkmName + " value";
        }
        if (!v.matches("[0-9a-fA-F]+")) {
            return checkmName + " value '" + abbreviate(v) + "' is not hexadecimal";
        }
        int expected = hexLength();
        if (jcaName == null ? v.length() > 8 : v.length() != expected) {
            return checkmName + " value '" + abbreviate(v) + "' has " + v.length() + " hex digits; a " + checkmName
                    + " has " + (jcaName == null ? "at most 8" : String.valueOf(expected));
        }
        return null;
    }

    /** The digest's length in hex digits (8 for the checksums). */
    public int hexLength() {
        return switch (this) {
            case ADLER32, CRC32 -> 8;
            case MD2, MD5 -> 32;
            case SHA1 -> 40;
            case SHA256 -> 64;
            case SHA384 -> 96;
            case SHA512 -> 128;
        };
    }

    private static String abbreviate(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "..." : s;
    }

    public Digester newDigester() {
        return new Digester(this);
    }

    /** True when the two hex values name the same digest (case and, for checksums, leading zeros ignored). */
    public boolean matches(String expected, String actual) {
        if (expected == null || actual == null) {
            return false;
        }
        String e = expected.strip().toLowerCase(Locale.ROOT);
        String a = actual.strip().toLowerCase(Locale.ROOT);
        if (jcaName == null) {
            try {
                return Long.parseLong(e, 16) == Long.parseLong(a, 16);
            } catch (NumberFormatException ex) {
                return false;
            }
        }
        return e.equals(a);
    }

    /** Streams bytes through the algorithm and gives the lowercase hex digest. */
    public static final class Digester {
        private final DigestAlgorithm algorithm;
        private final MessageDigest digest;
        private final Checksum checksum;

        Digester(DigestAlgorithm algorithm) {
            this.algorithm = algorithm;
            if (algorithm.jcaName == null) {
                this.digest = null;
                this.checksum = algorithm == ADLER32 ? new Adler32() : new CRC32();
            } else {
                try {
                    this.digest = MessageDigest.getInstance(algorithm.jcaName);
                } catch (NoSuchAlgorithmException e) {
                    throw new IllegalStateException(algorithm.jcaName + " is missing from this JVM", e);
                }
                this.checksum = null;
            }
        }

        public void update(byte[] buf, int off, int len) {
            if (digest != null) {
                digest.update(buf, off, len);
            } else {
                checksum.update(buf, off, len);
            }
        }

        public String hex() {
            if (digest != null) {
                return HexFormat.of().formatHex(digest.digest());
            }
            return String.format("%08x", checksum.getValue());
        }

        public DigestAlgorithm algorithm() {
            return algorithm;
        }
    }
}
