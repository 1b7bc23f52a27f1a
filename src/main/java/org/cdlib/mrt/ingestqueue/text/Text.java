package org.cdlib.mrt.ingestqueue.text;

/**
 * Text is data: what a depositor (or a neighbour writing jobs into the same ZooKeeper) gives is
 * checked where it enters ({@link #problem}) and, whatever it holds, written so it cannot be
 * read as anything else: one log or mail line ({@link #oneLine}), XML 1.0 character data
 * ({@link #xml}), a line of a text file ({@link #blanked}), a quoted audit value ({@link #quoted}).
 */
public final class Text {
    private Text() {
    }

    /**
     * What a field may not hold, described for a refusal ("a line break (U+000A) at character 7"),
     * or null when it holds none: C0 controls, DEL, C1 controls, the line and paragraph
     * separators U+2028 and U+2029, a lone surrogate, and U+FFFE and U+FFFF (which XML 1.0 cannot
     * hold). A {@code multiLine} field (free text such as a note) may hold tabs and line breaks.
     */
    public static String problem(String value, boolean multiLine) {
        if (value == null) {
            return null;
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (multiLine && (c == '\t' || c == '\n' || c == '\r')) {
                continue;
            }
            if (refused(value, i)) {
                return describe(c) + " at character " + (i + 1);
            }
            if (Character.isHighSurrogate(c)) {
                i++; // a pair (refused() saw its low half)
            }
        }
        return null;
    }

    /** Whether the char at {@code i} is one {@link #problem} refuses (a high surrogate counts with its low half). */
    private static boolean refused(String s, int i) {
        char c = s.charAt(i);
        if (c < 0x20 || c >= 0x7f && c <= 0x9f || c == '\u2028' || c == '\u2029' || c == '\uFFFE' || c == '\uFFFF') {
            return true;
        }
        if (Character.isHighSurrogate(c)) {
            return i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1));
        }
        return Character.isLowSurrogate(c); // a low half not after a high one (a pair's low half is skipped)
    }

    private static String describe(char c) {
        String code = String.format("U+%04X", (int) c);
        return switch (c) {
            case '\n' -> "a line break (" + code + ")";
            case '\r' -> "a line break (a carriage return, " + code + ")";
            case '\t' -> "a tab (" + code + ")";
            case '\0' -> "a NUL character (" + code + ")";
            case '\u2028', '\u2029' -> "a line or paragraph separator (" + code + ")";
            case '\uFFFE', '\uFFFF' -> "a non-character (" + code + ")";
            default -> Character.isSurrogate(c) ? "half of a surrogate pair alone (" + code + ", not a character)"
                    : "a control character (" + code + ")";
        };
    }

    /**
     * {@code s} on one line, for a log or a mail: line breaks and tabs written {@code \n},
     * {@code \r}, {@code \t}; every other character {@link #problem} refuses as {@code \}{@code uXXXX}.
     * The string itself when it needs nothing.
     */
    public static String oneLine(String s) {
        if (s == null || clean(s)) {
            return s;
        }
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!refused(s, i)) {
                b.append(c);
                if (Character.isHighSurrogate(c)) {
                    b.append(s.charAt(++i));
                }
                continue;
            }
            switch (c) {
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> b.append(String.format("\\u%04X", (int) c));
            }
        }
        return b.toString();
    }

    private static boolean clean(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20
                    || c >= 0x7f && c <= 0x9f
                    || c >= '\u2028' && (c == '\u2028' || c == '\u2029' || c >= '\uD800')) {
                // a rare character: the careful walk decides (surrogate pairs and most of the BMP's top are fine)
                return problem(s, false) == null;
            }
        }
        return true;
    }

    /**
     * {@code s} as XML 1.0 character data of an element: {@code & < >} escaped, a carriage
     * return as {@code &#13;} (so it survives parsing), and each character XML 1.0 cannot hold (C0 controls but tab
     * and line breaks, a lone surrogate, U+FFFE, U+FFFF) replaced by U+FFFD, so the document is always well-formed.
     */
    public static String xml(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '\r' -> b.append("&#13;");
                case '\t', '\n' -> b.append(c);
                default -> {
                    if (c < 0x20 || c == '\uFFFE' || c == '\uFFFF') {
                        b.append('\uFFFD');
                    } else if (Character.isHighSurrogate(c)
                            && i + 1 < s.length()
                            && Character.isLowSurrogate(s.charAt(i + 1))) {
                        b.append(c).append(s.charAt(++i));
                    } else if (Character.isSurrogate(c)) {
                        b.append('\uFFFD');
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.toString();
    }

    /**
     * {@code s} for one line of a plain text file (an ERC's ANVL value): each character
     * {@link #problem} refuses a blank (a lone surrogate U+FFFD, which UTF-8 can encode).
     */
    public static String blanked(String s) {
        if (s == null || clean(s)) {
            return s;
        }
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!refused(s, i)) {
                b.append(c);
                if (Character.isHighSurrogate(c)) {
                    b.append(s.charAt(++i));
                }
            } else {
                b.append(Character.isSurrogate(c) ? '\uFFFD' : ' ');
            }
        }
        return b.toString();
    }

    /**
     * {@code s} as one double-quoted value of a {@code key="value"}
     * log line: quotes and backslashes escaped, on one line.
     */
    public static String quoted(String s) {
        if (s == null) {
            return "\"\"";
        }
        return "\"" + oneLine(s.replace("\\", "\\\\").replace("\"", "\\\"")) + "\"";
    }
}
