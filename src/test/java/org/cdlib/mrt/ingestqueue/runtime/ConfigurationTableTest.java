package org.cdlib.mrt.ingestqueue.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.cdlib.mrt.ingestqueue.config.Configuration;
import org.cdlib.mrt.ingestqueue.config.ConfigurationKeys.Key;
import org.cdlib.mrt.ingestqueue.config.ConfigurationKeys;
import org.junit.jupiter.api.Test;

/**
 * The README's "Configuration" table is the reference of every key: one row per key of {@link ConfigurationKeys},
 * its kind and default as the catalogue has them; the catalogue holds every key the code reads and every
 * {@code {{key:default}}} placeholder of {@code routes/} (with the same default), and the keys the shipped
 * application.properties, the Dockerfile and compose.yaml set.
 */
class ConfigurationTableTest {
    private static final Pattern ROW = Pattern.compile("^\\| `([^`]+)` \\| ([^|]+) \\| ([^|]+) \\| .*\\|$");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([a-z][a-z0-9.-]*)(?::([^}]*))?}}");
    private static final String READS = "\\b(?:property|intProperty|longProperty|booleanProperty|durationProperty"
            + "|setting|written|choice)\\(\\s*";
    private static final Pattern LITERAL_READ = Pattern.compile(READS + "\"([a-z][a-z0-9.-]*)\"");
    private static final Pattern CONSTANT_READ = Pattern.compile(READS + "(?:(\\w+)\\.)?([A-Z][A-Z0-9_]*)\\s*[,)]");
    private static final Pattern ENV_NAME = Pattern.compile("\\b((?:INGEST|ZOOKEEPER)_[A-Z0-9_]+)[=:]");

    /** The rows of the README's "## Configuration" section, key by key. */
    static Map<String, String[]> readmeRows() throws IOException {
        List<String> lines = Files.readAllLines(Path.of("README.md"));
        int start = lines.indexOf("## Configuration");
        assertTrue(start >= 0, "README has a \"## Configuration\" section");
        Map<String, String[]> rows = new TreeMap<>();
        for (String line : lines.subList(start + 1, lines.size())) {
            if (line.startsWith("## ")) {
                break;
            }
            Matcher m = ROW.matcher(line);
            if (m.matches()) {
                String[] previous = rows.put(m.group(1), new String[] {m.group(2).strip(), m.group(3).strip()});
                assertEquals(null, previous, "one row for " + m.group(1));
            }
        }
        return rows;
    }

    @Test
    void theReadmeTableHasARowForEveryKeyAndNoOtherWithItsKindAndDefault() throws IOException {
        Map<String, String[]> rows = readmeRows();
        Set<String> missing = new TreeSet<>(ConfigurationKeys.all().keySet());
        missing.removeAll(rows.keySet());
        assertEquals(Set.of(), missing, "keys the service reads that the README's table lacks");
        Set<String> unread = new TreeSet<>(rows.keySet());
        unread.removeAll(ConfigurationKeys.all().keySet());
        assertEquals(Set.of(), unread, "keys the README's table names that nothing reads");
        for (Key key : ConfigurationKeys.all().values()) {
            String[] row = rows.get(key.name());
            assertEquals(key.kind().name(), row[0], key.name() + "'s kind");
            if (key.defaultValue() != null) {
                assertTrue(row[1].contains("`" + key.defaultValue() + "`"),
                        key.name() + "'s default is `" + key.defaultValue() + "`, the README says " + row[1]);
            }
        }
    }

    @Test
    void everyPlaceholderOfTheRouteFilesIsAKeyWithTheDefaultTheCatalogueGives() throws IOException {
        List<String> wrong = new ArrayList<>();
        try (Stream<Path> files = Files.list(Path.of("routes"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()) {
                Matcher m = PLACEHOLDER.matcher(Files.readString(f));
                while (m.find()) {
                    String name = m.group(1);
                    String fallback = m.group(2);
                    var key = ConfigurationKeys.find(name);
                    if (key.isEmpty()) {
                        wrong.add(f + ": " + name + " is not in ConfigurationKeys");
                    } else if (fallback != null && !fallback.equals(key.get().defaultValue())) {
                        wrong.add(f + ": " + name + " defaults to " + fallback + ", the catalogue to "
                                + key.get().defaultValue());
                    } else if (fallback != null) {
                        key.get().kind().read(name, fallback); // a default of its own kind
                    }
                }
            }
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void everyKeyTheCodeReadsIsInTheCatalogue() throws IOException {
        Set<String> read = new TreeSet<>();
        try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String source = Files.readString(f);
                Matcher literal = LITERAL_READ.matcher(source);
                while (literal.find()) {
                    read.add(literal.group(1));
                }
                Matcher constant = CONSTANT_READ.matcher(source);
                while (constant.find()) {
                    Path declaring = constant.group(1) == null ? f : find(constant.group(1) + ".java");
                    read.add(constantValue(declaring, constant.group(2)));
                }
            }
        }
        assertTrue(read.size() > 100, "the scan found the reads: " + read);
        read.removeAll(ConfigurationKeys.all().keySet());
        assertEquals(Set.of(), read, "keys read in src/main/java that ConfigurationKeys lacks");
    }

    @Test
    void theShippedFilesSetOnlyKeysTheServiceReads() throws IOException {
        Set<String> unknown = new TreeSet<>();
        Properties shipped = new Properties();
        try (Reader in = Files.newBufferedReader(Path.of("application.properties"))) {
            shipped.load(in);
        }
        for (String k : shipped.stringPropertyNames()) {
            if (!k.startsWith("camel.main.") && ConfigurationKeys.find(k).isEmpty()) {
                unknown.add("application.properties: " + k);
            }
        }
        Set<String> envNames = new TreeSet<>();
        ConfigurationKeys.all().keySet().forEach(k -> envNames.add(Configuration.envName(k)));
        for (String file : List.of("Dockerfile", "compose.yaml")) {
            Matcher m = ENV_NAME.matcher(Files.readString(Path.of(file)));
            while (m.find()) {
                if (!envNames.contains(m.group(1))) {
                    unknown.add(file + ": " + m.group(1));
                }
            }
        }
        assertEquals(Set.of(), unknown);
    }

    private static Path find(String fileName) throws IOException {
        try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
            return files.filter(p -> p.getFileName().toString().equals(fileName)).findFirst().orElseThrow();
        }
    }

    private static String constantValue(Path file, String name) throws IOException {
        Matcher m = Pattern.compile("String " + name + " = \"([^\"]+)\"").matcher(Files.readString(file));
        assertTrue(m.find(), "the constant " + name + " in " + file);
        return m.group(1);
    }
}
