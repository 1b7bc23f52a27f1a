package org.cdlib.mrt.ingestqueue.objects;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A depositor's {@code mrt-delete.txt} (CONTRACTS §5), as Merritt ingest handles it: the file is
 * moved from {@code producer/} to {@code system/mrt-delete.txt} (it never becomes a producer file),
 * and each line names a file of the object relative to {@code producer/}; a line is prefixed
 * {@code producer/} when it is not already. Blank lines and {@code #} comments are skipped. A
 * line that would leave {@code producer/} ({@code ..}, an absolute path, a backslash, a control
 * character) fails with {@link DeleteLineException} naming the line. Only update mode applies
 * the deletions; add mode makes a version of exactly the submitted files anyway.
 */
public final class Deletions {
    public static final String NAME = "mrt-delete.txt";

    /** A delete line that cannot be applied; the message names the file, the line number and the line. */
    public static final class DeleteLineException extends IllegalArgumentException {
        private final int line;

        public DeleteLineException(int line, String text, String problem) {
            super(NAME + " line " + line + " '" + (text.length() > 100 ? text.substring(0, 100) + "..." : text) + "': "
                    + problem);
            this.line = line;
        }

        public int line() {
            return line;
        }
    }

    /**
     * One deletion: the object's file name ({@code producer/a.txt}) and the line of mrt-delete.txt that asked for it.
     */
    public record Delete(String name, int line, String text) {
    }

    private Deletions() {
    }

    /**
     * Moves {@code producer/mrt-delete.txt} to {@code system/} (a retried job finds it there) and
     * returns its checked lines; none when the object has no such file.
     */
    public static List<Delete> take(Path producer, Path system) throws IOException {
        Path given = producer.resolve(NAME);
        Path kept = system.resolve(NAME);
        if (Files.isRegularFile(given)) {
            Files.createDirectories(system);
            Files.move(given, kept, StandardCopyOption.REPLACE_EXISTING);
        }
        if (!Files.isRegularFile(kept)) {
            return List.of();
        }
        return parse(Files.readString(kept, StandardCharsets.UTF_8));
    }

    static List<Delete> parse(String text) {
        List<Delete> out = new ArrayList<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String raw = lines[i];
            String l = raw.strip();
            if (i == 0 && l.startsWith("\uFEFF")) {
                l = l.substring(1).strip();
            }
            if (l.isEmpty() || l.startsWith("#")) {
                continue;
            }
            String rel = l.startsWith("producer/") ? l.substring("producer/".length()) : l;
            String problem = problem(rel);
            if (problem != null) {
                throw new DeleteLineException(i + 1, l, problem);
            }
            out.add(new Delete("producer/" + rel, i + 1, l));
        }
        return out;
    }

    private static String problem(String rel) {
        if (rel.isEmpty()) {
            return "names no file";
        }
        if (rel.startsWith("/") || rel.matches("^[A-Za-z]:.*")) {
            return "an absolute path; a delete line names a file relative to producer/";
        }
        if (rel.contains("\\")) {
            return "a backslash; use / between folders";
        }
        for (char c : rel.toCharArray()) {
            if (c < 0x20 || c == 0x7f) {
                return "a control character";
            }
        }
        for (String seg : rel.split("/", -1)) {
            if (seg.equals("..")) {
                return "leaves producer/ ('..')";
            }
            if (seg.isEmpty() || seg.equals(".")) {
                return "an empty or '.' path segment";
            }
        }
        return null;
    }

    /** The lines as Merritt storage takes them in the {@code delete} field: one {@code producer/} name per line. */
    public static String field(List<Delete> deletes) {
        StringBuilder b = new StringBuilder();
        for (Delete d : deletes) {
            b.append(d.name()).append('\n');
        }
        return b.toString();
    }
}
