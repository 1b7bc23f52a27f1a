package org.cdlib.mrt.ingestqueue.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.camel.dsl.yaml.YamlRoutesBuilderLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/** Every file of routes/ is valid YAML DSL (the schema camel-yaml-dsl ships) and the set is complete. */
class RouteFilesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    static Stream<Path> routeFiles() throws Exception {
        return Files.list(Path.of("routes")).filter(p -> p.toString().endsWith(".yaml")).sorted();
    }

    private static JsonSchema schema;

    private static synchronized Set<ValidationMessage> validate(String yamlText) throws Exception {
        if (schema == null) {
            try (InputStream in = YamlRoutesBuilderLoader.class.getResourceAsStream("/schema/camelYamlDsl.json")) {
                schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4).getSchema(in);
            }
        }
        Object yaml = new Load(LoadSettings.builder().build()).loadFromString(yamlText);
        JsonNode node = JSON.valueToTree(yaml);
        return schema.validate(node);
    }

    @ParameterizedTest
    @MethodSource("routeFiles")
    void validatesAgainstTheYamlDslSchema(Path file) throws Exception {
        // a numeric option given by a property placeholder is checked as the number it defaults to
        Set<ValidationMessage> errors = validate(Files.readString(file)
                .replaceAll("(maximumRedeliveries: )\"\\{\\{[^:}]+:(\\d+)\\}\\}\"", "$1$2"));
        assertTrue(errors.isEmpty(), file + ": " + errors);
    }

    @Test
    void theSchemaRefusesAMisspelledStep() throws Exception {
        String bad = Files.readString(Path.of("routes/estimating.yaml")).replace("process:", "proces:");
        assertTrue(!validate(bad).isEmpty(), "a misspelled step must not validate");
    }

    @Test
    void oneFilePerConsumerDaemonOfTheDesign() throws Exception {
        List<String> names = routeFiles().map(p -> p.getFileName().toString()).toList();
        assertEquals(
                List.of(
                        "batch-pending.yaml",
                        "batch-reporting.yaml",
                        "batch-update-reporting.yaml",
                        "cleanup.yaml",
                        "downloading.yaml",
                        "error-handling.yaml",
                        "estimating.yaml",
                        "job-pending.yaml",
                        "notify.yaml",
                        "processing.yaml",
                        "provisioning.yaml",
                        "recording.yaml",
                        "storing.yaml"),
                names);
    }

    @Test
    void everyBeanARouteNamesIsOneTheServiceBindsOrStandsInFor() throws Exception {
        for (Path f : routeFiles().toList()) {
            Matcher m = Pattern.compile("ref: (\\w+)").matcher(Files.readString(f));
            while (m.find()) {
                assertTrue(StartChecks.knownBeans(Map.of()).names().contains(m.group(1)),
                        f + " names unknown bean " + m.group(1));
            }
        }
    }
}
