package org.cdlib.mrt.ingestqueue.api.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.cdlib.mrt.ingestqueue.objects.Secrets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may use the API: {@code ingest.api.users = name:password:role|role, ...} with roles
 * {@code admin}, {@code submitter}, {@code poster} (submits, naming the user it submits for:
 * Merritt's UI), {@code storage} (anyone listed may read). A password is a
 * PBKDF2 hash ({@link Passwords}); plain text is accepted with a warning, or refused when
 * {@code ingest.api.plain-passwords=refuse}. With no users configured, one {@code admin} with a
 * generated password is made, kept (mode 0600) in {@code <secrets>/admin-password} so that it
 * survives restarts, and printed once when it is generated: there is no default password.
 */
public final class ApiUsers {
    private static final Logger LOG = LoggerFactory.getLogger(ApiUsers.class);
    public static final Set<String> ROLES = Set.of("admin", "submitter", "poster", "storage");
    public static final String ADMIN_PASSWORD_FILE = "admin-password";
    /** What an unknown user's password is hashed against (a random password nobody knows). */
    private static final String STAND_IN = Passwords.hash(newPassword());

    public record User(String name, Set<String> roles) {
        public boolean has(String role) {
            return role == null || roles.contains(role);
        }
    }

    /** {@code password} is a {@link Passwords} hash, or the plain text (warned about). */
    private record Entry(String password, User user) {
        boolean matches(String given) {
            if (Passwords.isHash(password)) {
                return Passwords.matches(password, given);
            }
            return MessageDigest.isEqual(password.getBytes(StandardCharsets.UTF_8),
                    given.getBytes(StandardCharsets.UTF_8));
        }
    }

    private final Map<String, Entry> users = new HashMap<>();
    /**
     * Credentials checked against their hash lately, so that PBKDF2 runs once per client every
     * {@link #VERIFIED_FOR}, not per request: held by an HMAC under a key made for this process
     * (a memory dump holds no fast hash of a password to crack), each for {@link #VERIFIED_FOR}
     * from its check, at most 1,000.
     */
    private final Map<String, Verified> verified = Collections.synchronizedMap(new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Verified> eldest) {
            return size() > 1000;
        }
    });
    static final Duration VERIFIED_FOR = Duration.ofMinutes(15);
    private final byte[] cacheKey = new byte[32];
    /** How many PBKDF2 hashes this has computed (tests count them: a refused guess costs none). */
    private final AtomicLong hashes = new AtomicLong();

    private record Verified(User user, long until) {
    }

    private ApiUsers() {
        new SecureRandom().nextBytes(cacheKey);
    }

    /** Parses {@code spec}; without users, a generated admin whose password is not kept. */
    public static ApiUsers parse(String spec) {
        return parse(spec, null, false);
    }

    /**
     * @param secrets       where the generated admin password is kept (null: not kept)
     * @param refusePlain   refuse plain-text passwords instead of warning
     */
    public static ApiUsers parse(String spec, Path secrets, boolean refusePlain) {
        ApiUsers u = new ApiUsers();
        if (spec == null || spec.isBlank()) {
            u.add("admin", Passwords.hash(generatedPassword(secrets)), Set.of("admin", "submitter"));
            return u;
        }
        for (String entry : spec.split(",")) {
            String[] p = entry.strip().split(":", 3);
            if (p.length < 2 || p[0].isBlank() || p[1].isBlank()) {
                throw new IllegalArgumentException("ingest.api.users: '" + entry.strip().replaceAll(":.*", ":…")
                        + "' is not name:password[:role|role]");
            }
            String name = p[0].strip();
            Set<String> roles = p.length == 3 && !p[2].isBlank() ? Set.of(p[2].strip().split("\\|")) : Set.of();
            for (String r : roles) {
                if (!ROLES.contains(r)) {
                    throw new IllegalArgumentException("ingest.api.users: user '" + name + "' has an unknown role '" + r
                            + "' (roles: admin, submitter, poster, storage)");
                }
            }
            if (Passwords.isHash(p[1])) {
                Passwords.check(name, p[1]);
            } else if (refusePlain) {
                throw new IllegalArgumentException("ingest.api.users: the password of '" + name
                        + "' is plain text; store its hash "
                        + "(java -jar ingest-queue.jar hash-password) or set ingest.api.plain-passwords=warn");
            } else {
                LOG.warn("ingest.api.users: the password of '{}' is plain text; store its hash instead "
                        + "(java -jar ingest-queue.jar hash-password)", name);
            }
            u.add(name, p[1], roles);
        }
        return u;
    }

    /**
     * The generated admin password: read from {@code secrets/admin-password}, or made and kept there (0600).
     * Logged at INFO: it is what the README's first start does, and a WARN on every normal start would teach
     * operators to overlook WARNs.
     */
    private static String generatedPassword(Path secrets) {
        if (secrets != null) {
            Path file = secrets.resolve(ADMIN_PASSWORD_FILE);
            try {
                if (Files.exists(file)) {
                    String kept = Files.readString(file, StandardCharsets.UTF_8).strip();
                    if (!kept.isEmpty()) {
                        LOG.info(
                                "no ingest.api.users configured: user 'admin' (roles admin, submitter) has the "
                                + "password kept in {}; "
                                + "configure ingest.api.users for production", file.toAbsolutePath());
                        return kept;
                    }
                }
                String password = newPassword();
                Secrets.writePrivate(file, password + "\n");
                LOG.info(
                        "no ingest.api.users configured: generated user 'admin' with password '{}' (roles admin, "
                        + "submitter), "
                        + "kept in {}; configure ingest.api.users for production", password, file.toAbsolutePath());
                return password;
            } catch (FileAlreadyExistsException e) {
                return generatedPassword(secrets); // another host sharing the directory wrote it first
            } catch (IOException e) {
                throw new IllegalStateException("cannot keep the generated admin password in " + file + ": "
                        + e.getMessage(), e);
            }
        }
        String password = newPassword();
        LOG.info("no ingest.api.users configured: generated user 'admin' with password '{}' (roles admin, submitter); "
                + "configure ingest.api.users for production", password);
        return password;
    }

    private static String newPassword() {
        byte[] b = new byte[18];
        new SecureRandom().nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    private void add(String name, String password, Set<String> roles) {
        users.put(name, new Entry(password, new User(name, roles)));
    }

    /** A name and password as a client gave them. */
    record Credentials(String name, String password) {
    }

    /** The user an {@code Authorization: Basic} header names, if the password matches. */
    public Optional<User> authenticate(String header) {
        return basic(header).flatMap(c -> authenticate(c.name(), c.password()));
    }

    /** The credentials of an {@code Authorization: Basic} header, if it is one that can be read. */
    static Optional<Credentials> basic(String header) {
        if (header == null || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
            return Optional.empty();
        }
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(header.substring(6).strip()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        int colon = decoded.indexOf(':');
        return colon < 0 ? Optional.empty() : Optional.of(new Credentials(decoded.substring(0, colon),
                decoded.substring(colon + 1)));
    }

    /** The user {@code name} if {@code password} is theirs (hashing if need be: not on an event loop). */
    public Optional<User> authenticate(String name, String password) {
        Optional<User> known = verified(name, password);
        return known.isPresent() ? known : check(name, password);
    }

    /**
     * The listed user {@code name} (a session's: its roles as configured now; empty once the user is no longer listed).
     */
    Optional<User> named(String name) {
        Entry e = name == null ? null : users.get(name);
        return e == null ? Optional.empty() : Optional.of(e.user());
    }

    /** The user, if these credentials were checked before (a cheap look-up, no hashing). */
    Optional<User> verified(String name, String password) {
        Entry e = name == null ? null : users.get(name);
        if (e == null || password == null) {
            return Optional.empty();
        }
        String k = cacheKey(name, password, e);
        Verified v = verified.get(k);
        if (v == null || v.until() - System.nanoTime() < 0) {
            if (v != null) {
                verified.remove(k);
            }
            return Optional.empty();
        }
        return Optional.of(v.user());
    }

    /** Forgets every verified credential, as {@link #VERIFIED_FOR} does (tests). */
    void forgetVerified() {
        verified.clear();
    }

    long hashesComputed() {
        return hashes.get();
    }

    /**
     * Checks the password with exactly one PBKDF2 whoever is named: an unknown user, or one with a
     * plain-text password, is hashed against a stand-in, so that the time taken tells nothing.
     */
    Optional<User> check(String name, String password) {
        Entry e = name == null ? null : users.get(name);
        String given = password == null ? "" : password;
        boolean hashed = e != null && Passwords.isHash(e.password());
        hashes.incrementAndGet();
        boolean hashMatches = Passwords.matches(hashed ? e.password() : STAND_IN, given);
        boolean matches = e != null && password != null && (hashed ? hashMatches : e.matches(given));
        if (!matches) {
            return Optional.empty();
        }
        verified.put(cacheKey(name, password, e), new Verified(e.user(), System.nanoTime() + VERIFIED_FOR.toNanos()));
        return Optional.of(e.user());
    }

    /**
     * The cache's key of these credentials: an HMAC-SHA256 under this process's own key (the stored hash in it: a
     * changed password misses).
     */
    private String cacheKey(String name, String password, Entry e) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(cacheKey, "HmacSHA256"));
            byte[] h = mac.doFinal((name + "\u0000" + password + "\u0000" + e.password())
                    .getBytes(StandardCharsets.UTF_8));
            return Base64.getEncoder().encodeToString(h);
        } catch (GeneralSecurityException x) {
            throw new IllegalStateException("HmacSHA256: " + x.getMessage(), x);
        }
    }
}
