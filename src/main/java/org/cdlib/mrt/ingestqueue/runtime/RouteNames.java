package org.cdlib.mrt.ingestqueue.runtime;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.regex.Pattern;
import org.apache.camel.Processor;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/**
 * The names one route file gives, checked against what the service has, each problem one line with the
 * file, its line and its route: the beans of {@code bean:} / {@code method:} / {@code process:} and
 * {@code routePolicy}, the methods called on them, the schemes of endpoint URIs, and unclosed
 * {@code {{placeholders}}}. Read from snakeyaml-engine's node tree (the parser Camel's YAML DSL reads
 * with), whose marks are the file's own lines.
 */
final class RouteNames {
    /** The keys whose text value is an endpoint URI (a mapping value is walked for its {@code uri}). */
    private static final Set<String> URI_KEYS = Set.of("uri", "from", "to", "toD", "wireTap", "enrich", "pollEnrich");
    private static final Pattern UNCLOSED = Pattern.compile("\\{\\{(?![^{}]*}})");

    private final String file;
    private final KnownBeans beans;
    private final RouteCheck.Schemes schemes;
    private final List<String> problems = new ArrayList<>();

    private RouteNames(String file, KnownBeans beans, RouteCheck.Schemes schemes) {
        this.file = file;
        this.beans = beans;
        this.schemes = schemes;
    }

    /** The problems of the documents of {@code file} (each a list of routes and route configurations). */
    static List<String> check(String file, Iterable<Node> documents, KnownBeans beans, RouteCheck.Schemes schemes) {
        RouteNames names = new RouteNames(file, beans, schemes);
        for (Node document : documents) {
            if (document instanceof SequenceNode items) {
                for (Node item : items.getValue()) {
                    names.walk(item, label(item));
                }
            }
        }
        return names.problems;
    }

    /** How a message names the top-level item that holds line {@code line} (1-based) of the documents, or empty. */
    static Optional<String> labelAt(Iterable<Node> documents, int line) {
        for (Node document : documents) {
            if (document instanceof SequenceNode items) {
                for (Node item : items.getValue()) {
                    if (line(item) <= line && item.getEndMark().map(m -> m.getLine() + 1 >= line).orElse(false)) {
                        return Optional.of(label(item));
                    }
                }
            }
        }
        return Optional.empty();
    }

    /** "route job-storing", "routeConfiguration job-outcomes", or the item's kind and line when it has no id. */
    static String label(Node item) {
        if (item instanceof MappingNode m && m.getValue().size() == 1) {
            NodeTuple t = m.getValue().get(0);
            String kind = text(t.getKeyNode()).orElse("item");
            return kind + " " + child(t.getValueNode(), "id").flatMap(RouteNames::text)
                    .orElse("at line " + line(item));
        }
        return "item at line " + line(item);
    }

    private void walk(Node node, String route) {
        if (node instanceof MappingNode m) {
            for (NodeTuple t : m.getValue()) {
                String key = text(t.getKeyNode()).orElse("");
                Node value = t.getValueNode();
                switch (key) {
                    case "bean", "method" -> bean(value, route);
                    case "process" -> processor(value, route);
                    case "routePolicy" -> text(value).ifPresent(v -> {
                        for (String name : v.split(",")) {
                            known(name.strip(), value, route);
                        }
                    });
                    default -> {
                        if (URI_KEYS.contains(key)) {
                            text(value).ifPresent(uri -> uri(uri, value, route));
                        }
                    }
                }
                walk(value, route);
            }
        } else if (node instanceof SequenceNode s) {
            s.getValue().forEach(n -> walk(n, route));
        } else if (node instanceof ScalarNode s && UNCLOSED.matcher(s.getValue()).find()) {
            problem(node, route, "unclosed placeholder in \"" + s.getValue()
                    + "\"; a placeholder is {{key}} or {{key:default}}");
        }
    }

    /** {@code bean: {ref, method}} (and the method language's {@code method: {ref, method}}). */
    private void bean(Node value, String route) {
        Optional<Node> ref = child(value, "ref");
        Optional<String> name = ref.flatMap(RouteNames::text);
        if (name.isEmpty() || !known(name.get(), ref.get(), route)) {
            return;
        }
        Optional<Node> methodNode = child(value, "method");
        Optional<String> method = methodNode.flatMap(RouteNames::text)
                .map(m -> m.contains("(") ? m.substring(0, m.indexOf('(')).strip() : m); // foo(${body})
        Optional<Class<?>> type = beans.type(name.get());
        if (method.isPresent() && type.isPresent()) {
            SortedSet<String> methods = KnownBeans.methods(type.get());
            if (!methods.contains(method.get())) {
                problem(methodNode.get(), route, "bean " + name.get() + " has no method " + method.get()
                        + "; its methods: " + String.join(", ", methods));
            }
        }
    }

    /** {@code process: {ref}}: a bean that is a Processor. */
    private void processor(Node value, String route) {
        Optional<Node> ref = child(value, "ref");
        Optional<String> name = ref.flatMap(RouteNames::text);
        if (name.isEmpty() || !known(name.get(), ref.get(), route)) {
            return;
        }
        beans.type(name.get()).filter(c -> !Processor.class.isAssignableFrom(c)).ifPresent(c ->
                problem(ref.get(), route, "process names bean " + name.get() + ", a " + c.getSimpleName()
                        + ", which is no Processor; call one of its methods with bean: {ref: " + name.get()
                        + ", method: ...} (its methods: " + String.join(", ", KnownBeans.methods(c)) + ")"));
    }

    /** Whether the service binds {@code name}; if not, the problem is said. */
    private boolean known(String name, Node at, String route) {
        if (name.startsWith("#") || name.contains("{{") || beans.type(name).isPresent()) {
            return true; // #class:…, #type:… and placeholders are not bean names
        }
        problem(at, route, "no bean " + name + didYouMean(name, beans.names()) + "; the beans: "
                + String.join(", ", beans.names()));
        return false;
    }

    private void uri(String uri, Node at, String route) {
        int colon = uri.indexOf(':');
        String scheme = colon < 0 ? "" : uri.substring(0, colon);
        if (scheme.contains("{") || scheme.contains("$") || !scheme.isEmpty() && schemes.known(scheme)) {
            return; // a placeholder or an expression: known once resolved
        }
        Set<String> all = schemes.all();
        problem(at, route, (colon < 0 ? "endpoint URI " + uri + " has no scheme"
                : "unknown endpoint scheme " + scheme + " in " + uri + didYouMean(scheme, all))
                + "; the schemes: " + String.join(", ", all));
    }

    private void problem(Node at, String route, String what) {
        problems.add(file + " line " + line(at) + " (" + route + "): " + what);
    }

    /** "; did you mean x?" naming the nearest of {@code names} when it is a letter or two from {@code name}. */
    static String didYouMean(String name, Collection<String> names) {
        int limit = Math.min(2, name.length() / 3 + 1);
        int nearest = names.stream().mapToInt(n -> distance(name, n)).min().orElse(limit + 1);
        List<String> near = names.stream().filter(n -> nearest <= limit && distance(name, n) == nearest).sorted()
                .toList();
        return near.isEmpty() ? "" : "; did you mean " + String.join(" or ", near) + "?";
    }

    /** The letters inserted, removed, changed or swapped with their neighbour to turn {@code a} into {@code b}. */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            for (int j = 0; j <= b.length(); j++) {
                if (i == 0 || j == 0) {
                    d[i][j] = i + j;
                    continue;
                }
                int change = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j], d[i][j - 1]) + 1, d[i - 1][j - 1] + change);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1); // lgo -> log
                }
            }
        }
        return d[a.length()][b.length()];
    }

    static int line(Node node) {
        return node.getStartMark().map(m -> m.getLine() + 1).orElse(0);
    }

    private static Optional<Node> child(Node node, String key) {
        if (node instanceof MappingNode m) {
            for (NodeTuple t : m.getValue()) {
                if (text(t.getKeyNode()).filter(key::equals).isPresent()) {
                    return Optional.of(t.getValueNode());
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<String> text(Node node) {
        return node instanceof ScalarNode s ? Optional.of(s.getValue()) : Optional.empty();
    }
}
