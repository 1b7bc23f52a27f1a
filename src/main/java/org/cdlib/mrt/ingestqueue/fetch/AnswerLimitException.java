package org.cdlib.mrt.ingestqueue.fetch;

import org.apache.hc.core5.http.MessageConstraintException;

/**
 * An outside answer broke one of the bounds every answer is held to (its header lines, a line's
 * length, its body against what was declared or what the disk may hold). The message names the
 * limit and its key. Such a server would do the same next time, so it is never retried: the job
 * fails with the message (routes/error-handling.yaml lists {@link FetchException}).
 */
public final class AnswerLimitException extends FetchException {
    public AnswerLimitException(String message) {
        super(message);
    }

    /**
     * What HttpClient's own limits ({@code Http1Config}) raised, told in the operator's words:
     * {@code where} (the URL or the call) and the key that sets the limit.
     */
    public static AnswerLimitException of(String where, MessageConstraintException e, int maxHeaderCount,
            int maxLineLength, String keys) {
        String m = e.getMessage() == null ? "" : e.getMessage();
        String what;
        if (m.contains("header count")) {
            what = "the server sent more than " + maxHeaderCount + " header lines (limit " + keys
                    + ".max-header-count)";
        } else if (m.contains("line length")) {
            what = "the server sent a line longer than " + maxLineLength + " bytes in its answer's head (limit "
                    + keys + ".max-line-length)";
        } else if (m.contains("empty line")) {
            what = "the server sent only empty lines where its answer should start";
        } else {
            what = "the server's answer broke a limit (" + m + ")";
        }
        return new AnswerLimitException(where + ": " + what);
    }
}
