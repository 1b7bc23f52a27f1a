package org.cdlib.mrt.ingestqueue.house;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.junit.jupiter.api.Test;

/**
 * The house's shape: no import runs back up. The packages of {@code src/main} form layers (no
 * package reaches, through any chain of imports or fully named types, a package that reaches it),
 * so each can be read knowing only what lies below it.
 */
class PackageLayersTest {
    private static final String ROOT = "org.cdlib.mrt.ingestqueue";
    private static final Pattern PACKAGE = Pattern.compile("(?m)^package ([\\w.]+);");
    private static final Pattern NAMED =
            Pattern.compile("\\b(" + Pattern.quote(ROOT) + "(?:\\.[a-z]\\w*)*)\\.[A-Z]\\w*");

    @Test
    void noPackageReachesBackToItself() throws IOException {
        Map<String, Set<String>> uses = uses(Path.of("src/main/java"));
        List<String> cycles = cycles(uses);
        assertTrue(cycles.isEmpty(), "packages that reach back to themselves: " + cycles + "\n" + uses);
    }

    @Test
    void theQueueIsReachedThroughItsFacadeAndItsRecords() throws IOException {
        Map<String, Set<String>> uses = uses(Path.of("src/main/java"));
        // below the façade nothing knows it: the rooms of queue/ are usable alone
        for (String room : List.of("errors", "model", "log", "zk", "layout", "lease", "space", "jobs", "batches",
                "hosts", "outcome")) {
            assertTrue(!uses.getOrDefault(ROOT + ".queue." + room, Set.of()).contains(ROOT + ".queue"),
                    "queue." + room + " must not use the façade QueueStore: " + uses.get(ROOT + ".queue." + room));
        }
        assertEquals(Set.of(), queueRooms(reachable(uses, ROOT + ".queue.errors")),
                "the queue's errors depend on nothing else of the queue");
        assertEquals(Set.of(ROOT + ".queue.errors"), queueRooms(reachable(uses, ROOT + ".queue.model")),
                "the queue's records depend on its errors only");
        // the zk layer knows nothing of the queue's layout: it bounds calls by the records' limits, no more
        assertEquals(
                Set.of(ROOT + ".queue.errors", ROOT + ".queue.model"),
                queueRooms(reachable(uses, ROOT + ".queue.zk")),
                "the zk layer reaches the queue's errors and records only");
    }

    @Test
    void aCycleIsNamed() {
        Map<String, Set<String>> uses = Map.of("a", Set.of("b"), "b", Set.of("a"), "c", Set.of("a"));
        assertEquals(List.of("a <-> [b]", "b <-> [a]"), cycles(new TreeMap<>(uses)));
    }

    private static Set<String> queueRooms(Set<String> packages) {
        return packages.stream().filter(p -> p.startsWith(ROOT + ".queue")).collect(Collectors.toSet());
    }

    /**
     * Package → the project packages its classes name (imports and fully named types; comments and strings skipped).
     */
    static Map<String, Set<String>> uses(Path sources) throws IOException {
        Map<String, Set<String>> uses = new TreeMap<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String text = Files.readString(f);
                Matcher m = PACKAGE.matcher(text);
                if (!m.find()) {
                    continue;
                }
                String pkg = m.group(1);
                Set<String> to = uses.computeIfAbsent(pkg, k -> new TreeSet<>());
                Matcher n = NAMED.matcher(code(text));
                while (n.find()) {
                    if (!n.group(1).equals(pkg)) {
                        to.add(n.group(1));
                    }
                }
            }
        }
        uses.values().forEach(s -> s.retainAll(uses.keySet()));
        return uses;
    }

    private static String code(String text) {
        return text.replaceAll("\"(\\\\.|[^\"\\\\\\n])*\"", "\"\"")
                .replaceAll("(?s)/\\*.*?\\*/", " ")
                .replaceAll("//[^\\n]*", "")
                .replaceAll("(?m)^package .*$", "");
    }

    private static Set<String> reachable(Map<String, Set<String>> uses, String from) {
        Set<String> seen = new TreeSet<>();
        Deque<String> todo = new ArrayDeque<>(uses.getOrDefault(from, Set.of()));
        while (!todo.isEmpty()) {
            String p = todo.pop();
            if (seen.add(p)) {
                todo.addAll(uses.getOrDefault(p, Set.of()));
            }
        }
        return seen;
    }

    /** Each package that reaches itself, with the packages on its way back. */
    static List<String> cycles(Map<String, Set<String>> uses) {
        List<String> found = new ArrayList<>();
        Map<String, Set<String>> reach = new HashMap<>();
        for (String p : uses.keySet()) {
            reach.put(p, reachable(uses, p));
        }
        for (String p : uses.keySet()) {
            if (reach.get(p).contains(p)) {
                found.add(p + " <-> " + uses.get(p).stream().filter(q -> reach.get(q).contains(p)).toList());
            }
        }
        return found;
    }
}
