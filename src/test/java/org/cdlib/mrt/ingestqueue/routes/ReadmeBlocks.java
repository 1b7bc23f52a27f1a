package org.cdlib.mrt.ingestqueue.routes;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fenced code blocks of README.md, each with the HTML comment on the line before it (the
 * hidden note that tells a test what the block is, e.g. {@code <!-- route example 1: storing.yaml,
 * after: "…" -->}), their common indentation removed: what the README tests read, so a changed
 * README is what they test.
 */
public record ReadmeBlocks(List<Block> blocks) {
    public static final Path README = Path.of("README.md");
    private static final Pattern FENCE = Pattern.compile("^(\\s*)```(\\w*)\\s*$");
    private static final Pattern NOTE = Pattern.compile("^\\s*<!--\\s*(.*?)\\s*-->\\s*$");

    /** One block: its language, the note before it (null: none), its text, the README line it starts on. */
    public record Block(String language, String note, String text, int line) {
    }

    public static ReadmeBlocks read() throws IOException {
        List<String> lines = Files.readAllLines(README);
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher open = FENCE.matcher(lines.get(i));
            if (!open.matches()) {
                continue;
            }
            Matcher note = i > 0 ? NOTE.matcher(lines.get(i - 1)) : null;
            int start = i;
            List<String> body = new ArrayList<>();
            for (i++; i < lines.size() && !lines.get(i).strip().equals("```"); i++) {
                body.add(lines.get(i));
            }
            blocks.add(new Block(
                    open.group(2), note != null && note.matches() ? note.group(1) : null, dedent(body), start + 1));
        }
        return new ReadmeBlocks(blocks);
    }

    public List<Block> of(String language) {
        return blocks.stream().filter(b -> b.language().equals(language)).toList();
    }

    static String dedent(List<String> lines) {
        int common = lines.stream()
                .filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length())
                .min()
                .orElse(0);
        StringBuilder b = new StringBuilder();
        for (String l : lines) {
            b.append(l.isBlank() ? "" : l.substring(common)).append('\n');
        }
        return b.toString();
    }

    /** A YAML line without its trailing comment ({@code #} after a blank, outside quotes) and outer blanks. */
    static String withoutComment(String line) {
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                quote = c == quote ? 0 : quote;
            } else if (c == '"' || c == '\'' && (i == 0 || !Character.isLetter(line.charAt(i - 1)))) {
                quote = c;
            } else if (c == '#' && (i == 0 || Character.isWhitespace(line.charAt(i - 1)))) {
                return line.substring(0, i).strip();
            }
        }
        return line.strip();
    }
}
