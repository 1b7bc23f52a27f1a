package org.cdlib.mrt.ingestqueue.queue.model;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;

/**
 * A job's recent transitions, kept inside its status node and written by the same transaction
 * that moves the job, so the history can never disagree with the state. The status node has a
 * fixed size limit ({@link QueueLimits#nodeBytes}), so the history is bounded twice: the last
 * {@link #MAX_ENTRIES} transitions, and at most {@link #MAX_BYTES} of JSON; older entries are
 * dropped first (a history whose first entry is not the creation has lost its beginning, and the
 * timeline says so).
 */
public final class JobHistory {
    /** How many transitions a status node keeps. */
    public static final int MAX_ENTRIES = 20;
    /**
     * What the history may take of the status node (16 KiB, of which an error
     * message may take 2 KiB and a completed job's summary the most of the rest).
     */
    public static final int MAX_BYTES = 4096;
    /** One reason, cut: the error message keeps the whole text of a failure. */
    static final int REASON_BYTES = 200;

    /** One transition: when, by whom (worker@host or the operator), from → to, and why. */
    public record Entry(String at, String from, String to, String by, String reason) {
    }

    private JobHistory() {
    }

    public static Entry entry(JobState from, JobState to, String by, String reason) {
        return new Entry(Instant.now().toString(), from == null ? null : from.wire(), to.wire(), cut(by, 120),
                cut(reason, REASON_BYTES));
    }

    /** The history with {@code e} appended, the oldest entries dropped to stay within the bounds. */
    public static List<Entry> append(List<Entry> history, Entry e) {
        List<Entry> out = new ArrayList<>(history == null ? List.of() : history);
        out.add(e);
        while (out.size() > MAX_ENTRIES
                || out.size() > 1 && jsonBytesAtMost(out) > MAX_BYTES && QueueJson.write(out).length > MAX_BYTES) {
            out.remove(0);
        }
        return List.copyOf(out);
    }

    /**
     * At least as many bytes as the history's JSON takes, counted without writing it: every move
     * appends, and writing the whole history twice per move was 1.6% of the real path's CPU. A
     * history this bound keeps under {@link #MAX_BYTES} needs no exact count.
     */
    static int jsonBytesAtMost(List<Entry> history) {
        int n = 2;
        for (Entry e : history) {
            n += 48
                    + bytesAtMost(e.at())
                    + bytesAtMost(e.from())
                    + bytesAtMost(e.to())
                    + bytesAtMost(e.by())
                    + bytesAtMost(e.reason());
        }
        return n;
    }

    /**
     * A JSON string's bytes at most: a control character or half a surrogate pair takes 6
     * (Jackson writes both as backslash-u), a quote or backslash 2, any other char at most 3.
     */
    private static int bytesAtMost(String s) {
        if (s == null) {
            return 4;
        }
        int n = 2;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            n += c < 0x20 || Character.isSurrogate(c)
                    ? 6
                    : c == '"' || c == '\\' ? 2 : c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
        }
        return n;
    }

    static String cut(String s, int bytes) {
        if (s == null || QueueLimits.utf8Length(s) <= bytes) {
            return s;
        }
        StringBuilder b = new StringBuilder();
        int n = 0;
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            int len = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length;
            if (n + len > bytes - 3) {
                break;
            }
            b.appendCodePoint(cp);
            n += len;
            i += Character.charCount(cp);
        }
        return b.append("...").toString();
    }
}
