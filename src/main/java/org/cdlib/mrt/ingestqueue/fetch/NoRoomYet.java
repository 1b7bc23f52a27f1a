package org.cdlib.mrt.ingestqueue.fetch;

import java.util.Locale;

/**
 * A file does not fit on the working filesystem now (others filled it since its job was admitted): told before
 * its first byte is written, so the job waits and is tried again; not the depositor's failure, and what an earlier
 * attempt recorded for a resume is kept. With the numbers (bytes needed, usable, kept free) when they were read:
 * {@link #statusMessage()} shows them to the operator.
 */
public final class NoRoomYet extends FetchException {
    private final long needed;
    private final long usable;
    private final long keptFree;

    /** The free space could not be read: no numbers. */
    public NoRoomYet(String message) {
        this(message, -1, -1, -1);
    }

    public NoRoomYet(String message, long needed, long usable, long keptFree) {
        super(message);
        this.needed = needed;
        this.usable = usable;
        this.keptFree = keptFree;
    }

    /**
     * The job's status message while it waits: the numbers rounded to three digits, so a retry that finds the disk
     * much as it was changes nothing an operator sees (and writes nothing); the exact bytes are in the log line.
     */
    public String statusMessage() {
        if (needed < 0) {
            return "waits for room: " + getMessage();
        }
        return "waits for room on the working disk: needs " + size(needed) + ", " + size(usable) + " usable, "
                + size(keptFree) + " kept free (ingest.download.min-free-percent)";
    }

    /** Bytes in decimal units, three significant digits at most: 1.23 GB, 12.3 GB, 123 GB. */
    public static String size(long bytes) {
        String[] units = {"bytes", "KB", "MB", "GB", "TB", "PB"};
        double v = bytes;
        int u = 0;
        while (v >= 999.5 && u < units.length - 1) {
            v /= 1000;
            u++;
        }
        if (u == 0) {
            return bytes + " bytes";
        }
        String digits = v >= 99.95 ? "%.0f" : v >= 9.995 ? "%.1f" : "%.2f";
        return String.format(Locale.ROOT, digits + " %s", v, units[u]);
    }
}
