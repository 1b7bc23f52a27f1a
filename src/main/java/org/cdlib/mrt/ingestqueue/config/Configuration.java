package org.cdlib.mrt.ingestqueue.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.apache.camel.Ordered;
import org.apache.camel.spi.LoadablePropertiesSource;
import org.cdlib.mrt.ingestqueue.config.StartupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service's configuration: each key takes its value from the first of these that sets it,
 * <ol>
 * <li>the overrides given to the service ({@code IngestService(Map)}: tests, the demo),</li>
 * <li>the environment: the key upper case, {@code .} and {@code -} as {@code _} ({@code INGEST_HTTP_PORT}),</li>
 * <li>{@code -Dkey=value} system properties,</li>
 * <li>{@code application.properties} in the configuration directory ({@code ingest.config.dir}, itself
 * taken from 1–3 only; the working directory when unset),</li>
 * <li>the copy of {@code application.properties} in the jar.</li>
 * </ol>
 * A blank value is as if that source did not set the key (a key that names an outside service refuses
 * it instead: {@code runtime.OutsideServiceCheck}). Camel's own placeholder lookups ({@code {{key}}} in the
 * routes, camel-main's {@code camel.*} options) read the same values through {@link #camelSource()}:
 * Camel's PropertiesComponent on its own lets the first location that has a key win (the jar's copy)
 * and puts {@code -D} before the environment.
 */
public final class Configuration {
    private static final Logger LOG = LoggerFactory.getLogger(Configuration.class);

    /** Where application.properties is read from; only the overrides, the environment and -D can say. */
    public static final String CONFIG_DIR = "ingest.config.dir";
    static final String FILE_NAME = "application.properties";
    /**
     * Only these -D properties and environment variables are configuration (the JVM's own are not, nor the
     * ZooKeeper client's and embedded server's own {@code zookeeper.*} system properties).
     */
    private static final List<String> PREFIXES = List.of(
            "ingest.",
            "camel.",
            "zookeeper.connect",
            "zookeeper.embedded.",
            "zookeeper.session-timeout",
            "zookeeper.connection-timeout");
    /**
     * Keys whose values a log shows as {@code (set)}: "user" also
     * covers the command line's INGEST_USER (name:password).
     */
    private static final List<String> SECRET_WORDS = List.of("password", "secret", "token", "user", "credentials",
            "passphrase", "signing.key");
    private static final Pattern URL_USER_INFO = Pattern.compile("(//[^/@\\s]*?):[^/@\\s]*@");
    private static final Pattern URL_PASSWORD = Pattern.compile("(?i)(password=)[^&;\\s]*");

    /** One source of values: its values by key (the environment by variable name) and how a log names it. */
    private record Source(String name, Map<String, String> values, boolean environment) {
        String raw(String key) {
            return values.get(environment ? envName(key) : key);
        }

        String origin(String key) {
            return environment ? "environment " + envName(key) : name;
        }
    }

    /** A key's value and where it came from ({@code environment INGEST_HTTP_PORT}, {@code -D}, a file, the jar). */
    public record Setting(String key, String value, String origin) {
        /** The value as a log may show it: secrets as {@code (set)}, a URL's password hidden. */
        public String shown() {
            return Configuration.shown(key, value);
        }

        @Override
        public String toString() {
            return key + " = " + shown() + " (" + origin + ")";
        }
    }

    private final List<Source> sources;
    private final Path file;

    private Configuration(List<Source> sources, Path file) {
        this.sources = sources;
        this.file = file;
    }

    /** The service's sources: this process's environment and system properties. */
    public static Configuration load(Map<String, String> overrides) {
        Map<String, String> system = new LinkedHashMap<>();
        System.getProperties().forEach((k, v) -> system.put(String.valueOf(k), String.valueOf(v)));
        return load(overrides, System.getenv(), system);
    }

    /** With the environment and the system properties given (tests). */
    public static Configuration load(Map<String, String> overrides, Map<String, String> environment,
            Map<String, String> systemProperties) {
        Map<String, String> system = new LinkedHashMap<>();
        systemProperties.forEach((k, v) -> {
            if (PREFIXES.stream().anyMatch(p -> p.endsWith(".") ? k.startsWith(p) : k.equals(p))) {
                system.put(k, v);
            }
        });
        Map<String, String> env = new LinkedHashMap<>();
        environment.forEach((k, v) -> {
            if (PREFIXES.stream()
                    .anyMatch(p -> k.startsWith(envName(p)) && (p.endsWith(".") || k.equals(envName(p))))) {
                env.put(k, v);
            }
        });
        List<Source> above = List.of(new Source("the service's overrides", Map.copyOf(overrides), false),
                new Source("environment", env, true), new Source("-D", system, false));
        Setting dirSetting = first(above, CONFIG_DIR).orElse(null);
        Path dir = dirSetting == null ? Path.of("") : Path.of(dirSetting.value());
        Path file = dir.resolve(FILE_NAME).toAbsolutePath().normalize();
        Map<String, String> fromFile = Map.of();
        if (Files.exists(file)) {
            try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                fromFile = read(in);
            } catch (IOException | IllegalArgumentException e) {
                throw new StartupException("cannot read " + file + ": " + e.getMessage(), e);
            }
        } else if (dirSetting != null) { // a directory was named: its missing file is a mistake, not "no file"
            throw new StartupException("no " + FILE_NAME + " in " + dir.toAbsolutePath() + " (" + CONFIG_DIR + " from "
                    + dirSetting.origin() + ")");
        }
        List<Source> all = new ArrayList<>(above);
        all.add(new Source("file " + file, fromFile, false));
        all.add(new Source("jar " + FILE_NAME, jarCopy(), false));
        return new Configuration(List.copyOf(all), file);
    }

    private static Map<String, String> jarCopy() {
        try (InputStream in = Configuration.class.getResourceAsStream("/" + FILE_NAME)) {
            return in == null ? Map.of() : read(new InputStreamReader(in, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new StartupException("cannot read the jar's " + FILE_NAME + ": " + e.getMessage(), e);
        }
    }

    private static Map<String, String> read(Reader in) throws IOException {
        Properties p = new Properties();
        p.load(in);
        Map<String, String> values = new LinkedHashMap<>();
        p.stringPropertyNames().forEach(k -> values.put(k, p.getProperty(k)));
        return values;
    }

    /** The environment variable that sets {@code key}: upper case, {@code .} and {@code -} as {@code _}. */
    public static String envName(String key) {
        return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /** The file this configuration read (or would have read: it may not exist). */
    public Path file() {
        return file;
    }

    /** The key's value and origin, from the first source that sets it to something not blank. */
    public Optional<Setting> setting(String key) {
        return first(sources, key);
    }

    private static Optional<Setting> first(List<Source> sources, String key) {
        for (Source s : sources) {
            String v = s.raw(key);
            if (v != null && !v.isBlank()) {
                return Optional.of(new Setting(key, v.strip(), s.origin(key)));
            }
        }
        return Optional.empty();
    }

    /**
     * The key as the first source that has it at all writes it, blank or not: a key that names an outside
     * service must not read a blank there as "not set".
     */
    public Optional<Setting> written(String key) {
        for (Source s : sources) {
            String v = s.raw(key);
            if (v != null) {
                return Optional.of(new Setting(key, v.strip(), s.origin(key)));
            }
        }
        return Optional.empty();
    }

    /**
     * Every key some source sets, with its value and origin; an environment variable that matches no key
     * written elsewhere is listed under its own name.
     */
    public Map<String, Setting> settings() {
        Map<String, Setting> all = new TreeMap<>();
        Map<String, String> envNames = new LinkedHashMap<>();
        for (Source s : sources) {
            if (!s.environment()) {
                s.values().keySet().forEach(k -> envNames.putIfAbsent(envName(k), k));
            }
        }
        for (Source s : sources) {
            if (s.environment()) {
                s.values().forEach((name, v) -> {
                    if (!envNames.containsKey(name) && !v.isBlank()) {
                        all.put(name, new Setting(name, v.strip(), "environment"));
                    }
                });
            } else {
                s.values().keySet().forEach(k -> setting(k).ifPresent(v -> all.putIfAbsent(k, v)));
            }
        }
        return all;
    }

    /** One line per key set: where its value came from. */
    public void logSources() {
        settings().values().forEach(s -> LOG.info("configuration {}", s));
    }

    /** The value as a log may show it: a secret's as {@code (set)}, a URL's password hidden. */
    static String shown(String key, String value) {
        String k = key.toLowerCase(Locale.ROOT).replace('_', '.').replace('-', '.');
        if (SECRET_WORDS.stream().anyMatch(k::contains)) {
            return "(set)";
        }
        String v = URL_USER_INFO.matcher(value).replaceAll("$1:(set)@");
        return URL_PASSWORD.matcher(v).replaceAll("$1(set)");
    }

    /** These values as Camel's PropertiesComponent reads them (the routes' placeholders, camel-main's options). */
    public LoadablePropertiesSource camelSource() {
        return new CamelSource();
    }

    private final class CamelSource implements LoadablePropertiesSource, Ordered {
        @Override
        public String getName() {
            return "ingest-queue configuration";
        }

        @Override
        public String getProperty(String name) {
            return setting(name).map(Setting::value).orElse(null);
        }

        @Override
        public Properties loadProperties() {
            return loadProperties(k -> true);
        }

        @Override
        public Properties loadProperties(Predicate<String> filter) {
            Properties p = new Properties();
            for (Source s : sources) {
                if (!s.environment()) {
                    for (String k : s.values().keySet()) {
                        if (filter.test(k)) {
                            setting(k).ifPresent(v -> p.putIfAbsent(k, v.value()));
                        }
                    }
                }
            }
            return p;
        }

        @Override
        public void reloadProperties(String location) {
            // read once at the start; a changed file takes effect at the next start
        }

        @Override
        public int getOrder() {
            return Ordered.HIGHEST;
        }
    }
}
