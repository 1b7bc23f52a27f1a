package org.cdlib.mrt.ingestqueue.manifest;

import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An {@code nfo:fileLastModified} cell. Merritt reads it as an ISO 8601 date and, by mrt-doc's
 * manifest cases ({@code 4blocks_with_bad_date}), fails a manifest where it is not one; refused
 * here with its line, before anything is fetched (docs/DESIGN.md, "Manifests as Merritt reads them").
 * Accepted: a date ({@code 2020-01-01}) or a date and time, minutes at least, the last part
 * possibly with a fraction, optionally with a zone: {@code 2020-01-01T00:00Z},
 * {@code 2020-01-01T00:00.000Z} (mrt-doc's own example: a fraction of a minute),
 * {@code 2020-01-01T12:30:05.25+01:00}, {@code 2020-01-01T12:30:05-0800}. Each part must be in
 * range (no 2020-02-30, no 25:00).
 */
final class LastModified {
    private static final Pattern ISO = Pattern.compile("(\\d{4})-(\\d{2})-(\\d{2})"
            + "(?:T(\\d{2}):(\\d{2})(?::(\\d{2}))?(?:[.,]\\d{1,9})?(Z|[+-](\\d{2})(?::?(\\d{2}))?)?)?");

    private LastModified() {
    }

    /** The problem with {@code value} as a modification date, or null when it is one. */
    static String problem(String value) {
        Matcher m = ISO.matcher(value);
        if (!m.matches()) {
            return "nfo:fileLastModified '" + abbreviate(value)
                    + "' is not a date (expected ISO 8601, e.g. 2020-01-01 or " + "2020-01-01T00:00:00Z)";
        }
        try {
            LocalDate.of(num(m.group(1)), num(m.group(2)), num(m.group(3)));
            if (m.group(4) != null) {
                LocalTime.of(num(m.group(4)), num(m.group(5)), m.group(6) == null ? 0 : num(m.group(6)));
            }
            if (m.group(8) != null) {
                ZoneOffset.ofHoursMinutes(num(m.group(8)), m.group(9) == null ? 0 : num(m.group(9)));
            }
        } catch (DateTimeException e) {
            return "nfo:fileLastModified '" + abbreviate(value) + "' is not a date: " + e.getMessage();
        }
        return null;
    }

    private static int num(String digits) {
        return Integer.parseInt(digits);
    }

    private static String abbreviate(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "..." : s;
    }
}
