package org.cdlib.mrt.ingestqueue.queue.model;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/**
 * The time stamps of status nodes as mrt-zk writes them ({@code last_modified}:
 * {@code 2026-08-06 20:50:59 +0000}, Java's {@code yyyy-MM-dd HH:mm:ss Z}); read in that form or
 * as ISO-8601 (what this queue wrote before it spoke mrt-zk's format).
 */
public final class QueueTime {
    private static final DateTimeFormatter MRT_ZK = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss Z");

    private QueueTime() {
    }

    public static String now() {
        return format(Instant.now());
    }

    public static String format(Instant at) {
        return MRT_ZK.format(at.atOffset(ZoneOffset.UTC));
    }

    /** The instant of a stamp in either form; null when there is none or it cannot be read. */
    public static Instant parse(String stamp) {
        if (stamp == null || stamp.isBlank()) {
            return null;
        }
        try {
            return stamp.indexOf('T') > 0 ? Instant.parse(stamp) : OffsetDateTime.parse(stamp, MRT_ZK).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
