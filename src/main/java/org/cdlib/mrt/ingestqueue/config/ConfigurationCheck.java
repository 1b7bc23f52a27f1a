package org.cdlib.mrt.ingestqueue.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.cdlib.mrt.ingestqueue.config.Configuration.Setting;
import org.cdlib.mrt.ingestqueue.config.ConfigurationKeys.Key;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first thing a start does, before anything is created: every value set for a key of
 * {@link ConfigurationKeys} must be of the key's kind, or the start stops with one line naming the key, its
 * value, where it was set and what is accepted. A set {@code ingest.*} or {@code zookeeper.*} key that nobody
 * reads (a typo, most likely) is logged as a warning naming the nearest known key; the start goes on.
 */
public final class ConfigurationCheck {
    private static final Logger LOG = LoggerFactory.getLogger(ConfigurationCheck.class);

    /** The command line's own variables ({@code cli/ApiClient}): not configuration, never warned about. */
    private static final Set<String> COMMAND_LINE_VARIABLES = Set.of("INGEST_URL", "INGEST_USER");

    private ConfigurationCheck() {
    }

    /** The values' check, then the warnings, for a service whose route files read no key of their own. */
    public static void check(Configuration config) {
        values(config);
        warnUnknown(config, Set.of());
    }

    /** Throws a {@link StartupException} naming every value that is not of its key's kind. */
    public static void values(Configuration config) {
        List<String> refused = new ArrayList<>();
        for (Key key : ConfigurationKeys.all().values()) {
            config.setting(key.name()).ifPresent(s -> {
                try {
                    key.kind().read(key.name(), s.value(), s.origin());
                } catch (IllegalArgumentException e) {
                    refused.add(e.getMessage());
                }
            });
        }
        if (refused.size() == 1) {
            throw new StartupException(refused.get(0));
        }
        if (!refused.isEmpty()) {
            throw new StartupException(refused.size() + " configuration values refused: " + String.join("; ", refused));
        }
    }

    /**
     * A warning for each set key nobody reads: not in the catalogue and not a {@code {{placeholder}}} of the
     * route files the service loads ({@code routeKeys}: an operator's own route may read a key of its own).
     */
    public static void warnUnknown(Configuration config, Set<String> routeKeys) {
        for (Setting s : config.settings().values()) {
            unknown(s, routeKeys);
        }
    }

    /** A warning for a set key this service does not read, naming the key it most likely meant. */
    private static void unknown(Setting s, Set<String> routeKeys) {
        String name = s.key();
        if (ConfigurationKeys.find(name).isPresent() || COMMAND_LINE_VARIABLES.contains(name)
                || routeKeys.contains(name) || routeKeys.stream().map(Configuration::envName).anyMatch(name::equals)) {
            return;
        }
        boolean environment = !name.contains(".");
        Function<String, String> written = environment ? Configuration::envName : Function.identity();
        String prefix = environment ? name.toLowerCase(Locale.ROOT).replace('_', '.') : name;
        if (!prefix.startsWith("ingest.") && !prefix.startsWith("zookeeper.")) {
            return; // camel.* are Camel's
        }
        Map<String, String> known = ConfigurationKeys.all().keySet().stream()
                .collect(Collectors.toMap(written, k -> k));
        if (known.containsKey(name)) {
            return; // an environment variable of a known key that no other source writes
        }
        String nearest = known.keySet().stream()
                .min(Comparator.comparingInt((String k) -> distance(k, name)).thenComparing(k -> k))
                .orElseThrow();
        LOG.warn("configuration {} ({}) is no key this service reads, ignored; the nearest known key is {}", name,
                s.origin(), environment ? nearest + " (" + known.get(nearest) + ")" : nearest);
    }

    /** Levenshtein's edit distance: insertions, deletions and substitutions that turn one into the other. */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitute, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] t = previous;
            previous = current;
            current = t;
        }
        return previous[b.length()];
    }
}
