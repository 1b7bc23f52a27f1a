package org.cdlib.mrt.ingestqueue.text;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A credential in a URL ({@code https://user:password@host/...}) is never written anywhere:
 * the queue refuses such URLs where they enter, and whatever prints a URL (or text that may
 * hold one: a log line, an error message, a report) shows its user information as {@code ***}.
 */
public final class Urls {
    /**
     * A URL's scheme and {@code //}, then the user information up to the last {@code @} before
     * the path, query, fragment or a blank (greedy: a password may hold an {@code @}).
     */
    private static final Pattern USER_INFO = Pattern.compile("(?i)\\b([a-z][a-z0-9+.-]*://)[^/?#\\s\"'<>]*@");

    private Urls() {
    }

    /** Whether {@code url} carries user information ({@code user@} or {@code user:password@}) before its host. */
    public static boolean hasUserInfo(String url) {
        return url != null && url.contains("@") && USER_INFO.matcher(url).lookingAt();
    }

    /** {@code url} with its user information shown as {@code ***}; the URL itself when it has none. */
    public static String redacted(String url) {
        return redactedIn(url);
    }

    /** {@code text} with the user information of every URL in it shown as {@code ***}. */
    public static String redactedIn(String text) {
        if (text == null || text.indexOf('@') < 0 || !text.contains("://")) {
            return text;
        }
        Matcher m = USER_INFO.matcher(text);
        return m.find() ? m.reset().replaceAll("$1***@") : text;
    }
}
