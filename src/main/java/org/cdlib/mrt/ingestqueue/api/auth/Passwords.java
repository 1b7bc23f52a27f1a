package org.cdlib.mrt.ingestqueue.api.auth;

import java.io.Console;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * Password hashes for {@code ingest.api.users}: PBKDF2-HMAC-SHA256 (in the JDK), written
 * {@code pbkdf2-sha256$<iterations>$<salt, base64>$<hash, base64>}. Make one with
 * {@code java -jar ingest-queue.jar hash-password} (reads the password from the console or stdin).
 */
public final class Passwords {
    public static final String PREFIX = "pbkdf2-sha256$";
    static final int ITERATIONS = 210_000;
    private static final SecureRandom RANDOM = new SecureRandom();

    private Passwords() {
    }

    public static boolean isHash(String stored) {
        return stored != null && stored.startsWith(PREFIX);
    }

    public static String hash(String password) {
        byte[] salt = new byte[16];
        RANDOM.nextBytes(salt);
        return PREFIX + ITERATIONS + "$" + Base64.getEncoder().encodeToString(salt) + "$"
                + Base64.getEncoder().encodeToString(pbkdf2(password, salt, ITERATIONS, 32));
    }

    /** Whether {@code password} matches {@code stored} (a hash, checked in constant time). */
    public static boolean matches(String stored, String password) {
        String[] p = stored.substring(PREFIX.length()).split("\\$");
        if (p.length != 3) {
            return false;
        }
        try {
            int iterations = Integer.parseInt(p[0]);
            byte[] salt = Base64.getDecoder().decode(p[1]);
            byte[] expected = Base64.getDecoder().decode(p[2]);
            return MessageDigest.isEqual(expected, pbkdf2(password, salt, iterations, expected.length));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** Refuses a malformed hash at start, naming the user. */
    static void check(String user, String stored) {
        String[] p = stored.substring(PREFIX.length()).split("\\$");
        try {
            if (p.length != 3 || Integer.parseInt(p[0]) < 10_000 || Base64.getDecoder().decode(p[1]).length < 8
                    || Base64.getDecoder().decode(p[2]).length < 16) {
                throw new IllegalArgumentException();
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("ingest.api.users: the password hash of '" + user + "' is not "
                    + PREFIX
                    + "<iterations of at least 10000>$<salt>$<hash> (make one with: java -jar ingest-queue.jar "
                    + "hash-password)");
        }
    }

    private static byte[] pbkdf2(String password, byte[] salt, int iterations, int bytes) {
        try {
            PBEKeySpec spec = new PBEKeySpec(password.toCharArray(), salt, iterations, bytes * 8);
            return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("PBKDF2WithHmacSHA256 is not available: " + e.getMessage(), e);
        }
    }

    /** {@code hash-password}: prints the hash of the password read from the console (or stdin). */
    public static int main() throws IOException {
        String password;
        Console console = System.console();
        if (console != null) {
            char[] a = console.readPassword("password: ");
            char[] b = console.readPassword("again: ");
            if (a == null || b == null || !Arrays.equals(a, b)) {
                System.err.println("the passwords differ");
                return 1;
            }
            password = new String(a);
        } else {
            password = new String(System.in.readAllBytes(), StandardCharsets.UTF_8).strip();
        }
        if (password.isEmpty()) {
            System.err.println("no password given");
            return 1;
        }
        System.out.println(hash(password));
        return 0;
    }
}
