package org.cdlib.mrt.ingestqueue.fetch;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The name of a file inside an object, as a manifest, a form or a container entry gives it.
 * Only relative names made of plain segments are accepted, so that no name can write outside
 * the directory it is resolved in: no {@code ..}, no absolute path, no drive letter, no
 * backslash, no NUL or control character. {@code .} and empty segments are dropped
 * ({@code ./a.txt} is how tar often writes names).
 */
public final class SafeName {
    private SafeName() {
    }

    /** The name with {@code .} and empty segments dropped, or an exception naming the problem. */
    public static String check(String name) throws FetchException {
        if (name == null || name.isBlank()) {
            throw new FetchException("empty file name");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                throw new FetchException("file name '" + printable(name) + "' contains a control character");
            }
        }
        if (name.indexOf('\\') >= 0) {
            throw new FetchException("file name '" + name + "' contains a backslash (only '/' separates directories)");
        }
        if (name.startsWith("/")) {
            throw new FetchException("file name '" + name + "' is an absolute path");
        }
        if (name.length() >= 2 && name.charAt(1) == ':' && Character.isLetter(name.charAt(0))) {
            throw new FetchException("file name '" + name + "' starts with a drive letter");
        }
        List<String> segments = new ArrayList<>();
        for (String s : name.split("/")) {
            if (s.equals("..")) {
                throw new FetchException("file name '" + name + "' escapes the working directory ('..')");
            }
            if (!s.isEmpty() && !s.equals(".")) {
                segments.add(s);
            }
        }
        if (segments.isEmpty()) {
            throw new FetchException("file name '" + name + "' names no file");
        }
        return String.join("/", segments);
    }

    /** The name resolved under {@code root}; the normalized result is checked to stay below it. */
    public static Path resolve(Path root, String name) throws FetchException {
        String clean = check(name);
        Path base = root.toAbsolutePath().normalize();
        Path p = base.resolve(clean).normalize();
        if (!p.startsWith(base) || p.equals(base)) {
            throw new FetchException("file name '" + name + "' escapes the working directory");
        }
        return p;
    }

    private static String printable(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            b.append(c < 0x20 || c == 0x7f ? String.format("\\u%04x", (int) c) : String.valueOf(c));
        }
        return b.toString();
    }
}
