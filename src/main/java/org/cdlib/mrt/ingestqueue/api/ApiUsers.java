package org.cdlib.mrt.ingestqueue.api;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may use the API: {@code ingest.api.users = name:password:role|role, ...} with roles
 * {@code admin}, {@code submitter} (anyone listed may read). With no users configured, one
 * {@code admin} with a generated password is made and printed once in the log: there is no
 * default password.
 */
public final class ApiUsers {
    private static final Logger LOG = LoggerFactory.getLogger(ApiUsers.class);

    public record User(String name, Set<String> roles) {
        public boolean has(String role) {
            return role == null || roles.contains(role);
        }
    }

    private record Entry(byte[] password, User user) {
    }

    private final Map<String, Entry> users = new HashMap<>();

    public static ApiUsers parse(String spec) {
        ApiUsers u = new ApiUsers();
        if (spec == null || spec.isBlank()) {
            String password = Base64.getUrlEncoder().withoutPadding().encodeToString(new SecureRandom().generateSeed(18));
            u.add("admin", password, Set.of("admin", "submitter"));
            LOG.warn("no ingest.api.users configured: generated user 'admin' with password '{}' (roles admin, submitter); "
                    + "configure ingest.api.users for production", password);
            return u;
        }
        for (String entry : spec.split(",")) {
            String[] p = entry.strip().split(":", 3);
            if (p.length < 2 || p[0].isBlank() || p[1].isBlank()) {
                throw new IllegalArgumentException("ingest.api.users: '" + entry.strip().replaceAll(":.*", ":…")
                        + "' is not name:password[:role|role]");
            }
            Set<String> roles = p.length == 3 && !p[2].isBlank() ? Set.of(p[2].strip().split("\\|")) : Set.of();
            u.add(p[0].strip(), p[1], roles);
        }
        return u;
    }

    private void add(String name, String password, Set<String> roles) {
        users.put(name, new Entry(password.getBytes(StandardCharsets.UTF_8), new User(name, roles)));
    }

    /** The user an {@code Authorization: Basic} header names, if the password matches. */
    public Optional<User> authenticate(String header) {
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
        if (colon < 0) {
            return Optional.empty();
        }
        Entry e = users.get(decoded.substring(0, colon));
        byte[] given = decoded.substring(colon + 1).getBytes(StandardCharsets.UTF_8);
        if (e == null || !MessageDigest.isEqual(e.password(), given)) {
            return Optional.empty();
        }
        return Optional.of(e.user());
    }
}
