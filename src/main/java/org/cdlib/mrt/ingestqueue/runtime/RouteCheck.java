package org.cdlib.mrt.ingestqueue.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.camel.CamelContext;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.StartupSummaryLevel;
import org.apache.camel.builder.RouteConfigurationBuilder;
import org.apache.camel.dsl.yaml.YamlRoutesBuilderLoader;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.main.DefaultRoutesCollector;
import org.apache.camel.spi.FactoryFinder;
import org.apache.camel.spi.Resource;
import org.apache.camel.support.PluginHelper;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Compose;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.nodes.Node;

/**
 * The route files the service is about to load, checked before anything is created: each file's
 * YAML, its steps as Camel's YAML DSL reads them (the loader, in a context of its own that is never
 * started), and the names it gives ({@link RouteNames}). Each problem is one line naming the file,
 * the line, the route and the bad name with what is accepted.
 */
final class RouteCheck {
    private static final Pattern ID = Pattern.compile("^\\s+id:\\s*\"?([\\w.-]+)\"?\\s*$");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([^{}:]+)(?::[^{}]*)?}}");
    private static final Pattern UNKNOWN_NODE = Pattern.compile("Unknown node id: (\\S+)");

    private RouteCheck() {
    }

    /**
     * The problems of the route files {@code include} names less those {@code exclude} names (camel-main's
     * own patterns, resolved as camel-main resolves them); none when the service can load them.
     */
    static List<String> problems(String include, String exclude, KnownBeans beans) throws Exception {
        return problems(include, exclude, beans, new TreeSet<>());
    }

    /** As above; {@code keys} gets every key the files' {@code {{key}}} / {@code {{key:default}}} placeholders read. */
    static List<String> problems(String include, String exclude, KnownBeans beans, Set<String> keys)
            throws Exception {
        try (DefaultCamelContext camel = new DefaultCamelContext()) {
            camel.setStartupSummaryLevel(StartupSummaryLevel.Off); // its close says nothing: it never ran
            camel.build();
            Collection<Resource> files = new DefaultRoutesCollector()
                    .findRouteResourcesFromDirectory(camel, exclude, include);
            if (files.isEmpty()) {
                return List.of("camel.main.routes-include-pattern " + include + " names no route file: the service"
                        + " would run no route");
            }
            Schemes schemes = new Schemes(camel);
            List<String> problems = new ArrayList<>();
            for (Resource file : files) {
                problems.addAll(check(camel, file, beans, schemes));
                try (InputStream in = file.getInputStream()) {
                    Matcher m = PLACEHOLDER.matcher(new String(in.readAllBytes(), StandardCharsets.UTF_8));
                    while (m.find()) {
                        keys.add(m.group(1).strip());
                    }
                }
            }
            return problems;
        }
    }

    private static List<String> check(DefaultCamelContext camel, Resource file, KnownBeans beans, Schemes schemes)
            throws IOException {
        String name = shown(file);
        List<Node> documents = new ArrayList<>();
        String text;
        try (InputStream in = file.getInputStream()) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        try {
            new Compose(LoadSettings.builder().setLabel(name).build()).composeAllFromString(text)
                    .forEach(documents::add);
        } catch (MarkedYamlEngineException e) {
            int line = line(e);
            return List.of(name + " line " + line + routeBefore(text, line).map(id -> " (route " + id + ")").orElse("")
                    + ": not valid YAML: " + e.getProblem()
                    + e.getContextMark().map(m -> " (" + e.getContext() + " at line " + (m.getLine() + 1) + ")")
                            .orElse(""));
        }
        List<String> problems = new ArrayList<>(RouteNames.check(name, documents, beans, schemes));
        try {
            for (RoutesBuilder builder : PluginHelper.getRoutesLoader(camel).findRoutesBuilders(List.of(file))) {
                builder.addRoutesToCamelContext(camel); // definitions only: the context is never started
                if (builder instanceof RouteConfigurationBuilder configurations) {
                    configurations.addRouteConfigurationsToCamelContext(camel);
                }
            }
        } catch (Exception e) {
            problems.add(dslProblem(name, documents, e));
        }
        return problems;
    }

    /** In a file that is not YAML, the id of the top-level item that begins last before {@code line}, if any. */
    static Optional<String> routeBefore(String text, int line) {
        Optional<String> id = Optional.empty();
        List<String> lines = text.lines().limit(line).toList();
        for (String l : lines) {
            if (l.startsWith("- ")) {
                id = Optional.empty(); // a new item: its id follows
            }
            Matcher m = ID.matcher(l);
            if (id.isEmpty() && m.matches()) {
                id = Optional.of(m.group(1));
            }
        }
        return id;
    }

    /** Camel's YAML DSL refused the file: its words, at its line, in the route there. */
    private static String dslProblem(String name, List<Node> documents, Exception e) {
        Throwable t = e;
        while (t != null && !(t instanceof MarkedYamlEngineException)) {
            t = t.getCause();
        }
        if (!(t instanceof MarkedYamlEngineException marked)) {
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            return name + ": Camel's YAML DSL cannot load it: " + root.getMessage();
        }
        int line = line(marked);
        String where = name + " line " + line + RouteNames.labelAt(documents, line).map(l -> " (" + l + ")")
                .orElse("");
        String problem = marked.getProblem();
        Matcher unknown = UNKNOWN_NODE.matcher(problem);
        if (unknown.find()) {
            String id = unknown.group(1);
            Set<String> steps = steps();
            String near = RouteNames.didYouMean(id, steps);
            return where + ": unknown node id " + id + near + (near.isEmpty()
                    ? "; the steps of Camel's YAML DSL: " + String.join(", ", steps) : "");
        }
        return where + ": " + problem;
    }

    private static int line(MarkedYamlEngineException e) {
        return e.getProblemMark().or(e::getContextMark).map(Mark::getLine).orElse(-1) + 1;
    }

    /** The names of the steps (and top-level items) of Camel's YAML DSL, from the schema the DSL ships. */
    static Set<String> steps() {
        Set<String> steps = new TreeSet<>();
        try (InputStream in = YamlRoutesBuilderLoader.class.getResourceAsStream("/schema/camelYamlDsl.json")) {
            JsonNode items = new ObjectMapper().readTree(in).path("items");
            items.path("definitions").path("org.apache.camel.model.ProcessorDefinition").path("properties")
                    .fieldNames().forEachRemaining(steps::add);
            items.path("properties").fieldNames().forEachRemaining(steps::add);
        } catch (IOException | RuntimeException e) {
            return steps; // only the suggestion is lost
        }
        return steps;
    }

    /**
     * The endpoint schemes Camel resolves: one by its component's factory file, as Camel's resolver finds it;
     * all of them (a scan of the class path) only for a message.
     */
    record Schemes(CamelContext camel) {
        boolean known(String scheme) {
            return camel.getClassResolver().loadResourceAsURL(FactoryFinder.DEFAULT_PATH + "component/" + scheme)
                    != null;
        }

        Set<String> all() {
            return new TreeSet<>(PluginHelper.getComponentNameResolver(camel).resolveNames(camel));
        }
    }

    /** routes/storing.yaml (a file, as configured), or routes/storing.yaml in the jar. */
    private static String shown(Resource file) {
        String location = file.getLocation();
        if (location.startsWith("file:")) {
            return location.substring("file:".length());
        }
        if (location.startsWith("classpath:")) {
            return location.substring("classpath:".length()) + " (in the jar)";
        }
        return location;
    }
}
