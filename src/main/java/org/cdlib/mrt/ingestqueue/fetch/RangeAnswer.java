package org.cdlib.mrt.ingestqueue.fetch;

import java.io.IOException;
import java.util.Locale;
import org.apache.hc.client5.http.impl.classic.CloseableHttpResponse;
import org.apache.hc.core5.http.Header;

/**
 * What an HTTP answer says about continuing a download: the validator it offers for a later Range request, and
 * whether a 206 answer to one continues the file where it was asked to.
 */
final class RangeAnswer {
    private RangeAnswer() {
    }

    /**
     * Where a download picks up: {@code offset} bytes of the file already on disk, asked for only while the
     * server still answers with {@code validator} (the strong ETag or Last-Modified recorded when it began).
     */
    record From(long offset, String validator) {
    }

    /** A Range request's answer that cannot continue the file (416, another range, another validator). */
    static final class ResumeRefused extends IOException {
        ResumeRefused(String message) {
            super(message);
        }
    }

    /**
     * Where a 206 answer to {@code from}'s Range request continues the file: at its offset, checked against the
     * answer's Content-Range and its validator (a server that ignored If-Range gains nothing).
     */
    static long continues(CloseableHttpResponse r, From from) throws ResumeRefused {
        if (r.getCode() == 416) {
            throw new ResumeRefused("HTTP 416 to bytes=" + from.offset() + "-");
        }
        Header range = r.getFirstHeader("Content-Range");
        String expected = "bytes " + from.offset() + "-";
        if (range == null || !range.getValue().strip().startsWith(expected)) {
            throw new ResumeRefused("HTTP 206 with Content-Range " + (range == null ? "missing" : range.getValue())
                    + ", not from byte " + from.offset());
        }
        boolean etag = from.validator().startsWith("\"");
        Header v = r.getFirstHeader(etag ? "ETag" : "Last-Modified");
        if (v == null || !v.getValue().strip().equals(from.validator())) {
            throw new ResumeRefused("HTTP 206 with " + (etag ? "ETag " : "Last-Modified ")
                    + (v == null ? "missing" : v.getValue()) + ", not the " + from.validator()
                    + " the transfer began with");
        }
        return from.offset();
    }

    /**
     * What an answer offers to resume its body later: its strong ETag, else its Last-Modified, where it serves
     * byte ranges (Accept-Ranges: bytes); null when it offers nothing to check a later range against.
     */
    static String validator(CloseableHttpResponse r) {
        Header ranges = r.getFirstHeader("Accept-Ranges");
        if (ranges == null || !ranges.getValue().toLowerCase(Locale.ROOT).contains("bytes")) {
            return null;
        }
        Header etag = r.getFirstHeader("ETag");
        if (etag != null && etag.getValue().strip().startsWith("\"") && etag.getValue().strip().length() > 2) {
            return etag.getValue().strip(); // W/"..." is weak: equal meaning, not equal bytes
        }
        Header modified = r.getFirstHeader("Last-Modified");
        return modified == null || modified.getValue().isBlank() ? null : modified.getValue().strip();
    }

}
